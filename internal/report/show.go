package report

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/threshold"
	"github.com/sledge-bench/sledge/internal/workload"
	"github.com/sledge-bench/sledge/internal/workload/tproch"
)

// Store is what Show reads of a job; *jobs.Repo is one. Each result getter
// returns nil (and no error) when the job has no such result.
type Store interface {
	RunResult(ctx context.Context, id int64) (*metrics.RunResult, error)
	AnalyticResult(ctx context.Context, id int64) (*metrics.AnalyticResult, error)
	Intervals(ctx context.Context, id int64) ([]metrics.Interval, error)
	Config(ctx context.Context, id int64) (map[string]string, error)
	System(ctx context.Context, id int64) (map[string]string, error)
	Output(ctx context.Context, id int64) ([]jobs.OutputLine, error)
	Build(ctx context.Context, id int64) (*jobs.BuildResult, error)
	Check(ctx context.Context, id int64) ([]jobs.CheckItem, error)
	Observations(ctx context.Context, id int64) ([]jobs.Observation, error)
	Agents(ctx context.Context, id int64) ([]jobs.Agent, error)
	JobsWithSetting(ctx context.Context, key, value string) ([]int64, error)
	Thresholds(ctx context.Context, id int64) ([]threshold.Verdict, error)
}

var _ Store = (*jobs.Repo)(nil)

// Sections are the sections of `jobs show ID SECTION`, with their help.
var Sections = []struct{ Name, Help string }{
	{"result", "the run's result: NOPM, TPM, database cross-check, per-transaction timings, audit"},
	{"timing", "per-transaction counts, errors and latency percentiles (JSON adds the HDR histograms)"},
	{"tcount", "the interval series: TPM, NOPM, errors and per-transaction counts and p95 per interval"},
	{"config", "the job's settings"},
	{"status", "the job's record: status, times, target, host, error"},
	{"output", "the console output"},
	{"system", "the client machine: host, CPUs, OS, Go and Sledge versions"},
	{"build", "the build's result: rows loaded, speed, rows per table"},
	{"check", "the consistency conditions checked and their outcome"},
	{"metrics", "what the server and hosts did per interval: active sessions by wait class, key counters"},
	{"settings", "the server settings in force when the job started"},
	{"agents", "a run driven by several agents (sledge processes): each one's segment, host, state, NOPM share and client CPU"},
}

// SectionNames are the names of Sections, in their order.
func SectionNames() []string {
	names := make([]string, 0, len(Sections))
	for _, s := range Sections {
		names = append(names, s.Name)
	}
	return names
}

// SectionsHelp lists Sections for a command's help, a line each: two
// spaces, the name padded to eight, a space and the help.
func SectionsHelp() string {
	var b strings.Builder
	for _, s := range Sections {
		fmt.Fprintf(&b, "  %-8s %s\n", s.Name, s.Help)
	}
	return b.String()
}

// Show writes one section of job j (one of Sections; "" for the summary: the
// job's record and whichever results it has), as text or as JSON. A section
// the job lacks is an error (see NoSection).
func Show(ctx context.Context, w io.Writer, s Store, j jobs.Job, section string, asJSON bool) error {
	switch section {
	case "":
		return summary(ctx, w, s, j, asJSON)
	case "status":
		if asJSON {
			out := ToJob(j)
			vs, err := s.Thresholds(ctx, j.ID)
			if err != nil {
				return err
			}
			out.Thresholds = ToThresholds(vs)
			return WriteJSON(w, out)
		}
		return Job(w, j)
	case "result", "timing":
		if section == "result" {
			// The stored data, not the job's workload, says which kind of
			// result it is: an analytic run stores an analytic result.
			a, err := s.AnalyticResult(ctx, j.ID)
			if err != nil {
				return err
			}
			if a != nil {
				if asJSON {
					return WriteJSON(w, ToAnalytic(j.ID, a))
				}
				if err := Analytic(w, j.ID, j.Target, a); err != nil {
					return err
				}
				return storedThresholds(ctx, w, s, j.ID)
			}
		}
		res, err := s.RunResult(ctx, j.ID)
		if err != nil {
			return err
		}
		if res == nil {
			if section == "result" && j.Workload == tproch.Name {
				return NoSection(j, "TPROC-H result")
			}
			return NoSection(j, "run result")
		}
		if section == "timing" {
			if asJSON {
				m, _ := Transactions(res.Tx, true)
				return WriteJSON(w, m)
			}
			return Timing(w, res)
		}
		obs, ivs, err := observations(ctx, s, j)
		if err != nil {
			return err
		}
		if asJSON {
			out := ToResult(j.ID, res)
			out.WithObserved(obs, ivs)
			return WriteJSON(w, out)
		}
		if err := storedRunResult(ctx, w, s, j, res); err != nil {
			return err
		}
		if err := ObservedBlock(w, Summarize(obs, ivs)); err != nil {
			return err
		}
		return storedThresholds(ctx, w, s, j.ID)
	case "metrics", "settings":
		obs, err := s.Observations(ctx, j.ID)
		if err != nil {
			return err
		}
		if asJSON {
			if section == "settings" {
				return WriteJSON(w, ToSettings(obs))
			}
			return WriteJSON(w, ToObservations(obs)) // [] for none, as tcount
		}
		if len(obs) == 0 {
			return NoSection(j, "server metrics ("+NotObserved+")")
		}
		if section == "settings" {
			return SettingsText(w, obs)
		}
		return ObservationsText(w, obs)
	case "agents":
		agents, err := s.Agents(ctx, j.ID)
		if err != nil {
			return err
		}
		if asJSON {
			return WriteJSON(w, ToAgents(agents)) // [] for a run of one process
		}
		if len(agents) == 0 {
			return NoSection(j, "agents (it was run by one process)")
		}
		return Agents(w, agents)
	case "tcount":
		ivs, err := s.Intervals(ctx, j.ID)
		if err != nil {
			return err
		}
		if asJSON {
			return WriteJSON(w, ToIntervals(ivs)) // [] for none: an empty series is still a series
		}
		missing, err := missingIntervals(ctx, s, j.ID)
		if err != nil {
			return err
		}
		if len(ivs) == 0 && len(missing) == 0 {
			return NoSection(j, "interval series")
		}
		if err := Intervals(w, ivs); err != nil {
			return err
		}
		return MissingIntervals(w, missing)
	case "config", "system":
		get := s.Config
		if section == "system" {
			get = s.System
		}
		kv, err := get(ctx, j.ID)
		if err != nil {
			return err
		}
		if asJSON {
			return WriteJSON(w, kv)
		}
		return KV(w, kv)
	case "output":
		lines, err := s.Output(ctx, j.ID)
		if err != nil {
			return err
		}
		if asJSON {
			return WriteJSON(w, ToOutput(lines))
		}
		for _, l := range lines {
			if _, err := fmt.Fprintln(w, l.Line); err != nil {
				return err
			}
		}
		return nil
	case "build":
		b, err := s.Build(ctx, j.ID)
		if err != nil {
			return err
		}
		if b == nil {
			return NoSection(j, "build result")
		}
		if asJSON {
			return WriteJSON(w, ToBuild(b))
		}
		return Build(w, b)
	case "check":
		items, err := s.Check(ctx, j.ID)
		if err != nil {
			return err
		}
		if items == nil {
			return NoSection(j, "check result")
		}
		if asJSON {
			return WriteJSON(w, ToCheck(items))
		}
		return CheckItems(w, items)
	}
	return fmt.Errorf("unknown section %q", section)
}

// NoSection explains why job j has no what ("run result"), as an error so
// that scripts asking for it fail instead of reading an empty answer.
func NoSection(j jobs.Job, what string) error {
	why := ""
	switch {
	case j.Status == metrics.StatusRunning:
		why = ": it is still running"
	case j.Status != metrics.StatusCompleted && j.Status != metrics.StatusInterrupted && j.Status != metrics.StatusDegraded:
		why = fmt.Sprintf(": it is %s", j.Status)
	}
	return noSectionError(fmt.Sprintf("job %d (%s) has no %s%s", j.ID, j.Kind, what, why))
}

// ErrNoSection is matched (errors.Is) by NoSection's errors: the job is
// there, the part of it asked for is not.
var ErrNoSection = errors.New("job has no such section")

type noSectionError string

func (e noSectionError) Error() string        { return string(e) }
func (e noSectionError) Is(target error) bool { return target == ErrNoSection }

// summary is Show's default section: the job's record and whichever of run
// result, analytic result, build and check it has.
func summary(ctx context.Context, w io.Writer, s Store, j jobs.Job, asJSON bool) error {
	res, err := s.RunResult(ctx, j.ID)
	if err != nil {
		return err
	}
	b, err := s.Build(ctx, j.ID)
	if err != nil {
		return err
	}
	items, err := s.Check(ctx, j.ID)
	if err != nil {
		return err
	}
	ares, err := s.AnalyticResult(ctx, j.ID)
	if err != nil {
		return err
	}
	vs, err := s.Thresholds(ctx, j.ID)
	if err != nil {
		return err
	}
	if asJSON {
		sum := SummaryJSON{Job: ToJob(j)}
		sum.Job.Thresholds = ToThresholds(vs)
		if ares != nil {
			a := ToAnalytic(j.ID, ares)
			sum.Analytic = &a
		}
		if res != nil {
			obs, ivs, err := observations(ctx, s, j)
			if err != nil {
				return err
			}
			r := ToResult(j.ID, res)
			r.WithObserved(obs, ivs)
			sum.Result = &r
		}
		if b != nil {
			bj := ToBuild(b)
			sum.Build = &bj
		}
		if items != nil {
			sum.Check = ToCheck(items)
		}
		return WriteJSON(w, sum)
	}
	if err := Job(w, j); err != nil {
		return err
	}
	if res != nil {
		fmt.Fprintln(w)
		if err := storedRunResult(ctx, w, s, j, res); err != nil {
			return err
		}
		obs, ivs, err := observations(ctx, s, j)
		if err != nil {
			return err
		}
		if err := ObservedBlock(w, Summarize(obs, ivs)); err != nil {
			return err
		}
		missing, err := missingIntervals(ctx, s, j.ID)
		if err != nil {
			return err
		}
		if err := MissingIntervals(w, missing); err != nil {
			return err
		}
	}
	// Analytic starts with its own empty line.
	if ares != nil {
		if err := Analytic(w, j.ID, j.Target, ares); err != nil {
			return err
		}
	}
	if err := Thresholds(w, vs); err != nil {
		return err
	}
	if b != nil {
		fmt.Fprintln(w)
		if err := Build(w, b); err != nil {
			return err
		}
	}
	if items != nil {
		fmt.Fprintln(w)
		if err := CheckItems(w, items); err != nil {
			return err
		}
	}
	return nil
}

// storedThresholds writes a run's stored verdicts (nothing for none).
func storedThresholds(ctx context.Context, w io.Writer, s Store, id int64) error {
	vs, err := s.Thresholds(ctx, id)
	if err != nil {
		return err
	}
	return Thresholds(w, vs)
}

// missingIntervals reads the intervals of a job's series that were never
// stored, when the store keeps them (the jobs repository does).
func missingIntervals(ctx context.Context, s Store, id int64) ([]jobs.MissingInterval, error) {
	ms, ok := s.(interface {
		MissingIntervals(ctx context.Context, id int64) ([]jobs.MissingInterval, error)
	})
	if !ok {
		return nil, nil
	}
	return ms.MissingIntervals(ctx, id)
}

// MissingIntervals writes the intervals of a series that were never stored,
// one line per run of intervals missing for one reason: a series never has
// a silent hole.
func MissingIntervals(w io.Writer, missing []jobs.MissingInterval) error {
	for i := 0; i < len(missing); {
		j := i
		for j+1 < len(missing) && missing[j+1].Seq == missing[j].Seq+1 && missing[j+1].Reason == missing[i].Reason {
			j++
		}
		which := fmt.Sprintf("interval %d is", missing[i].Seq)
		if j > i {
			which = fmt.Sprintf("intervals %d–%d are", missing[i].Seq, missing[j].Seq)
		}
		if _, err := fmt.Fprintf(w, "  %s missing from the series: %s\n", which, missing[i].Reason); err != nil {
			return err
		}
		i = j + 1
	}
	return nil
}

// observations reads what the job's observers saw and the run's interval
// series, which places their intervals in the measured window.
func observations(ctx context.Context, s Store, j jobs.Job) ([]jobs.Observation, []metrics.Interval, error) {
	obs, err := s.Observations(ctx, j.ID)
	if err != nil || len(obs) == 0 {
		return nil, nil, err
	}
	ivs, err := s.Intervals(ctx, j.ID)
	if err != nil {
		return nil, nil, err
	}
	return obs, ivs, nil
}

// storedRunResult writes a stored run's result: in its workload's own
// vocabulary when it has one (OwnRunResult), else as StoredRunResult.
func storedRunResult(ctx context.Context, w io.Writer, s Store, j jobs.Job, res *metrics.RunResult) error {
	if wl, err := workload.Lookup(j.Workload); err == nil {
		if _, own := wl.(workload.RunReporter); own {
			cfg, err := s.Config(ctx, j.ID)
			if err != nil {
				return err
			}
			var b strings.Builder
			if ok, err := OwnRunResult(&b, wl, workload.RunReport{ID: j.ID, Target: j.Target, Version: j.DBVersion,
				Settings: cfg, Result: res, Embedded: j.DBKind == "sqlite"}); ok {
				if err != nil {
					return err
				}
				// Stored, the report begins at once (no blank line to
				// stand apart from progress lines).
				_, err = io.WriteString(w, strings.TrimPrefix(b.String(), "\n"))
				return err
			}
		}
	}
	return StoredRunResult(w, workload.Title(j.Workload), j, res)
}
