package shell

import (
	"os/exec"
	"testing"
)

func TestQuote(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"/var/lib/sledge-1/sandbox_pg.d", "/var/lib/sledge-1/sandbox_pg.d"},
		{"/tmp/my dir", "'/tmp/my dir'"},
		{"/tmp/it's", `'/tmp/it'\''s'`},
		{"/tmp/$HOME", "'/tmp/$HOME'"},
		{"", "''"},
	} {
		got := Quote(tc.in)
		if got != tc.want {
			t.Errorf("Quote(%q) = %s, want %s", tc.in, got, tc.want)
		}
		// The shell reads it back as the one word it was.
		out, err := exec.Command("sh", "-c", "printf %s "+got).Output()
		if err != nil {
			t.Skipf("no sh: %v", err)
		}
		if string(out) != tc.in {
			t.Errorf("sh read %s back as %q, want %q", got, out, tc.in)
		}
	}
}
