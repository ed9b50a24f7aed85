package shell

import "strings"

// Quote is s as a POSIX shell reads it back as one word, for a command
// line Sledge suggests: as it is when it holds only letters, digits and
// "/.-_", else in single quotes (a single quote in s as '\”; an empty s
// as ”).
func Quote(s string) string {
	if s == "" {
		return "''"
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '/' || r == '.' || r == '-' || r == '_') {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}
