package jobs

import (
	"regexp"
	"strings"

	"github.com/sledge-bench/sledge/internal/db"
)

// Callers pass redacted targets and settings; these functions are the second
// line of defence, so that a password never reaches the repository file even
// when a caller forgets (or a driver error quotes a DSN).

const redacted = "xxxxx"

var (
	// urlRE finds URL-shaped words, e.g. postgres://u:secret@host/db.
	urlRE = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>]+`)
	// passwordRE finds key=value passwords, as in libpq's
	// "host=h password=secret" connection strings.
	passwordRE = regexp.MustCompile(`(?i)\b(password|passwd|pwd)(\s*=\s*)('[^']*'|"[^"]*"|[^\s&;]+)`)
)

// redactText removes passwords from free text: the user info and password
// parameter of any URL in it, and any password=… pair.
func redactText(s string) string {
	if strings.Contains(s, "://") {
		s = urlRE.ReplaceAllStringFunc(s, db.Redact)
	}
	if passwordRE.MatchString(s) {
		s = passwordRE.ReplaceAllString(s, "${1}${2}"+redacted)
	}
	return s
}

// sensitiveKey reports whether a setting's name says its value is a secret.
func sensitiveKey(k string) bool {
	k = strings.ToLower(k)
	if strings.HasSuffix(k, "pass") { // HammerDB's pg_pass, maria_pass, pg_superuserpass …
		return true
	}
	for _, w := range []string{"password", "passwd", "secret", "token"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// redactConfig returns kv with secrets removed (a copy: the caller's map is
// not changed).
func redactConfig(kv map[string]string) map[string]string {
	out := make(map[string]string, len(kv))
	for k, v := range kv {
		if sensitiveKey(k) && v != "" {
			v = redacted
		}
		out[k] = redactText(v)
	}
	return out
}
