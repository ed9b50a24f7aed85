package workload_test

import (
	"testing"

	"github.com/sledge-bench/sledge/internal/workload"
	_ "github.com/sledge-bench/sledge/internal/workload/chbench"
	_ "github.com/sledge-bench/sledge/internal/workload/pgbench"
	_ "github.com/sledge-bench/sledge/internal/workload/tprocc"
	_ "github.com/sledge-bench/sledge/internal/workload/tproch"
)

// TestChoices: every registered workload once, by name then title, sorted
// by name, joined by "or" (what the CLI's --workload help shows).
func TestChoices(t *testing.T) {
	t.Parallel()
	const want = "chbench (CH-benCHmark) or pgbench (pgbench) or tprocc (TPROC-C) or tproch (TPROC-H)"
	if got := workload.Choices(); got != want {
		t.Errorf("Choices() = %q, want %q", got, want)
	}
}
