package pgbench

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload"
	"github.com/sledge-bench/sledge/internal/workload/pgbench/pgscript"
)

var _ workload.RunReporter = Workload{}

// WriteRunReport writes a run's result as pgbench prints it, in its words
// and order (transaction type, scaling factor, …, tps, then one section
// per script when there are several, or with -r), from the result and the
// settings recorded with the job. What Sledge adds (client CPU, the load
// model, disruptions, errors by class, warnings) is the caller's to
// append.
func (Workload) WriteRunReport(w io.Writer, in workload.RunReport) error {
	r, kv := in.Result, in.Settings
	var b strings.Builder
	fmt.Fprintf(&b, "\npgbench result (job %d): %s\n", in.ID, r.Status)
	if in.Version != "" {
		fmt.Fprintf(&b, "database: %s at %s\n", in.Version, in.Target)
	} else {
		fmt.Fprintf(&b, "database: %s\n", in.Target)
	}
	scripts := scriptWeights(kv["scripts"])
	if len(scripts) == 1 {
		fmt.Fprintf(&b, "transaction type: %s\n", scriptDesc(scripts[0].name))
	} else {
		fmt.Fprintf(&b, "transaction type: multiple scripts\n")
	}
	fmt.Fprintf(&b, "scaling factor: %s\n", orDash(kv["scale"]))
	fmt.Fprintf(&b, "query mode: %s\n", orDash(kv["query_mode"]))
	fmt.Fprintf(&b, "number of clients: %d\n", r.VUs)
	fmt.Fprintf(&b, "number of threads: not used (each client is a goroutine)\n")
	tries := 1
	if n, err := strconv.Atoi(kv["max_retries"]); err == nil {
		tries = n + 1
	}
	fmt.Fprintf(&b, "maximum number of tries: %d\n", tries)
	if r.Iterations > 0 {
		fmt.Fprintf(&b, "number of transactions per client: %d\n", r.Iterations)
	} else {
		fmt.Fprintf(&b, "duration: %d s\n", int64(r.Duration/time.Second))
	}
	var (
		processed, failed, retried, retries int64
		byClass                             = map[string]int64{}
	)
	for _, t := range r.Tx {
		processed += t.Count + t.RolledBack
		failed += t.ErrorCount()
		retried += t.Retried
		retries += t.Retries
		for c, n := range t.Errors {
			byClass[c] += n
		}
	}
	all := processed + failed
	if r.Iterations > 0 {
		fmt.Fprintf(&b, "number of transactions actually processed: %d/%d\n", processed, int64(r.Iterations)*int64(r.VUs))
	} else {
		fmt.Fprintf(&b, "number of transactions actually processed: %d\n", processed)
	}
	fmt.Fprintf(&b, "number of failed transactions: %d (%s)\n", failed, pct(failed, all))
	for _, c := range metrics.SortedErrorClasses(byClass) {
		fmt.Fprintf(&b, "number of %s failures: %d (%s)\n", c, byClass[c], pct(byClass[c], all))
	}
	if tries != 1 {
		fmt.Fprintf(&b, "number of transactions retried: %d (%s)\n", retried, pct(retried, all))
		fmt.Fprintf(&b, "total number of retries: %d\n", retries)
	}
	if l := r.Load; l != nil && l.Model == metrics.LoadRate && l.SkipLate > 0 {
		fmt.Fprintf(&b, "number of transactions skipped: %d (%s)\n", l.Skipped, pct(l.Skipped, l.Scheduled))
		if above, err := metrics.CountAbove(l.SkipLate, r.Tx...); err == nil {
			fmt.Fprintf(&b, "number of transactions above the %s ms latency limit: %d/%d (%s)\n",
				strconv.FormatFloat(float64(l.SkipLate)/float64(time.Millisecond), 'f', 1, 64), above, processed+l.Skipped, pct(above, processed+l.Skipped))
		}
	}
	if mean, sd, ok, err := metrics.LatencySpread(r.Tx...); err == nil && ok {
		fmt.Fprintf(&b, "latency average = %s ms\n", ms(mean))
		fmt.Fprintf(&b, "latency stddev = %s ms\n", ms(sd))
	} else {
		fmt.Fprintf(&b, "latency average = not available (no transaction completed)\n")
	}
	if l := r.Load; l != nil && l.Model == metrics.LoadRate {
		fmt.Fprintf(&b, "rate limit schedule lag: p50 %s ms, p99 %s ms (max %s ms)\n", ms(l.LagP50), ms(l.LagP99), ms(l.LagMax))
	}
	secs := r.Measured.Seconds()
	if c := r.Connects; c.Count > 0 {
		// As pgbench's: the mean time a client took to connect, and the
		// rate over the run's time without and with it. Sessions that
		// opened in the ramp-up are outside the window; without a
		// ramp-up (every sledge pgbench run) the window holds them, as
		// pgbench's run time holds its threads' connecting.
		mean := c.Mean().Seconds()
		without, with := secs, secs+mean
		if r.ConnectsInWindow() {
			without, with = secs-mean, secs
		}
		fmt.Fprintf(&b, "initial connection time = %s ms\n", ms(c.Mean()))
		fmt.Fprintf(&b, "tps = %s (without initial connection time)\n", tps(processed, without))
		fmt.Fprintf(&b, "tps = %s (including initial connection time)\n", tps(processed, with))
	} else {
		fmt.Fprintf(&b, "initial connection time = not measured (a job stored before Sledge measured it)\n")
		fmt.Fprintf(&b, "tps = %s (without initial connection time)\n", tps(processed, secs))
	}
	perStatement := kv["per_statement"] == "true"
	if perStatement && len(r.Tx) == 1 && len(scripts) <= 1 {
		commandLines(&b, "", r.Commands, r.Tx[0].Name)
	}
	if len(r.Tx) > 1 || len(scripts) > 1 {
		var total int64
		for _, s := range scripts {
			total += int64(s.weight)
		}
		for i, t := range r.Tx {
			fmt.Fprintf(&b, "SQL script %d: %s\n", i+1, scriptDesc(t.Name))
			if i < len(scripts) && total > 0 {
				fmt.Fprintf(&b, " - weight: %d (targets %.1f%% of total)\n", scripts[i].weight, 100*float64(scripts[i].weight)/float64(total))
			}
			n := t.Count + t.RolledBack
			fmt.Fprintf(&b, " - %d transactions (%s of total, tps = %s)\n", n, pct1(n, processed), tps(n, secs))
			fmt.Fprintf(&b, " - number of failed transactions: %d (%s)\n", t.ErrorCount(), pct(t.ErrorCount(), n+t.ErrorCount()))
			if tries != 1 {
				fmt.Fprintf(&b, " - number of transactions retried: %d (%s)\n", t.Retried, pct(t.Retried, n+t.ErrorCount()))
				fmt.Fprintf(&b, " - total number of retries: %d\n", t.Retries)
			}
			if mean, sd, ok, err := metrics.LatencySpread(t); err == nil && ok {
				fmt.Fprintf(&b, " - latency average = %s ms\n", ms(mean))
				fmt.Fprintf(&b, " - latency stddev = %s ms\n", ms(sd))
			}
			if perStatement {
				commandLines(&b, " - ", r.Commands, t.Name)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// commandLines writes the average latency and the failures of each
// command of script tx, as pgbench's -r: the average is over the
// executions that ended, over the whole run.
func commandLines(b *strings.Builder, prefix string, cmds []metrics.CommandTiming, tx string) {
	fmt.Fprintf(b, "%sstatement latencies in milliseconds and failures:\n", prefix)
	for _, c := range cmds {
		if c.Tx != tx {
			continue
		}
		text, _, _ := strings.Cut(c.Command, "\n")
		fmt.Fprintf(b, "   %11s  %10d  %s\n", ms(c.Mean()), c.Failures, text)
	}
}

type weighted struct {
	name   string
	weight int
}

// scriptWeights reads the job's "scripts" setting ("tpcb-like@3,
// lookup.sql@1").
func scriptWeights(s string) []weighted {
	var out []weighted
	for _, p := range strings.Split(s, ", ") {
		if p == "" {
			continue
		}
		name, w := p, 1
		if at := strings.LastIndexByte(p, '@'); at >= 0 {
			if n, err := strconv.Atoi(p[at+1:]); err == nil {
				name, w = p[:at], n
			}
		}
		out = append(out, weighted{name, w})
	}
	return out
}

// scriptDesc is a script as pgbench names it: "<builtin: TPC-B (sort
// of)>", or the file's name.
func scriptDesc(name string) string {
	if d, ok := pgscript.BuiltinDesc(name); ok {
		return d
	}
	return name
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// ms is a latency in milliseconds with pgbench's three decimals.
func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 3, 64)
}

// pct is n of all as pgbench prints a share of failures: "0.000%".
func pct(n, all int64) string {
	if all == 0 {
		return "0.000%"
	}
	return fmt.Sprintf("%.3f%%", 100*float64(n)/float64(all))
}

// pct1 is a share with one decimal ("49.9%").
func pct1(n, all int64) string {
	if all == 0 {
		return "0.0%"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(all))
}

// tps is n over secs with pgbench's six decimals.
func tps(n int64, secs float64) string {
	if secs <= 0 {
		return "-"
	}
	return strconv.FormatFloat(float64(n)/secs, 'f', 6, 64)
}
