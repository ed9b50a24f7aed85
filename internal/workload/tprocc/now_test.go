package tprocc

import (
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/db"
)

// A fixed load timestamp must be one the databases read as such: a bad one
// is refused before anything is touched (no driver is needed to see it).
func TestBuildNowValidated(t *testing.T) {
	t.Parallel()
	for _, now := range []string{"yesterday", "2024-06-01", "2024-06-01T12:00:00", "2024-13-01 00:00:00"} {
		_, err := Build(t.Context(), nil, db.Target{}, BuildOptions{Warehouses: 1, Workers: 1, Now: now})
		if err == nil || !strings.Contains(err.Error(), "YYYY-MM-DD HH:MM:SS") {
			t.Errorf("Now %q: %v, want a refusal naming the form", now, err)
		}
	}
}
