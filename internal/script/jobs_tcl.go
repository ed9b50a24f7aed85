package script

// Values read as Tcl reads them, for the answers whose JSON HammerDB
// compiles from Tcl dicts: a repeated key (tclDict), a list read as a dict
// of dicts (the "no data" answers), a Tcl list split into its words.

import "strings"

// tclDict is o as a Tcl dict holds it: a repeated key keeps its first place
// and takes the last value.
func tclDict(o object) object {
	at := map[string]int{}
	var out object
	for _, f := range o {
		if i, ok := at[f.key]; ok {
			out[i].val = f.val
			continue
		}
		at[f.key] = len(out)
		out = append(out, f)
	}
	return out
}

// dictOfDicts is a list as HammerDB's JSON writer compiles it (huddle
// "dict * dict"): key, value pairs whose values are read as dicts of
// strings, their words in pairs ("Jobid has no timing data" → {"Jobid":
// "has", "no": "timing", "data": ""}).
func dictOfDicts(l list) object {
	var o object
	for i := 0; i < len(l); i += 2 {
		var v value = ""
		if i+1 < len(l) {
			v = l[i+1]
		}
		o.add(tclText(l[i]), dictOfStrings(v))
	}
	return tclDict(o)
}

// dictOfStrings reads a value as a Tcl dict of strings.
func dictOfStrings(v value) object {
	if o, ok := v.(object); ok {
		return o
	}
	words := tclWords(tclText(v))
	var o object
	for i := 0; i < len(words); i += 2 {
		val := ""
		if i+1 < len(words) {
			val = words[i+1]
		}
		o.add(words[i], val)
	}
	return tclDict(o)
}

// tclWords splits a Tcl list into its elements, reading braces, quotes and
// backslashes as Tcl does.
func tclWords(s string) []string {
	var out []string
	i, n := 0, len(s)
	space := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' }
	escaped := func(c byte) byte {
		switch c {
		case 'n':
			return '\n'
		case 't':
			return '\t'
		}
		return c
	}
	for {
		for i < n && space(s[i]) {
			i++
		}
		if i >= n {
			return out
		}
		if s[i] == '{' {
			depth, start := 1, i+1
			for i++; i < n && depth > 0; i++ {
				switch s[i] {
				case '\\':
					i++
				case '{':
					depth++
				case '}':
					depth--
				}
			}
			end := i - 1 // the closing brace
			if depth > 0 {
				end = n // unterminated: the rest
			}
			out = append(out, s[start:end])
			continue
		}
		var b strings.Builder
		quoted := s[i] == '"'
		if quoted {
			i++
		}
		for ; i < n && (quoted && s[i] != '"' || !quoted && !space(s[i])); i++ {
			if s[i] == '\\' && i+1 < n {
				i++
				b.WriteByte(escaped(s[i]))
				continue
			}
			b.WriteByte(s[i])
		}
		if quoted {
			i++
		}
		out = append(out, b.String())
	}
}
