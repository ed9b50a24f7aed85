package report

import (
	"encoding/json"
	"io"
	"maps"
	"math"
	"time"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// These types are the stable JSON output of `sledge jobs` and the HTTP API:
// keys are only ever added, never renamed or removed. Durations are seconds
// (*_s) or milliseconds (*_ms); rates are per minute; times are RFC 3339 in
// UTC.

// WriteJSON writes v as indented JSON followed by a newline.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // URLs with & and targets like "≈ 1.0" stay readable
	return enc.Encode(v)
}

// Float is a number that encodes NaN and ±Inf (which JSON cannot hold) as
// null.
type Float float64

// MarshalJSON implements json.Marshaler.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(v)
}

// jsonTime is a time as the JSON shapes carry it: RFC 3339 in UTC.
func jsonTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// JobJSON is one job: an element of `sledge jobs --format json`, the output
// of `jobs show ID status --format json`, and the "job" of the summary.
type JobJSON struct {
	ID        int64   `json:"id"`
	Kind      string  `json:"kind"`
	Workload  string  `json:"workload"`
	Status    string  `json:"status"`
	DBKind    string  `json:"db_kind"`
	Target    string  `json:"target"` // never holds a password
	DBVersion string  `json:"db_version"`
	Host      string  `json:"host"`
	PID       int     `json:"pid"`
	CreatedAt string  `json:"created_at"`
	StartedAt string  `json:"started_at"`
	EndedAt   *string `json:"ended_at"`   // null while running
	DurationS *Float  `json:"duration_s"` // null while running
	Error     string  `json:"error"`
	// SchemaError is, for a job that failed on its workload's schema,
	// what it found (jobs.SchemaFailure); absent for every other job.
	SchemaError *SchemaErrorJSON `json:"schema_error,omitempty"`
	NOPM        *Float           `json:"nopm"` // null unless a run with a result
	TPM         *Float           `json:"tpm"`
	// GeomeanS is a TPROC-H run's headline: the geometric mean of the
	// power test's query times, seconds; null unless one was computed.
	GeomeanS *Float `json:"geomean_s"`
	// The series (sledge run --repeat) and profile (sledge profile) the job
	// belongs to: the first job's id, its trial "k/n" and its step's VUs;
	// absent when it belongs to none.
	Series    string `json:"series,omitempty"`
	Trial     string `json:"trial,omitempty"`
	Profile   string `json:"profile,omitempty"`
	ProfileVU string `json:"profile_vu,omitempty"`
	// ImportedFrom is where an imported job (sledge jobs import) was
	// recorded; absent for a job recorded in this repository.
	ImportedFrom *OriginJSON `json:"imported_from,omitempty"`
	// Thresholds are a run's thresholds with their verdicts, in the order
	// given; absent when it has none (and in lists of jobs).
	Thresholds []ThresholdJSON `json:"thresholds,omitempty"`
}

// OriginJSON is where an imported job was recorded and exported.
type OriginJSON struct {
	ID            int64  `json:"id"` // its id there
	Host          string `json:"host"`
	Repository    string `json:"repository"`
	SledgeVersion string `json:"sledge_version"`
	ExportedAt    string `json:"exported_at"`
	ImportedAt    string `json:"imported_at"`
}

// SchemaErrorJSON is what a job that failed on its workload's schema
// found: kind is "schema_exists" (a build found the schema and was not
// told to replace it), "no_schema" (the job needs one and found none) or
// "schema_unusable" (an unfinished build's, or another workload's), of
// workload; holds, for no_schema, names the workload whose schema the
// database holds instead, when the job looked (a check does).
type SchemaErrorJSON struct {
	Kind     string `json:"kind"`
	Workload string `json:"workload"`
	Holds    string `json:"holds,omitempty"`
}

// ToJob is the JSON shape of a job.
func ToJob(j jobs.Job) JobJSON {
	out := JobJSON{
		ID: j.ID, Kind: j.Kind, Workload: j.Workload, Status: j.Status, DBKind: j.DBKind, Target: j.Target,
		DBVersion: j.DBVersion, Host: j.Host, PID: j.PID, Error: j.Error,
		CreatedAt: jsonTime(j.CreatedAt), StartedAt: jsonTime(j.StartedAt),
		Series: j.PartOf.Series, Trial: j.PartOf.Trial, Profile: j.PartOf.Profile, ProfileVU: j.PartOf.ProfileVU,
	}
	if sf := j.SchemaFailure; sf.Kind != "" {
		out.SchemaError = &SchemaErrorJSON{Kind: sf.Kind, Workload: sf.Workload, Holds: sf.Holds}
	}
	if !j.EndedAt.IsZero() {
		e := jsonTime(j.EndedAt)
		d := Float(j.Duration().Seconds())
		out.EndedAt, out.DurationS = &e, &d
	}
	if j.Headline != nil {
		n, t := Float(j.Headline.NOPM), Float(j.Headline.TPM)
		out.NOPM, out.TPM = &n, &t
	}
	if j.GeomeanS != nil && !math.IsNaN(*j.GeomeanS) {
		g := Float(*j.GeomeanS)
		out.GeomeanS = &g
	}
	if o := j.Origin; o != nil {
		out.ImportedFrom = &OriginJSON{ID: o.ID, Host: o.Host, Repository: o.Repository, SledgeVersion: o.SledgeVersion,
			ExportedAt: jsonTime(o.ExportedAt), ImportedAt: jsonTime(o.ImportedAt)}
	}
	return out
}

// ResultJSON is `jobs show ID result --format json` for an OLTP run.
type ResultJSON struct {
	JobID       int64   `json:"job_id"`
	Status      string  `json:"status"`
	VU          int     `json:"vu"`
	Warehouses  int     `json:"warehouses"`
	Mode        string  `json:"mode"`
	Isolation   string  `json:"isolation"`
	RampupS     float64 `json:"rampup_s"`
	DurationS   float64 `json:"duration_s"`            // the measured window
	ConfiguredS float64 `json:"configured_duration_s"` // --duration; 0 in an iteration run
	// Iterations is the transactions each VU ran in an iteration run (its
	// duration_s is the elapsed time from the start to the last VU's end);
	// 0 in a timed run.
	Iterations int `json:"iterations"`
	// Client-counted over the measured window.
	NOPM       Float `json:"nopm"`
	TPM        Float `json:"tpm"`
	NewOrders  int64 `json:"new_orders"`
	Commits    int64 `json:"commits"`
	Errors     int64 `json:"errors"`
	RolledBack int64 `json:"rolled_back"`
	// The database's own count of New-Orders over the window, and whether it
	// agrees with the client's within the allowance; all null when the check
	// could not be made, DBCheckUnavailable saying why (null when made).
	DBNewOrders        *int64  `json:"db_new_orders"`
	NOPMDBCheck        *Float  `json:"nopm_db_check"`
	DBCheckAgree       *bool   `json:"db_check_agree"`
	DBCheckAllowance   *int64  `json:"db_check_allowance"`
	DBCheckUnavailable *string `json:"db_check_unavailable"`
	// Server-wide commits+rollbacks per minute; null when not available,
	// ServerTPMUnavailable saying why.
	ServerTPM            *Float  `json:"server_tpm"`
	ServerTPMMargin      *Float  `json:"server_tpm_margin"` // ±: the counter's lag and the transactions in flight at the window's edges
	ServerTPMUnavailable *string `json:"server_tpm_unavailable"`
	// Disruption is the run's account of lost sessions, outages and failed
	// probes; null when there was none.
	Disruption *DisruptionJSON `json:"disruption"`
	// Load is how a terminal or rate run offered its load and kept its
	// schedule; absent for closed-loop VUs.
	Load *LoadJSON `json:"load,omitempty"`
	// Stages is one row per stage of a staged run; absent without stages.
	Stages []StageJSON `json:"stages,omitempty"`
	// Mixed is a mixed run's analytic half (workload chbench with analytic
	// streams); absent for any other run.
	Mixed            *MixedJSON `json:"mixed,omitempty"`
	ClientCPUS       float64    `json:"client_cpu_s"`
	ClientCPUPerTxUS Float      `json:"client_cpu_per_tx_us"`
	// Connects is how long the sessions took to open as the load started
	// (pgbench's initial connection time); null in results stored before
	// it was measured.
	Connects *ConnectsJSON `json:"connects"`
	Warnings []string      `json:"warnings"`
	Audit    []AuditJSON   `json:"audit"`
	// Transactions is keyed by transaction name; TransactionOrder gives the
	// run's order of the names (JSON objects are unordered).
	Transactions     map[string]TxJSON `json:"transactions"`
	TransactionOrder []string          `json:"transaction_order"`
	// Observed is what the observers saw of the server and hosts over the
	// measured window; null when the job was not observed,
	// ObservedUnavailable saying why (null when observed).
	Observed            *ObservedJSON `json:"observed"`
	ObservedUnavailable *string       `json:"observed_unavailable"`
}

// ConnectsJSON is the openings of a run's sessions as its load started.
type ConnectsJSON struct {
	Count  int64   `json:"count"`
	MeanMS float64 `json:"mean_ms"`
	MaxMS  float64 `json:"max_ms"`
}

func toConnects(c metrics.Connects) *ConnectsJSON {
	if c.Count == 0 {
		return nil
	}
	return &ConnectsJSON{Count: c.Count, MeanMS: MS(c.Mean()), MaxMS: MS(c.Max)}
}

// AuditJSON is one audited property of a run.
type AuditJSON struct {
	Name   string `json:"name"`
	Value  Float  `json:"value"`
	Unit   string `json:"unit"`
	Target string `json:"target"`
	OK     bool   `json:"ok"` // false only when the verdict is OFF
	// Verdict is "ok", "OFF" or "n/a" (too few observations to judge);
	// Judged is false for "n/a".
	Verdict string `json:"verdict"`
	Judged  bool   `json:"judged"`
	// Low and High bound the accepted values (inclusive); null when the
	// item has no range.
	Low  *Float `json:"low"`
	High *Float `json:"high"`
	// N is the number of observations the value is measured over; 0 when it
	// is not a share.
	N    int64  `json:"n"`
	Note string `json:"note"` // why an item is OFF or n/a, or what moved it
}

func toAudit(a metrics.AuditItem) AuditJSON {
	out := AuditJSON{Name: a.Name, Value: Float(a.Value), Unit: a.Unit, Target: a.Target, OK: a.OK,
		Verdict: a.Status(), Judged: a.Status() != metrics.VerdictNA, N: a.N, Note: a.Note}
	if a.HasRange() {
		lo, hi := Float(a.Low), Float(a.High)
		out.Low, out.High = &lo, &hi
	}
	return out
}

// TxJSON is one transaction type over the measured window.
type TxJSON struct {
	Count              int64            `json:"count"` // committed
	RolledBack         int64            `json:"rolled_back"`
	Retries            int64            `json:"retries"`              // extra attempts
	RetriesByClass     map[string]int64 `json:"retries_by_class"`     // e.g. "deadlock": 4
	Retried            int64            `json:"retried"`              // transactions retried at least once
	FailedAfterRetries int64            `json:"failed_after_retries"` // of those, failed all the same
	MeanMS             float64          `json:"mean_ms"`
	P50MS              float64          `json:"p50_ms"`
	P95MS              float64          `json:"p95_ms"`
	P99MS              float64          `json:"p99_ms"`
	MaxMS              float64          `json:"max_ms"`
	Errors             int64            `json:"errors"`          // total
	ErrorsByClass      map[string]int64 `json:"errors_by_class"` // e.g. "serialization": 3
	// Histogram is the HDR histogram of latencies in µs (hdrhistogram-go V2
	// compressed, base64); only in `jobs show ID timing`.
	Histogram *string `json:"histogram,omitempty"`
}

func toTx(t metrics.TxSummary, withHistogram bool) TxJSON {
	out := TxJSON{
		Count: t.Count, RolledBack: t.RolledBack, Retries: t.Retries, RetriesByClass: map[string]int64{},
		Retried: t.Retried, FailedAfterRetries: t.FailedAfterRetries,
		MeanMS: MS(t.Mean), P50MS: MS(t.P50), P95MS: MS(t.P95), P99MS: MS(t.P99), MaxMS: MS(t.Max),
		Errors: t.ErrorCount(), ErrorsByClass: map[string]int64{},
	}
	// Copied into fresh maps so that an empty class set is {} rather than null.
	maps.Copy(out.ErrorsByClass, t.Errors)
	maps.Copy(out.RetriesByClass, t.RetriesByClass)
	if withHistogram {
		h := string(t.Histogram) // already base64 text
		out.Histogram = &h
	}
	return out
}

// Transactions is the per-transaction object of a result, keyed by name, and
// the run's order of the names; withHistogram adds each one's HDR histogram
// (the timing section).
func Transactions(txs []metrics.TxSummary, withHistogram bool) (map[string]TxJSON, []string) {
	m := make(map[string]TxJSON, len(txs))
	order := make([]string, 0, len(txs))
	for _, t := range txs {
		m[t.Name] = toTx(t, withHistogram)
		order = append(order, t.Name)
	}
	return m, order
}

// ToResult is the JSON shape of job id's run result.
func ToResult(id int64, r *metrics.RunResult) ResultJSON {
	out := ResultJSON{
		JobID: id, Status: r.Status, VU: r.VUs, Warehouses: r.Warehouses, Mode: r.Mode, Isolation: r.Isolation,
		RampupS: r.Rampup.Seconds(), DurationS: r.Measured.Seconds(), ConfiguredS: r.Duration.Seconds(), Iterations: r.Iterations,
		NOPM: Float(r.NOPM), TPM: Float(r.TPM), NewOrders: r.NewOrders, Commits: r.Commits,
		Errors: r.Errors, RolledBack: r.RolledBack,
		ClientCPUS: r.ClientCPU.Seconds(), ClientCPUPerTxUS: Float(r.ClientCPUPerTxUS), Connects: toConnects(r.Connects),
		Warnings: append([]string{}, r.Warnings...), Audit: []AuditJSON{},
		Disruption: ToDisruption(r.Disruption),
	}
	out.WithObserved(nil, nil) // until the caller adds the job's observations
	if r.HasDBCheck {
		n, rate, agree, allowed := r.DBNewOrders, Float(r.NOPMDBCheck), r.DBCheckAgree, r.DBCheckAllowance
		out.DBNewOrders, out.NOPMDBCheck, out.DBCheckAgree, out.DBCheckAllowance = &n, &rate, &agree, &allowed
	} else {
		why := reasonOr(r.DBCheckUnavailable)
		out.DBCheckUnavailable = &why
	}
	if r.HasServerTPM {
		s, m := Float(r.ServerTPM), Float(r.ServerTPMMargin)
		out.ServerTPM, out.ServerTPMMargin = &s, &m
	} else {
		why := reasonOr(r.ServerTPMUnavailable)
		out.ServerTPMUnavailable = &why
	}
	for _, a := range r.Audit {
		out.Audit = append(out.Audit, toAudit(a))
	}
	out.Transactions, out.TransactionOrder = Transactions(r.Tx, false)
	if l := r.Load; l != nil {
		out.Load = &LoadJSON{Model: l.Model, Terminals: l.Terminals, Connections: l.Connections,
			AskedRate: Float(l.AskedRate), AchievedRate: Float(l.AchievedRate), Scheduled: l.Scheduled, Dropped: l.Dropped,
			MaxQueue: l.MaxQueue, LagP50MS: MS(l.LagP50), LagP99MS: MS(l.LagP99), LagMaxMS: MS(l.LagMax), Late: l.Late,
			LateAfterMS: MS(metrics.LateLag), SkipLateMS: MS(l.SkipLate), Skipped: l.Skipped}
	}
	for _, st := range r.Stages {
		out.Stages = append(out.Stages, StageJSON{Stage: st.Stage, Target: st.Target, StartS: st.Start.Seconds(),
			EndS: st.End.Seconds(), Commits: st.Commits, NewOrders: st.NewOrders, Errors: st.Errors,
			TPM: Float(st.TPM), NOPM: Float(st.NOPM), P50MS: MS(st.P50), P95MS: MS(st.P95), P99MS: MS(st.P99),
			LagP99MS: MS(st.LagP99)})
	}
	out.Mixed = ToMixed(r.Mixed)
	return out
}

// LoadJSON is a terminal or rate run's load account (metrics.LoadResult).
type LoadJSON struct {
	Model        string `json:"model"` // terminals | rate
	Terminals    int    `json:"terminals,omitempty"`
	Connections  int    `json:"connections"`
	AskedRate    Float  `json:"asked_rate,omitempty"`    // transactions per second
	AchievedRate Float  `json:"achieved_rate,omitempty"` // ended in the window, any outcome, per second
	Scheduled    int64  `json:"scheduled,omitempty"`
	Dropped      int64  `json:"dropped"`
	MaxQueue     int    `json:"max_queue,omitempty"`
	// The schedule lag (scheduled start → sent) and the transactions sent
	// more than late_after_ms after their scheduled start.
	LagP50MS    float64 `json:"lag_p50_ms"`
	LagP99MS    float64 `json:"lag_p99_ms"`
	LagMaxMS    float64 `json:"lag_max_ms"`
	Late        int64   `json:"late"`
	LateAfterMS float64 `json:"late_after_ms"`
	// A rate run's latency limit (pgbench's -L) and the arrivals it
	// skipped as too late; absent without one.
	SkipLateMS float64 `json:"skip_late_ms,omitempty"`
	Skipped    int64   `json:"skipped,omitempty"`
}

// StageJSON is one stage of a staged run (metrics.StageResult); latencies
// are the headline transaction's.
type StageJSON struct {
	Stage     int     `json:"stage"`
	Target    float64 `json:"target"` // VUs, terminals or transactions per second
	StartS    float64 `json:"start_s"`
	EndS      float64 `json:"end_s"`
	Commits   int64   `json:"commits"`
	NewOrders int64   `json:"new_orders"`
	Errors    int64   `json:"errors"`
	TPM       Float   `json:"tpm"`
	NOPM      Float   `json:"nopm"`
	P50MS     float64 `json:"p50_ms"`
	P95MS     float64 `json:"p95_ms"`
	P99MS     float64 `json:"p99_ms"`
	LagP99MS  float64 `json:"lag_p99_ms,omitempty"`
}

// IntervalJSON is one element of `jobs show ID tcount --format json`.
type IntervalJSON struct {
	Seq          int                       `json:"seq"`
	Phase        string                    `json:"phase"`     // rampup | measure
	ElapsedS     float64                   `json:"elapsed_s"` // end of the interval, since the run started
	LengthS      float64                   `json:"length_s"`
	TPM          Float                     `json:"tpm"`
	NOPM         Float                     `json:"nopm"`
	Errors       int64                     `json:"errors"`
	Transactions map[string]IntervalTxJSON `json:"transactions"` // keyed by name
	VUs          []VUJSON                  `json:"vus"`          // each virtual user (session) at the end of the interval
	// Stage is the stage of a staged run the interval lies in (absent in
	// ramp-up and without stages); the rest, of terminal and rate runs only.
	Stage     int     `json:"stage,omitempty"`
	LagP99MS  float64 `json:"lag_p99_ms,omitempty"`
	Late      int64   `json:"late,omitempty"`
	Scheduled int64   `json:"scheduled,omitempty"`
	Dropped   int64   `json:"dropped,omitempty"`
}

// VUJSON is one virtual user within an interval.
type VUJSON struct {
	VU      int    `json:"vu"`
	State   string `json:"state"` // starting | running | reconnecting | stopped | idle
	Commits int64  `json:"commits"`
	Errors  int64  `json:"errors"`
}

// IntervalTxJSON is one transaction type within an interval.
type IntervalTxJSON struct {
	Count  int64   `json:"count"`
	Errors int64   `json:"errors"`
	P50MS  float64 `json:"p50_ms"`
	P95MS  float64 `json:"p95_ms"`
	P99MS  float64 `json:"p99_ms"`
	MaxMS  float64 `json:"max_ms"`
}

// ToIntervals is the JSON shape of an interval series; never nil, so that no
// intervals encode as [] rather than null.
func ToIntervals(ivs []metrics.Interval) []IntervalJSON {
	out := make([]IntervalJSON, 0, len(ivs))
	for _, iv := range ivs {
		// Times to the millisecond, latencies to the microsecond: what a
		// clock's reading means, not a float's noise (9 decimals).
		x := IntervalJSON{Seq: iv.Seq, Phase: iv.Phase, ElapsedS: iv.Elapsed.Round(time.Millisecond).Seconds(), LengthS: iv.Length.Round(time.Millisecond).Seconds(),
			TPM: Float(iv.TPM), NOPM: Float(iv.NOPM), Errors: iv.Errors, Transactions: map[string]IntervalTxJSON{},
			VUs: []VUJSON{}, Stage: iv.Stage, LagP99MS: MS(iv.LagP99.Round(time.Microsecond)), Late: iv.Late, Scheduled: iv.Scheduled, Dropped: iv.Dropped}
		for _, v := range iv.VUs {
			x.VUs = append(x.VUs, VUJSON{VU: v.VU, State: v.State, Commits: v.Commits, Errors: v.Errors})
		}
		for _, t := range iv.Tx {
			us := func(d time.Duration) float64 { return MS(d.Round(time.Microsecond)) }
			x.Transactions[t.Name] = IntervalTxJSON{Count: t.Count, Errors: t.Errors,
				P50MS: us(t.P50), P95MS: us(t.P95), P99MS: us(t.P99), MaxMS: us(t.Max)}
		}
		out = append(out, x)
	}
	return out
}

// BuildJSON is `jobs show ID build --format json`.
type BuildJSON struct {
	Warehouses int              `json:"warehouses"`
	Workers    int              `json:"workers"`
	Rows       int64            `json:"rows"`
	Seconds    Float            `json:"seconds"`
	RowsPerSec Float            `json:"rows_per_s"`
	Tables     map[string]int64 `json:"tables"` // rows per table
}

// ToBuild is the JSON shape of a build's result.
func ToBuild(b *jobs.BuildResult) BuildJSON {
	out := BuildJSON{Warehouses: b.Warehouses, Workers: b.Workers, Rows: b.Rows, Seconds: Float(b.Seconds),
		RowsPerSec: Float(b.RowsPerSec), Tables: map[string]int64{}}
	maps.Copy(out.Tables, b.Tables)
	return out
}

// CheckJSON is one condition of `jobs show ID check --format json` (an
// array).
type CheckJSON struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Passed      bool   `json:"passed"`
	Skipped     bool   `json:"skipped"`
	Violations  int64  `json:"violations"`
	Note        string `json:"note"`
}

// ToCheck is the JSON shape of a check's conditions; never nil.
func ToCheck(items []jobs.CheckItem) []CheckJSON {
	out := make([]CheckJSON, 0, len(items))
	for _, c := range items {
		out = append(out, CheckJSON{Name: c.Name, Description: c.Description, Passed: c.Passed,
			Skipped: c.Skipped, Violations: c.Violations, Note: c.Note})
	}
	return out
}

// OutputJSON is one line of `jobs show ID output --format json` (an array).
type OutputJSON struct {
	Seq  int    `json:"seq"`
	At   string `json:"at"`
	Line string `json:"line"`
}

// ToOutput is the JSON shape of a job's console lines; never nil.
func ToOutput(lines []jobs.OutputLine) []OutputJSON {
	out := make([]OutputJSON, 0, len(lines))
	for _, l := range lines {
		out = append(out, OutputJSON{Seq: l.Seq, At: jsonTime(l.At), Line: l.Line})
	}
	return out
}

// SummaryJSON is `jobs show ID --format json`: the job and whichever of
// result (runs), build (builds) and check (checks) it has; the others null.
type SummaryJSON struct {
	Job    JobJSON     `json:"job"`
	Result *ResultJSON `json:"result"`
	// Analytic is a TPROC-H run's result (omitted for other jobs).
	Analytic *AnalyticJSON `json:"analytic,omitempty"`
	Build    *BuildJSON    `json:"build"`
	Check    []CheckJSON   `json:"check"`
}
