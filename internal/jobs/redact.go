package jobs

import "github.com/sledge-bench/sledge/internal/db"

// Callers pass redacted targets and settings; these functions are the second
// line of defence, so that a password never reaches the repository file even
// when a caller forgets (or a driver error quotes a DSN). Reads redact again:
// a repository written by an older Sledge may hold what this one masks.

// redactText removes credentials from free text (db.RedactText).
func redactText(s string) string { return db.RedactText(s) }

// redactConfig returns kv with secrets removed (a copy: the caller's map is
// not changed): the value of a setting whose name says it is a secret, and
// the credentials in any other value.
func redactConfig(kv map[string]string) map[string]string {
	out := make(map[string]string, len(kv))
	for k, v := range kv {
		if db.SecretName(k) && v != "" {
			v = db.Mask
		}
		out[k] = db.RedactText(v)
	}
	return out
}
