package db

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// Sledge's one redaction of credentials. Everything that shows or stores a
// database URL, a DSN or text that may quote one (a driver's error, an
// output line, a stored setting) goes through Redact, RedactText,
// RedactError or SecretName: this file knows the forms the drivers read.
//
// It errs on the side of hiding: a part that may be a password is masked
// even when a strict parser would read it otherwise, and a malformed URL is
// redacted as the most lenient driver would read it (libpq ends the user
// info at the first '@', net/url at the last: everything up to the last is
// hidden).

// Mask stands in for a removed secret.
const Mask = "xxxxx"

// SecretName reports whether a URL parameter, a keyword of a key/value DSN
// or a setting called name carries a secret: a password (password, passwd,
// pwd, sslpassword, HammerDB's pg_pass …), a token, a secret, a credential,
// an API, access or private key. Names of files (passfile, sslkey) and
// switches (allowCleartextPasswords) are not secrets; nor are names that
// merely contain "key" (keyandthink, o_orderkey in SQL).
func SecretName(name string) bool {
	n := strings.ToLower(name)
	flat := strings.NewReplacer("_", "", "-", "", ".", "").Replace(n)
	switch flat {
	case "passfile", "sslkey", "tlskey", "allowcleartextpasswords", "allownativepasswords",
		"allowoldpasswords", "quotepasswords":
		return false
	}
	for _, w := range []string{"pass", "pwd", "secret", "token", "credential", "apikey", "accesskey", "privatekey"} {
		if strings.Contains(flat, w) {
			return true
		}
	}
	// A word of its own: api_key, auth.
	return slices.ContainsFunc(strings.FieldsFunc(n, notAlnum), func(w string) bool { return w == "key" || w == "auth" })
}

func notAlnum(r rune) bool { return !('a' <= r && r <= 'z' || '0' <= r && r <= '9') }

// Redact returns dsn with its credentials masked, whatever its form: a URL
// (any scheme: the password of its user info, the values of its secret
// parameters), a go-sql-driver/mysql DSN (user:pass@tcp(host:port)/db?…),
// a PostgreSQL keyword/value string (host=h password='…' sslpassword=…) or
// a file path with options. Nothing is parsed strictly, so a malformed dsn
// is redacted too.
func Redact(dsn string) string { return mask(dsn, dsnSecrets(dsn)) }

// RedactText returns free text (an error message, an output line, a
// setting's value) with the credentials of every URL, DSN and secret
// key=value pair in it masked. A password holding a space cannot be told
// apart from the text after it here; RedactError, which knows the DSN,
// can.
func RedactText(s string) string {
	var spans []span
	prev := 0
	for _, loc := range urlInText.FindAllStringIndex(s, -1) {
		// "connect to URL: …": the punctuation ending a sentence or a
		// clause is the text's, not the URL's.
		for loc[1] > loc[0] && strings.IndexByte(":,.;)", s[loc[1]-1]) >= 0 {
			loc[1]--
		}
		spans = append(spans, textSecrets(s, prev, loc[0])...)
		spans = append(spans, urlSecrets(s, loc[0], loc[1])...)
		prev = loc[1]
	}
	spans = append(spans, textSecrets(s, prev, len(s))...)
	return mask(s, spans)
}

// RedactError returns err with its message redacted, as RedactText does
// and also of every secret of the DSNs it may quote (a driver reading a
// malformed URL otherwise than Redact may quote a piece of a password as a
// host name). The result unwraps to err. A nil err stays nil.
func RedactError(err error, dsns ...string) error {
	if err == nil {
		return nil
	}
	return &redactedError{err: err, msg: RedactWith(err.Error(), dsns...)}
}

type redactedError struct {
	err error
	msg string
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// RedactWith is RedactText that also masks the secrets of dsns wherever they
// appear in s: whole (when at least four bytes long: a shorter one would
// mask ordinary words) and, for a password holding '@', its end after the
// first (or last) '@' where s shows it as a word before an '@' (libpq reads
// u:p@ss@host as the password p at the host ss@host).
func RedactWith(s string, dsns ...string) string {
	// Before RedactText, whose masks could cut a secret the driver quotes
	// whole (a password holding a space) into pieces no longer found.
	for _, dsn := range dsns {
		if dsn == "" {
			continue
		}
		s = strings.ReplaceAll(s, dsn, Redact(dsn))
		for _, sp := range dsnSecrets(dsn) {
			secret := dsn[sp.start:sp.end]
			for _, v := range []string{secret, decodeLoose(secret)} {
				if len(v) >= 4 {
					s = strings.ReplaceAll(s, v, Mask)
				}
				// libpq takes the first '@' for the user info's end.
				if i := strings.IndexByte(v, '@'); i >= 0 && i+1 < len(v) {
					s = maskBeforeAt(s, v[i+1:])
				}
				if i := strings.LastIndexByte(v, '@'); i >= 0 && i+1 < len(v) {
					s = maskBeforeAt(s, v[i+1:])
				}
			}
		}
	}
	return RedactText(s)
}

// maskBeforeAt masks piece where s shows it as a word followed by '@'.
func maskBeforeAt(s, piece string) string {
	needle := piece + "@"
	var b strings.Builder
	for {
		i := strings.Index(s, needle)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		if i == 0 || !wordByte(s[i-1]) {
			b.WriteString(s[:i] + Mask + "@")
		} else {
			b.WriteString(s[:i+len(needle)])
		}
		s = s[i+len(needle):]
	}
}

// wordByte reports whether c continues a word (a host name, a password).
func wordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-' || c >= 0x80
}

// span is a secret's place in a string: s[start:end].
type span struct{ start, end int }

// mask replaces spans (in any order, possibly overlapping) with Mask.
func mask(s string, spans []span) string {
	spans = slices.DeleteFunc(spans, func(p span) bool { return p.end <= p.start })
	if len(spans) == 0 {
		return s
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	var b strings.Builder
	at := 0
	for i, p := range spans {
		if i > 0 && p.start < at { // overlaps the previous mask: extend it
			at = max(at, p.end)
			continue
		}
		b.WriteString(s[at:p.start])
		b.WriteString(Mask)
		at = p.end
	}
	b.WriteString(s[at:])
	return b.String()
}

// scheme is a URL's scheme at the start of a string, with its colon.
var scheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// keywordStart is the start of a keyword/value DSN: host=…, user = ….
var keywordStart = regexp.MustCompile(`^\s*[A-Za-z_][A-Za-z0-9_.-]*\s*=`)

// dsnSecrets finds the secrets of a whole DSN.
func dsnSecrets(s string) []span {
	if m := scheme.FindString(s); m != "" {
		if strings.HasPrefix(s[len(m):], "//") {
			return urlSecrets(s, 0, len(s))
		}
		switch strings.ToLower(m) {
		case "sqlite:", "duckdb:", "file:":
			// A file: no user info, but options may hold a password.
			if q := strings.IndexByte(s, '?'); q >= 0 {
				return paramSecrets(s, q+1, len(s))
			}
			return nil
		}
	}
	if keywordStart.MatchString(s) {
		return keywordSecrets(s, 0, len(s), true)
	}
	if strings.Contains(s, "@") {
		return mysqlSecrets(s, 0, len(s))
	}
	if q := strings.IndexByte(s, '?'); q >= 0 {
		return paramSecrets(s, q+1, len(s))
	}
	return nil
}

// urlSecrets finds the secrets of the URL s[from:to] (scheme://…): the
// password of its user info and the values of its secret parameters.
//
// Drivers disagree where a malformed URL's parts end: libpq ends the user
// info at the first '@' before a '/', net/url at the last '@' of the part
// before the first '/', '?' or '#' (a password holding '/' or '?' breaks
// both). So the user info here ends at the last '@' that any reading may
// take for its end, and the parameters are read from where each reading
// starts them; what is masked is the union.
func urlSecrets(s string, from, to int) []span {
	i := strings.Index(s[from:to], "://")
	if i < 0 {
		return nil
	}
	start := from + i + 3
	rest := s[start:to]
	authority := rest // up to the first '/', '?' or '#'
	if j := strings.IndexAny(rest, "/?#"); j >= 0 {
		authority = rest[:j]
	}
	// The path ends at the first '?' after the last '/': up to there an
	// '@' can only end user info (a database name holds neither).
	pathEnd := len(rest)
	if slash := strings.LastIndexByte(rest, '/'); slash >= 0 {
		if q := strings.IndexByte(rest[slash:], '?'); q >= 0 {
			pathEnd = slash + q
		}
	} else if q := strings.IndexByte(rest, '?'); q >= 0 && !strings.Contains(rest[:q], "@") {
		pathEnd = q
	}
	end := strings.LastIndexByte(rest[:pathEnd], '@')
	if end < 0 && strings.Contains(authority, ":") {
		// user:pa?ss@host: not a port after the ':' (nor IPv6), so the
		// '@' that follows ends a password.
		port := authority[strings.LastIndexByte(authority, ':')+1:]
		if !strings.Contains(port, "]") && (port == "" || strings.Trim(port, "0123456789") != "") {
			end = strings.LastIndexByte(rest, '@')
		}
	}
	var spans []span
	if end >= 0 {
		if colon := strings.IndexByte(rest[:end], ':'); colon >= 0 {
			spans = append(spans, span{start + colon + 1, start + end})
		}
	}
	// The parameters after the user info, and net/url's, from the first '?'.
	if q := strings.IndexByte(rest[end+1:], '?'); q >= 0 {
		spans = append(spans, paramSecrets(s, start+end+1+q+1, to)...)
	}
	if q := strings.IndexByte(rest, '?'); q >= 0 && q < end {
		spans = append(spans, paramSecrets(s, start+q+1, to)...)
	}
	return spans
}

// paramName is a parameter's name at the start of what follows a '&' or
// ';': what makes it a separator rather than part of a password's value.
var paramName = regexp.MustCompile(`^[A-Za-z0-9_.%+-]+=`)

// paramSecrets finds the values of secret parameters in the query
// s[from:to] (name=value pairs separated by '&' or ';'). A value runs to
// the next separator that starts another name=, so a password holding an
// unescaped '&' is hidden whole.
func paramSecrets(s string, from, to int) []span {
	var spans []span
	for at := from; at < to; {
		next := to
		for j := at; j < to; j++ {
			if (s[j] == '&' || s[j] == ';') && paramName.MatchString(s[j+1:to]) {
				next = j
				break
			}
		}
		pair := s[at:next]
		if eq := strings.IndexByte(pair, '='); eq > 0 {
			name := pair[:eq]
			if SecretName(name) || SecretName(decodeLoose(strings.ReplaceAll(name, "+", " "))) {
				spans = append(spans, span{at + eq + 1, next})
			}
		}
		at = next + 1
	}
	return spans
}

// mysqlSecrets finds the password of a go-sql-driver/mysql DSN s[from:to],
// [user[:password]@][net[(addr)]]/dbname[?params]: its user info ends at
// the last '@' followed by a network's address or the '/' of the database
// (else at the last '@'); the password is after its first ':'.
func mysqlSecrets(s string, from, to int) []span {
	dsn := s[from:to]
	end := -1
	for i := strings.LastIndexByte(dsn, '@'); i >= 0; i = strings.LastIndexByte(dsn[:i], '@') {
		if mysqlAddr.MatchString(dsn[i+1:]) {
			end = i
			break
		}
	}
	if end < 0 {
		end = strings.LastIndexByte(dsn, '@')
	}
	var spans []span
	if end >= 0 {
		if colon := strings.IndexByte(dsn[:end], ':'); colon >= 0 {
			spans = append(spans, span{from + colon + 1, from + end})
		}
	}
	if q := strings.IndexByte(dsn[end+1:], '?'); q >= 0 {
		spans = append(spans, paramSecrets(s, from+end+1+q+1, to)...)
	}
	// A '@' in a parameter's value may have been taken for the user
	// info's end: read the parameters from the first '?' too.
	if q := strings.IndexByte(dsn, '?'); q >= 0 && q < end {
		spans = append(spans, paramSecrets(s, from+q+1, to)...)
	}
	return spans
}

// mysqlAddr is what follows a go-sql-driver/mysql DSN's user info.
var mysqlAddr = regexp.MustCompile(`^(?:[A-Za-z][A-Za-z0-9]*\(|/|$)`)

// keywordSecrets finds the values of secret keywords in s[from:to]. In a
// whole keyword/value DSN (dsn) a value is '…' quoted with backslash
// escapes (an unterminated one runs to the end), or runs to the next white
// space (backslash escapes it), as libpq reads it. In free text "…" and
// ${name}: "…" (JSON) quote too.
func keywordSecrets(s string, from, to int, dsn bool) []span {
	var spans []span
	text := s[from:to]
	masked := 0 // the end of the last value masked
	for _, m := range keywordPair.FindAllStringSubmatchIndex(text, -1) {
		if m[0] < masked {
			continue // in a value already masked
		}
		var name string
		if m[2] >= 0 {
			name = text[m[2]:m[3]]
		} else {
			name = text[m[4]:m[5]]
		}
		if !SecretName(name) {
			continue
		}
		// The value starts where the match ends; a quoted one keeps its
		// quotes (stored text is redacted again when read: the same).
		v, end := m[1], valueEnd(text, m[1], dsn)
		if v < len(text) && (text[v] == '\'' || text[v] == '"') {
			v++
			if end > v && text[end-1] == text[v-1] {
				end--
			}
		}
		spans = append(spans, span{from + v, from + end})
		masked = end
	}
	return spans
}

// keywordPair is name=, name = or "name": before a value.
var keywordPair = regexp.MustCompile(`(?:^|[^A-Za-z0-9_.-])(?:([A-Za-z_][A-Za-z0-9_.-]*)\s*=|"([A-Za-z_][A-Za-z0-9_. -]*)"\s*:)\s*`)

// valueEnd is where the value starting at text[v] ends.
func valueEnd(text string, v int, dsn bool) int {
	if v >= len(text) {
		return v
	}
	if q := text[v]; q == '\'' || q == '"' && !dsn {
		for i := v + 1; i < len(text); i++ {
			switch text[i] {
			case '\\':
				i++
			case q:
				return i + 1
			}
		}
		return len(text)
	}
	for i := v; i < len(text); i++ {
		switch text[i] {
		case '\\':
			i++
		case ' ', '\t', '\n', '\r', '\v', '\f':
			return i
		}
	}
	return len(text)
}

// urlInText is a URL's start and extent in free text: up to white space or
// a quote.
var urlInText = regexp.MustCompile("[A-Za-z][A-Za-z0-9+.-]*://[^\\s\"'<>`]*")

// wordInText is a word that may be a go-sql-driver/mysql DSN.
var wordInText = regexp.MustCompile("[^\\s\"'<>`]*@(?:[A-Za-z][A-Za-z0-9]*\\(|/)[^\\s\"'<>`]*")

// textSecrets finds the secrets in free text s[from:to] that holds no
// URL: go-sql-driver/mysql DSNs and secret key=value pairs.
func textSecrets(s string, from, to int) []span {
	spans := keywordSecrets(s, from, to, false)
	for _, m := range wordInText.FindAllStringIndex(s[from:to], -1) {
		spans = append(spans, mysqlSecrets(s, from+m[0], from+m[1])...)
	}
	return spans
}

// decodeLoose percent-decodes s, keeping what is not a valid escape.
func decodeLoose(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	if d, err := url.PathUnescape(s); err == nil {
		return d
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && ishex(s[i+1]) && ishex(s[i+2]) {
			d, _ := url.PathUnescape(s[i : i+3])
			b.WriteString(d)
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func ishex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// PostgresURL is a postgres:// URL as pgx (which reads it as libpq does)
// should get it: the scheme in lower case (pgx knows no other), and user
// info that holds an unescaped '@' re-escaped. libpq ends the user info at
// the first '@', net/url (ParseTarget, Login, Redact) at the last; given
// u:p@ss@host, pgx would dial the host "ss@host" and quote that piece of
// the password in its error. The last '@' is the reading in which the host
// is a host name. Anything else is returned as it is.
func PostgresURL(dsn string) string {
	i := strings.Index(dsn, "://")
	if i < 0 {
		return dsn
	}
	dsn = strings.ToLower(dsn[:i]) + dsn[i:]
	rest := dsn[i+3:]
	authority := rest
	if j := strings.IndexAny(rest, "/?#"); j >= 0 {
		authority = rest[:j]
	}
	if strings.Count(authority, "@") < 2 {
		return dsn
	}
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		return dsn
	}
	at := strings.LastIndexByte(authority, '@')
	return dsn[:i+3] + u.User.String() + rest[at:]
}
