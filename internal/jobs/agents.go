package jobs

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// Agent states in a group run.
const (
	AgentJoined  = "joined"  // registered, preparing its run
	AgentReady   = "ready"   // its run prepared, waiting for the shared start
	AgentRunning = "running" // its run has started
	AgentDone    = "done"    // its result is stored
	AgentFailed  = "failed"  // its run failed (Error says why)
	AgentLost    = "lost"    // gave no sign of life, or of progress: counted out by another agent
)

// RunGroup is a group run: one job driven by several agents (sledge
// processes, on one machine or several) under one run id, each running a
// segment of the virtual users.
type RunGroup struct {
	RunID string
	JobID int64
	// StartAt is the shared start on the repository's clock; zero until an
	// agent has fixed it.
	StartAt time.Time
	// MergedBy is the segment of the agent that merged the results ("" until
	// then).
	MergedBy string
	// JobStatus is the job's status: a run id names one run, and a job
	// that has ended takes no more agents.
	JobStatus string
}

// Agent is one agent of a group run. Its times are on the repository's
// clock (the agents convert with their measured offsets), so that agents on
// several machines compare them.
type Agent struct {
	Segment string // canonical (config.Segment.String)
	Host    string
	PID     int
	FirstVU int // the global number (0-based) of its first virtual user
	VUs     int
	// ClockOffset is the agent's clock minus the repository's, as the agent
	// measured it when it joined.
	ClockOffset time.Duration
	State       string
	JoinedAt    time.Time
	LastSeen    time.Time
	// LastProgress is when it last handed in an interval of its run (zero
	// before its first): an agent alive but not progressing is silent too.
	LastProgress time.Time
	// SilentFrom is its last sign of life (or of progress) before another
	// agent counted it lost, at LostAt; both zero when it never was.
	SilentFrom, LostAt time.Time
	// BackAt is its first sign after it was counted lost (zero when it did
	// not come back): it is at work again, and what it hands in from then
	// on is late — kept, but marked.
	BackAt time.Time
	Error  string
	// Result is the agent's own result of a run, once it is done.
	Result *metrics.RunResult
	// Built is what the agent loaded of a build split over several, once
	// it is done.
	Built *BuildResult
}

// Late reports whether the agent came back after it was counted lost:
// its numbers are kept but include its silence.
func (a Agent) Late() bool { return !a.BackAt.IsZero() }

// Silence is how long the agent that was counted lost was silent: until it
// came back, else (lost for good) until it was counted lost. 0 when it
// never was.
func (a Agent) Silence() time.Duration {
	switch {
	case a.SilentFrom.IsZero():
		return 0
	case a.Late():
		return a.BackAt.Sub(a.SilentFrom)
	}
	return a.LostAt.Sub(a.SilentFrom)
}

// agentResult is what job_agent.result holds, as JSON: one of the two.
type agentResult struct {
	Run   *metrics.RunResult `json:"run,omitempty"`
	Build *BuildResult       `json:"build,omitempty"`
}

// JoinCheck is asked, inside the transaction that joins an agent, whether it
// may join the group as stored: the group (zero when the agent is the first),
// the agents already in it and the job's settings. Its error is returned as
// is and nothing is recorded.
type JoinCheck func(g RunGroup, agents []Agent, config map[string]string) error

// JoinRun records agent a (a.JoinedAt is now on the repository's clock) in
// group run runID, creating the group and its job (j, config) when a is the
// first.
func (r *Repo) JoinRun(ctx context.Context, runID string, j Job, config map[string]string, a Agent, check JoinCheck) (g RunGroup, created bool, err error) {
	join := func(tx *repoTx) error {
		var err error
		created = false
		g, err = groupOf(ctx, tx, runID, true)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if err := check(RunGroup{}, nil, config); err != nil {
				return err
			}
			id, err := r.create(ctx, tx, j, config)
			if err != nil {
				return err
			}
			g, created = RunGroup{RunID: runID, JobID: id}, true
			// Another agent may be creating the group meanwhile (PostgreSQL
			// runs these transactions side by side; SQLite's take turns):
			// the insert waits for it, and the loser starts again and joins
			// the winner's group.
			res, err := tx.ExecContext(ctx, "INSERT INTO run_group (run_id, job_id) VALUES (?, ?) ON CONFLICT (run_id) DO NOTHING", runID, id)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n == 0 {
				return cmp.Or(err, errGroupRace)
			}
		case err != nil:
			return err
		default:
			agents, err := agentsOf(ctx, tx, g.JobID)
			if err != nil {
				return err
			}
			stored, err := kvIn(ctx, tx, "job_config", g.JobID)
			if err != nil {
				return err
			}
			if err := check(g, agents, stored); err != nil {
				return err
			}
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO job_agent
			(job_id, segment, host, pid, first_vu, vus, clock_offset_us, state, joined_at, last_seen)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (job_id, segment) DO NOTHING`,
			g.JobID, a.Segment, a.Host, a.PID, a.FirstVU, a.VUs, a.ClockOffset.Microseconds(), AgentJoined,
			fmtTime(a.JoinedAt), fmtTime(a.JoinedAt))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return cmp.Or(err, fmt.Errorf("segment %s has joined already", a.Segment))
		}
		return nil
	}
	for range 3 {
		if err = r.inTx(ctx, "join run "+runID, join); !errors.Is(err, errGroupRace) {
			break
		}
	}
	return g, created, err
}

// errGroupRace: another agent created the run's group while this one was
// about to.
var errGroupRace = errors.New("another agent created the run at the same time")

// groupOf reads run runID's group (sql.ErrNoRows when there is none),
// locking its row for the transaction when lock is set and the database
// locks rows.
func groupOf(ctx context.Context, tx *repoTx, runID string, lock bool) (RunGroup, error) {
	g := RunGroup{RunID: runID}
	var start, merged sql.NullString
	q := "SELECT g.job_id, g.start_at, g.merged_by, j.status FROM run_group g JOIN job j ON j.id = g.job_id WHERE g.run_id = ?"
	if lock {
		q += tx.d.lockJob // FOR UPDATE where rows lock: joins of one run take turns
	}
	err := tx.QueryRowContext(ctx, q, runID).Scan(&g.JobID, &start, &merged, &g.JobStatus)
	if err != nil {
		return g, err
	}
	if start.Valid {
		if g.StartAt, err = parseTime(start.String); err != nil {
			return g, err
		}
	}
	g.MergedBy = merged.String
	return g, nil
}

// RunGroup reads group run runID.
func (r *Repo) RunGroup(ctx context.Context, runID string) (RunGroup, error) {
	var g RunGroup
	err := r.readTx(ctx, "read run "+runID, func(tx *repoTx) error {
		var err error
		g, err = groupOf(ctx, tx, runID, false)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("no run %s", runID)
		}
		return err
	})
	return g, err
}

// GroupOfJob reads the group run whose job is jobID; false when the job was
// run by one process.
func (r *Repo) GroupOfJob(ctx context.Context, jobID int64) (RunGroup, bool, error) {
	var (
		g     RunGroup
		found bool
	)
	err := r.readTx(ctx, fmt.Sprintf("read the run of job %d", jobID), func(tx *repoTx) error {
		var runID string
		err := tx.QueryRowContext(ctx, "SELECT run_id FROM run_group WHERE job_id = ?", jobID).Scan(&runID)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		found = true
		g, err = groupOf(ctx, tx, runID, false)
		return err
	})
	return g, found, err
}

// SetRunStart fixes the shared start of run runID at at (the repository's
// clock) unless an agent has fixed it already, and returns the start in
// force.
func (r *Repo) SetRunStart(ctx context.Context, runID string, at time.Time) (time.Time, error) {
	var start time.Time
	err := r.inTx(ctx, "fix the start of run "+runID, func(tx *repoTx) error {
		if _, err := tx.ExecContext(ctx, "UPDATE run_group SET start_at = ? WHERE run_id = ? AND start_at IS NULL",
			fmtTime(at), runID); err != nil {
			return err
		}
		g, err := groupOf(ctx, tx, runID, false)
		start = g.StartAt
		return err
	})
	return start, err
}

// ClaimMerge makes the agent of segment the one to merge run runID's
// results, unless another agent has claimed it: it reports whether this one
// has.
func (r *Repo) ClaimMerge(ctx context.Context, runID, segment string) (bool, error) {
	var won bool
	err := r.inTx(ctx, "claim the merge of run "+runID, func(tx *repoTx) error {
		res, err := tx.ExecContext(ctx, "UPDATE run_group SET merged_by = ? WHERE run_id = ? AND merged_by IS NULL", segment, runID)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		won = n == 1
		return err
	})
	return won, err
}

const agentColumns = `segment, host, pid, first_vu, vus, clock_offset_us, state, joined_at, last_seen, error, result,
	last_progress, silent_from, lost_at, back_at`

func agentsOf(ctx context.Context, tx *repoTx, jobID int64) ([]Agent, error) {
	rows, err := tx.QueryContext(ctx, "SELECT "+agentColumns+" FROM job_agent WHERE job_id = ? ORDER BY joined_at, segment", jobID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Agent
	for rows.Next() {
		var (
			a                            Agent
			offsetUS                     int64
			joined, seen                 string
			result                       sql.NullString
			progress, silent, lost, back sql.NullString
		)
		if err := rows.Scan(&a.Segment, &a.Host, &a.PID, &a.FirstVU, &a.VUs, &offsetUS, &a.State, &joined, &seen, &a.Error, &result,
			&progress, &silent, &lost, &back); err != nil {
			return nil, err
		}
		for _, t := range []struct {
			s  sql.NullString
			to *time.Time
		}{{progress, &a.LastProgress}, {silent, &a.SilentFrom}, {lost, &a.LostAt}, {back, &a.BackAt}} {
			if t.s.Valid {
				if *t.to, err = parseTime(t.s.String); err != nil {
					return nil, err
				}
			}
		}
		a.ClockOffset = time.Duration(offsetUS) * time.Microsecond
		if a.JoinedAt, err = parseTime(joined); err != nil {
			return nil, err
		}
		if a.LastSeen, err = parseTime(seen); err != nil {
			return nil, err
		}
		if result.Valid {
			var res agentResult
			if err := json.Unmarshal([]byte(result.String), &res); err != nil {
				return nil, fmt.Errorf("the result of segment %s: %w", a.Segment, err)
			}
			a.Result, a.Built = res.Run, res.Build
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// Agents lists the agents of group job jobID in the order of their
// segments.
func (r *Repo) Agents(ctx context.Context, jobID int64) ([]Agent, error) {
	var out []Agent
	err := r.readTx(ctx, fmt.Sprintf("read the agents of job %d", jobID), func(tx *repoTx) error {
		var err error
		out, err = agentsOf(ctx, tx, jobID)
		return err
	})
	slices.SortStableFunc(out, func(a, b Agent) int { return segmentStart(a.Segment).Cmp(segmentStart(b.Segment)) })
	return out, err
}

// segmentStart is where a stored segment begins in the run (0 for one that
// does not parse: only parsed segments are stored).
func segmentStart(s string) *big.Rat {
	if seg, err := config.ParseSegment(s); err == nil {
		return seg.From()
	}
	return new(big.Rat)
}

// SegmentStart is where the agent's segment starts, a fraction of the run
// (0 when the stored segment does not parse).
func (a Agent) SegmentStart() *big.Rat { return segmentStart(a.Segment) }

// comeBack is the assignment that records, at a state change or progress
// of an agent (its one argument: the time, formatted), that an agent
// counted lost came back. (The right-hand sides of an UPDATE read the row
// as it was.)
const comeBack = "back_at = CASE WHEN state = '" + AgentLost + "' THEN ? ELSE back_at END"

// SetAgentState records the agent's state at seen (the repository's clock),
// with what went wrong when it failed. An agent counted lost that records
// a state has come back.
func (r *Repo) SetAgentState(ctx context.Context, jobID int64, segment, state string, seen time.Time, errText string) error {
	at := fmtTime(seen)
	return r.updateAgent(ctx, jobID, segment, comeBack+", state = ?, last_seen = ?, error = ?", at, state, at, redactText(errText))
}

// TouchAgent records a sign of life of the agent at seen (the repository's
// clock). It does not bring back an agent counted lost: a heartbeat is
// life, not progress (an agent counted lost for handing in no interval
// comes back with its next one, or with its result).
func (r *Repo) TouchAgent(ctx context.Context, jobID int64, segment string, seen time.Time) error {
	return r.updateAgent(ctx, jobID, segment, "last_seen = ?", fmtTime(seen))
}

// MarkAgentLost counts an agent at work (joined, ready or running) out at
// at (the repository's clock), silent since silentFrom (its last sign of
// life or of progress), if its last sign of life is still lastSeen, and
// reports whether it did: an agent that ended or showed life meanwhile
// keeps its state. An earlier silence it came back from is forgotten: the
// record keeps the last.
func (r *Repo) MarkAgentLost(ctx context.Context, jobID int64, segment string, lastSeen, silentFrom, at time.Time) (bool, error) {
	res, err := r.db.ExecContext(ctx, `UPDATE job_agent SET state = ?, silent_from = ?, lost_at = ?, back_at = NULL
		WHERE job_id = ? AND segment = ? AND last_seen = ? AND state IN (?, ?, ?)`,
		AgentLost, fmtTime(silentFrom), fmtTime(at), jobID, segment, fmtTime(lastSeen), AgentJoined, AgentReady, AgentRunning)
	if err != nil {
		return false, fmt.Errorf("count segment %s of job %d lost: %w", segment, jobID, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// SaveAgentResult stores the agent's own result (its histograms encoded)
// and marks it done.
func (r *Repo) SaveAgentResult(ctx context.Context, jobID int64, segment string, seen time.Time, res *metrics.RunResult) error {
	return r.saveAgentResult(ctx, jobID, segment, seen, agentResult{Run: res})
}

// SaveAgentBuild stores what the agent loaded of a build split over
// several and marks it done.
func (r *Repo) SaveAgentBuild(ctx context.Context, jobID int64, segment string, seen time.Time, b BuildResult) error {
	return r.saveAgentResult(ctx, jobID, segment, seen, agentResult{Build: &b})
}

func (r *Repo) saveAgentResult(ctx context.Context, jobID int64, segment string, seen time.Time, res agentResult) error {
	if run := res.Run; run != nil {
		// Its texts are redacted one by one: redacting the JSON could
		// swallow its syntax.
		c := *run
		c.Warnings = make([]string, len(run.Warnings))
		for i, w := range run.Warnings {
			c.Warnings[i] = redactText(w)
		}
		c.DBCheckUnavailable, c.ServerTPMUnavailable = redactText(run.DBCheckUnavailable), redactText(run.ServerTPMUnavailable)
		res.Run = &c
	}
	b, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("encode the result of segment %s: %w", segment, err)
	}
	at := fmtTime(seen)
	return r.updateAgent(ctx, jobID, segment, comeBack+", state = ?, last_seen = ?, result = ?", at, AgentDone, at, string(b))
}

func (r *Repo) updateAgent(ctx context.Context, jobID int64, segment, set string, args ...any) error {
	res, err := r.db.ExecContext(ctx, "UPDATE job_agent SET "+set+" WHERE job_id = ? AND segment = ?", append(args, jobID, segment)...)
	if err == nil {
		var n int64
		if n, err = res.RowsAffected(); err == nil && n == 0 {
			err = fmt.Errorf("no agent of segment %s", segment)
		}
	}
	if err != nil {
		return fmt.Errorf("record agent %s of job %d: %w", segment, jobID, err)
	}
	return nil
}

// AddAgentInterval stores one interval of an agent's run, with its
// histograms, and counts it as a sign of life and of progress at seen: an
// agent counted lost is running again, and came back. An interval the
// agent has stored already is left as it is: a spool's hand-in may repeat
// one.
func (r *Repo) AddAgentInterval(ctx context.Context, jobID int64, segment string, seen time.Time, iv metrics.Interval) error {
	return r.inTx(ctx, fmt.Sprintf("store interval %d of segment %s of job %d", iv.Seq, segment, jobID), func(tx *repoTx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO job_agent_interval
			(job_id, segment, seq, phase, elapsed_s, length_s, tpm, nopm, errors) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (job_id, segment, seq) DO NOTHING`,
			jobID, segment, iv.Seq, iv.Phase, secs(iv.Elapsed), secs(iv.Length), nullNaN(iv.TPM), nullNaN(iv.NOPM), iv.Errors)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err // stored before
		}
		for i, t := range iv.Tx {
			if _, err := tx.ExecContext(ctx, `INSERT INTO job_agent_interval_tx
				(job_id, segment, seq, ord, tx, count, errors, histogram) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
				jobID, segment, iv.Seq, i, t.Name, t.Count, t.Errors, t.Histogram); err != nil {
				return fmt.Errorf("transaction %s: %w", t.Name, err)
			}
		}
		for _, v := range iv.VUs {
			if _, err := tx.ExecContext(ctx, `INSERT INTO job_agent_interval_vu (job_id, segment, seq, vu, state, commits, errors)
				VALUES (?, ?, ?, ?, ?, ?, ?)`, jobID, segment, iv.Seq, v.VU, v.State, v.Commits, v.Errors); err != nil {
				return fmt.Errorf("virtual user %d: %w", v.VU, err)
			}
		}
		at := fmtTime(seen)
		_, err = tx.ExecContext(ctx, "UPDATE job_agent SET "+comeBack+`,
			state = CASE WHEN state = ? THEN ? ELSE state END, last_seen = ?, last_progress = ? WHERE job_id = ? AND segment = ?`,
			at, AgentLost, AgentRunning, at, at, jobID, segment)
		return err
	})
}

// AgentIntervals returns the agents' intervals of job jobID, by seq, each
// seq's in segment order; seq 0 returns all, else only that one.
func (r *Repo) AgentIntervals(ctx context.Context, jobID int64, seq int) (map[int][]metrics.Interval, error) {
	out := map[int][]metrics.Interval{}
	err := r.agentIntervals(ctx, jobID, seq, func(_ string, iv metrics.Interval) { out[iv.Seq] = append(out[iv.Seq], iv) })
	return out, err
}

// AgentSeries returns the agents' intervals of job jobID by segment, each
// segment's in seq order.
func (r *Repo) AgentSeries(ctx context.Context, jobID int64) (map[string][]metrics.Interval, error) {
	out := map[string][]metrics.Interval{}
	err := r.agentIntervals(ctx, jobID, 0, func(segment string, iv metrics.Interval) { out[segment] = append(out[segment], iv) })
	return out, err
}

// agentIntervals reads the agents' intervals of job jobID (seq 0: all,
// else only that one) and hands each to add, in seq order, then segment.
func (r *Repo) agentIntervals(ctx context.Context, jobID int64, seq int, add func(segment string, iv metrics.Interval)) error {
	return r.readTx(ctx, fmt.Sprintf("read the agents' intervals of job %d", jobID), func(tx *repoTx) error {
		where, args := "job_id = ?", []any{jobID}
		if seq != 0 {
			where, args = where+" AND seq = ?", append(args, seq)
		}
		type key struct {
			seq     int
			segment string
		}
		index := map[key]*metrics.Interval{}
		var order []key
		if err := eachRowArgs(ctx, tx, `SELECT segment, seq, phase, elapsed_s, length_s, tpm, nopm, errors
			FROM job_agent_interval WHERE `+where+` ORDER BY seq, segment`, args, func(rows *sql.Rows) error {
			var (
				k               key
				iv              metrics.Interval
				elapsed, length float64
			)
			if err := rows.Scan(&k.segment, &k.seq, &iv.Phase, &elapsed, &length, nanFloat{&iv.TPM}, nanFloat{&iv.NOPM}, &iv.Errors); err != nil {
				return err
			}
			iv.Seq, iv.Elapsed, iv.Length = k.seq, fromSecs(elapsed), fromSecs(length)
			index[k] = &iv
			order = append(order, k)
			return nil
		}); err != nil {
			return err
		}
		if err := eachRowArgs(ctx, tx, `SELECT segment, seq, tx, count, errors, histogram
			FROM job_agent_interval_tx WHERE `+where+` ORDER BY seq, segment, ord`, args, func(rows *sql.Rows) error {
			var (
				k key
				t metrics.IntervalTx
			)
			if err := rows.Scan(&k.segment, &k.seq, &t.Name, &t.Count, &t.Errors, &t.Histogram); err != nil {
				return err
			}
			if iv := index[k]; iv != nil {
				iv.Tx = append(iv.Tx, t)
			}
			return nil
		}); err != nil {
			return err
		}
		if err := eachRowArgs(ctx, tx, `SELECT segment, seq, vu, state, commits, errors
			FROM job_agent_interval_vu WHERE `+where+` ORDER BY seq, vu`, args, func(rows *sql.Rows) error {
			var (
				k key
				v metrics.VUInterval
			)
			if err := rows.Scan(&k.segment, &k.seq, &v.VU, &v.State, &v.Commits, &v.Errors); err != nil {
				return err
			}
			if iv := index[k]; iv != nil {
				iv.VUs = append(iv.VUs, v)
			}
			return nil
		}); err != nil {
			return err
		}
		for _, k := range order {
			add(k.segment, *index[k])
		}
		return nil
	})
}

// eachRowArgs runs query with args in tx and calls scan for every row.
func eachRowArgs(ctx context.Context, tx *repoTx, query string, args []any, scan func(*sql.Rows) error) error {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Clock reads the repository's clock: the database server's for a
// PostgreSQL repository (the agents of a group run on several machines
// measure their offsets against it), this machine's for a SQLite file.
func (r *Repo) Clock(ctx context.Context) (time.Time, error) {
	if r.d.name != "postgres" {
		return time.Now(), nil
	}
	var now time.Time
	if err := r.db.QueryRowContext(ctx, "SELECT clock_timestamp()").Scan(&now); err != nil {
		return time.Time{}, fmt.Errorf("read the repository's clock: %w", err)
	}
	return now, nil
}
