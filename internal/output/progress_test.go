package output

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/workload"
)

// TestProgressLines: without a terminal, a phase's first report names its
// total, later ones (every 5 s or more) its rows, rate and ETA, counted
// from the phase's start, not the build's; on a terminal the bar does the
// same.
func TestProgressLines(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	type step struct {
		at time.Duration
		u  workload.Progress
	}
	steps := []step{
		{0, workload.Progress{Phase: "schema"}},
		{10 * time.Second, workload.Progress{Phase: "load", RowsTotal: 1000}},
		{12 * time.Second, workload.Progress{Phase: "load", RowsDone: 100, RowsTotal: 1000}}, // within 5 s: no line
		{15 * time.Second, workload.Progress{Phase: "load", RowsDone: 500, RowsTotal: 1000}},
		{16 * time.Second, workload.Progress{Phase: "index", RowsTotal: 1000}},
		{22 * time.Second, workload.Progress{Phase: "index", RowsDone: 600, RowsTotal: 1000}},
	}
	for _, tc := range []struct {
		name string
		tty  bool
		want []string
	}{
		{"lines", false, []string{
			"schema",
			"load: 1,000 rows",
			"load: 500 of 1,000 rows (50%), 100 rows/s, ETA 5s",
			"index: 1,000 rows",
			"index: 600 of 1,000 rows (60%), 100 rows/s, ETA 4s",
		}},
		{"bar", true, []string{
			"schema   [..............................]   0%  0 rows  0 rows/s  ETA ?",
			"load     [..............................]   0%  0 rows  0 rows/s  ETA ?",
			"load     [###...........................]  10%  100 rows  50 rows/s  ETA 18s",
			"load     [###############...............]  50%  500 rows  100 rows/s  ETA 5s",
			"index    [..............................]   0%  0 rows  0 rows/s  ETA ?",
			"index    [##################............]  60%  600 rows  100 rows/s  ETA 4s",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var (
				tty   bytes.Buffer
				lines []string
				now   time.Time
			)
			logf := func(f string, a ...any) { lines = append(lines, fmt.Sprintf(f, a...)) }
			var p *Progress
			if tc.tty {
				p = newProgress(&tty, logf, func() time.Time { return now })
			} else {
				p = newProgress(nil, logf, func() time.Time { return now })
			}
			for _, s := range steps {
				now = t0.Add(s.at)
				p.Update(s.u)
			}
			p.Done()
			if tc.tty {
				lines = nil
				for _, l := range strings.Split(strings.TrimPrefix(strings.TrimSuffix(tty.String(), "\n"), "\r"), "\r") {
					lines = append(lines, strings.TrimRight(l, " "))
				}
			}
			if !slices.Equal(lines, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
