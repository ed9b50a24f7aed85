package script

import (
	"strconv"
	"strings"
)

// HammerDB's jobs output is a tree of strings (every number is printed as a
// string), written either as JSON in HammerDB's layout or as a Tcl list/dict.
// Scripts parse these texts, so the layout matters as much as the content.

// value is a string, a list or an object.
type value any

type list []value

// object keeps its keys in order.
type object []field

type field struct {
	key string
	val value
}

func (o *object) add(key string, v value) { *o = append(*o, field{key, v}) }

// splitMessage is how HammerDB answers "no data" in an object context: the
// message's words become key/value pairs ("Jobid has no timing data" →
// {"Jobid": "has", "no": "timing", "data": ""}).
func splitMessage(msg string) object {
	words := strings.Fields(msg)
	var o object
	for i := 0; i < len(words); i += 2 {
		v := ""
		if i+1 < len(words) {
			v = words[i+1]
		}
		o.add(words[i], v)
	}
	return o
}

// jsonText writes v in HammerDB's JSON layout: two spaces per level, a list
// of one item or an object of one key on one line, every scalar a string,
// and "/" escaped as "\/".
func jsonText(v value) string {
	var b strings.Builder
	writeJSON(&b, v, 0)
	return b.String()
}

func writeJSON(b *strings.Builder, v value, level int) {
	inner := strings.Repeat("  ", level+1)
	outer := strings.Repeat("  ", level)
	switch v := v.(type) {
	case list:
		switch len(v) {
		case 0:
			b.WriteString("[\n" + inner + "\n" + outer + "]")
		case 1:
			b.WriteString("[")
			writeJSON(b, v[0], level+1)
			b.WriteString("]")
		default:
			b.WriteString("[\n")
			for i, item := range v {
				if i > 0 {
					b.WriteString(",\n")
				}
				b.WriteString(inner)
				writeJSON(b, item, level+1)
			}
			b.WriteString("\n" + outer + "]")
		}
	case object:
		switch len(v) {
		case 0:
			b.WriteString("{\n" + inner + "\n" + outer + "}")
		case 1:
			b.WriteString("{" + jsonString(v[0].key) + ": ")
			writeJSON(b, v[0].val, level+1)
			b.WriteString("}")
		default:
			b.WriteString("{\n")
			for i, f := range v {
				if i > 0 {
					b.WriteString(",\n")
				}
				b.WriteString(inner + jsonString(f.key) + ": ")
				writeJSON(b, f.val, level+1)
			}
			b.WriteString("\n" + outer + "}")
		}
	case string:
		b.WriteString(jsonString(v))
	}
}

func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '/':
			b.WriteString(`\/`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r < 0x20 {
				b.WriteString(`\u00`)
				b.WriteString(strconv.FormatInt(int64(r)+0x100, 16)[1:])
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// tclText writes v as a Tcl list (objects as dicts: key value …).
func tclText(v value) string {
	switch v := v.(type) {
	case list:
		words := make([]string, len(v))
		for i, item := range v {
			words[i] = tclWord(tclText(item))
		}
		return strings.Join(words, " ")
	case object:
		words := make([]string, 0, 2*len(v))
		for _, f := range v {
			words = append(words, tclWord(f.key), tclWord(tclText(f.val)))
		}
		return strings.Join(words, " ")
	case string:
		return v
	}
	return ""
}

// tclWord quotes s as one element of a Tcl list, as Tcl's own list command
// would: bare when it can be, in braces when that is safe, else with
// backslashes.
func tclWord(s string) string {
	if s == "" {
		return "{}"
	}
	if !strings.ContainsAny(s, " \t\n\r\v\f{}[]$\";\\") && s[0] != '#' {
		return s
	}
	if bracesBalanced(s) && !strings.HasSuffix(s, `\`) {
		return "{" + s + "}"
	}
	var b strings.Builder
	for _, r := range s {
		switch r {
		case ' ', '{', '}', '[', ']', '$', '"', ';', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func bracesBalanced(s string) bool {
	depth := 0
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			escaped = false
		case r == '\\':
			escaped = true
		case r == '{':
			depth++
		case r == '}':
			depth--
			if depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

// number prints a count as an integer and a measure in its shortest form,
// with ".0" on whole numbers (as SQLite gives HammerDB its REALs).
func number(x float64, decimals int) string {
	s := strconv.FormatFloat(x, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(s, "0")
		if strings.HasSuffix(s, ".") {
			s += "0"
		}
	} else {
		s += ".0"
	}
	return s
}

func integer(n int64) string { return strconv.FormatInt(n, 10) }
