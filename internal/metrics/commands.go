package metrics

import (
	"slices"
	"time"
)

// CommandTiming is one command of a script of a script-driven run (the
// pgbench workload's), over the run: how often it ran, its latencies'
// sum, and how often it failed — pgbench's per-statement report (-r).
type CommandTiming struct {
	Tx       string // the script: its transaction type
	Index    int    // the command's place in the script, 0-based
	Command  string // as the script writes it
	Count    int64  // executions that ended (failed ones not counted)
	Total    time.Duration
	Failures int64
}

// Mean is the command's average latency; 0 when it never ran.
func (c CommandTiming) Mean() time.Duration {
	if c.Count == 0 {
		return 0
	}
	return c.Total / time.Duration(c.Count)
}

// mergeCommands adds up the parts' command timings by script and
// command, in the order they first appear; nil when no part has any.
func mergeCommands(parts []*RunResult) []CommandTiming {
	var out []CommandTiming
	for _, p := range parts {
		for _, c := range p.Commands {
			i := slices.IndexFunc(out, func(o CommandTiming) bool { return o.Tx == c.Tx && o.Index == c.Index })
			if i < 0 {
				out = append(out, c)
				continue
			}
			out[i].Count += c.Count
			out[i].Total += c.Total
			out[i].Failures += c.Failures
		}
	}
	return out
}
