package app

// What a job measured is never lost because the jobs repository could not
// be written: every write of a job's output, intervals, result and end goes
// through its jobStore, which writes to the repository and, when that
// fails, keeps the write in the job's spool file (internal/spool) in the
// data directory, or in the spare directory (the temporary directory's)
// when the data directory cannot take it. Before each later write the store hands the spool in
// (all its records, each write idempotent, so that a repeated hand-in
// stores nothing twice) and removes it once everything is in; what is
// still kept when the job ends is named to the user, and handed in by the
// next command that opens the repository (Recover) or by `sledge jobs
// recover`.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/spool"
	"github.com/sledge-bench/sledge/internal/threshold"
)

// SpoolDir is the directory of the spool files in a data directory.
func SpoolDir(dataDir string) string { return filepath.Join(dataDir, "spool") }

// holeReason is why an interval is missing that neither the repository nor
// a spool file has.
const holeReason = "never stored: the jobs repository could not be written and no spool file kept it (the process may have ended before it could)"

// storeTarget writes one job's records to the repository: the job of one
// process, or an agent's part of a group run (seg). Every write is
// idempotent, as a spool's hand-in may repeat it.
type storeTarget struct {
	repo *jobs.Repo
	id   int64
	seg  string // an agent's segment, "" for a run of one process
	// g is the live agent's group (it merges an interval when it stores
	// the last part of it); nil when handing in another process's spool.
	g *group
}

// now is the time of an agent's sign of life, on the repository's clock
// when the agent is live.
func (t storeTarget) now() time.Time {
	if t.g != nil {
		return t.g.now()
	}
	return time.Now()
}

func (t storeTarget) lines(ctx context.Context, lines []jobs.OutputLine, once bool) error {
	if t.seg != "" {
		labelled := make([]jobs.OutputLine, len(lines))
		for i, l := range lines {
			labelled[i] = jobs.OutputLine{At: l.At, Line: "[" + t.seg + "] " + l.Line}
		}
		lines = labelled
	}
	if once {
		return t.repo.AppendOutputLinesOnce(ctx, t.id, lines)
	}
	return t.repo.AppendOutputLines(ctx, t.id, lines)
}

func (t storeTarget) interval(ctx context.Context, iv metrics.Interval) error {
	if t.seg == "" {
		if t.id == 0 {
			return nil
		}
		return t.repo.AddIntervalOnce(ctx, t.id, iv)
	}
	if t.g != nil {
		return groupWriter{t.g}.AddInterval(ctx, t.id, iv)
	}
	return t.repo.AddAgentInterval(ctx, t.id, t.seg, t.now(), iv)
}

// apply hands in one spooled record.
func (t storeTarget) apply(ctx context.Context, r spool.Record) error {
	switch r.Kind {
	case spool.KindLines:
		var lines []jobs.OutputLine
		if err := r.Decode(&lines); err != nil {
			return err
		}
		return t.lines(ctx, lines, true)
	case spool.KindInterval:
		var iv metrics.Interval
		if err := r.Decode(&iv); err != nil {
			return err
		}
		return t.interval(ctx, iv)
	case spool.KindResult:
		var res metrics.RunResult
		if err := r.Decode(&res); err != nil {
			return err
		}
		return t.repo.SaveRunResult(ctx, t.id, &res)
	case spool.KindPart:
		var res metrics.RunResult
		if err := r.Decode(&res); err != nil {
			return err
		}
		return t.repo.SaveAgentResult(ctx, t.id, t.seg, t.now(), &res)
	case spool.KindFailed:
		var why string
		if err := r.Decode(&why); err != nil {
			return err
		}
		return t.repo.SetAgentState(ctx, t.id, t.seg, jobs.AgentFailed, t.now(), why)
	case spool.KindAnalytic:
		var res metrics.AnalyticResult
		if err := r.Decode(&res); err != nil {
			return err
		}
		return t.repo.SaveAnalyticResult(ctx, t.id, &res)
	case spool.KindThresholds:
		var vs []threshold.Verdict
		if err := r.Decode(&vs); err != nil {
			return err
		}
		return t.repo.SaveThresholds(ctx, t.id, vs)
	case spool.KindFinish:
		var f finishRecord
		if err := r.Decode(&f); err != nil {
			return err
		}
		return t.repo.FinishSchema(ctx, t.id, f.Status, f.Error, f.Schema)
	case spool.KindMissing:
		var m []jobs.MissingInterval
		if err := r.Decode(&m); err != nil {
			return err
		}
		return t.repo.MarkIntervalsMissing(ctx, t.id, m)
	}
	return fmt.Errorf("unknown spooled record %q", r.Kind)
}

// finishRecord is how a job ended, as spooled.
type finishRecord struct {
	Status, Error string
	Schema        jobs.SchemaFailure // zero in what an older Sledge spooled
}

// handIn applies records in order; it stops at the first that cannot be
// stored.
func (t storeTarget) handIn(ctx context.Context, records []spool.Record) error {
	for _, r := range records {
		if err := t.apply(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

// jobStore is a job's way into the repository (see the top of this file).
// It is an output.RepositoryWriter for the job's repository sink.
type jobStore struct {
	t storeTarget
	// dirs are the spool directories, in order of preference: the data
	// directory's, then the spare (Options.SpareSpoolDir) for when the
	// first cannot take more; none: no spooling, a failed write is an error.
	dirs  []string
	spare string // the one of dirs in a shared place: used only if private (spool.Private)
	head  spool.Header
	warn  io.Writer
	// onBack is called when the repository could be written again after
	// it could not (an agent's others then get time to show life).
	onBack func()

	mu     sync.Mutex
	file   *spool.File
	lost   []jobs.MissingInterval // neither stored nor kept: recorded when the repository is back
	unkept error                  // why the job's result or end was neither stored nor kept (noteUnkept)
	warned bool
	why    error // the last error of the repository
}

func (s *Service) newStore(t storeTarget, runID string) *jobStore {
	host, _ := os.Hostname()
	var dirs []string
	if s.opts.DataDir != "" && s.opts.RepoName != "" {
		dirs = append(dirs, SpoolDir(s.opts.DataDir))
	}
	spare := ""
	if d := s.opts.SpareSpoolDir; d != "" && s.opts.RepoName != "" && !slices.Contains(dirs, d) {
		dirs, spare = append(dirs, d), d
	}
	return &jobStore{t: t, dirs: dirs, spare: spare, warn: s.opts.Warn, head: spool.Header{Repo: s.opts.RepoName, Job: t.id,
		RunID: runID, Segment: t.seg, Host: host, PID: os.Getpid(), Created: time.Now().UTC()}}
}

// AppendOutputLines stores or keeps console lines (output.RepositoryWriter).
func (s *jobStore) AppendOutputLines(ctx context.Context, _ int64, lines []jobs.OutputLine) error {
	_, err := s.write(ctx, spool.KindLines, 0, slices.Clone(lines), func(ctx context.Context) error { return s.t.lines(ctx, lines, false) })
	return err
}

// AddInterval stores or keeps an interval (output.RepositoryWriter).
func (s *jobStore) AddInterval(ctx context.Context, _ int64, iv metrics.Interval) error {
	_, err := s.write(ctx, spool.KindInterval, iv.Seq, iv, func(ctx context.Context) error { return s.t.interval(ctx, iv) })
	return err
}

// SaveRunResult stores or keeps the job's result; stored says which.
func (s *jobStore) SaveRunResult(ctx context.Context, res *metrics.RunResult) (stored bool, err error) {
	return s.write(ctx, spool.KindResult, 0, res, func(ctx context.Context) error { return s.t.repo.SaveRunResult(ctx, s.t.id, res) })
}

// SaveAnalyticResult stores or keeps a TPROC-H run's result.
func (s *jobStore) SaveAnalyticResult(ctx context.Context, res *metrics.AnalyticResult) (stored bool, err error) {
	return s.write(ctx, spool.KindAnalytic, 0, res, func(ctx context.Context) error { return s.t.repo.SaveAnalyticResult(ctx, s.t.id, res) })
}

// SaveThresholds stores or keeps a run's verdicts.
func (s *jobStore) SaveThresholds(ctx context.Context, vs []threshold.Verdict) (stored bool, err error) {
	return s.write(ctx, spool.KindThresholds, 0, vs, func(ctx context.Context) error { return s.t.repo.SaveThresholds(ctx, s.t.id, vs) })
}

// SavePart stores or keeps an agent's part of a group run.
func (s *jobStore) SavePart(ctx context.Context, res *metrics.RunResult) (stored bool, err error) {
	return s.write(ctx, spool.KindPart, 0, res, func(ctx context.Context) error {
		return s.t.repo.SaveAgentResult(ctx, s.t.id, s.t.seg, s.t.now(), res)
	})
}

// AgentFailed stores or keeps that an agent's run failed.
func (s *jobStore) AgentFailed(ctx context.Context, why string) (stored bool, err error) {
	return s.write(ctx, spool.KindFailed, 0, why, func(ctx context.Context) error {
		return s.t.repo.SetAgentState(ctx, s.t.id, s.t.seg, jobs.AgentFailed, s.t.now(), why)
	})
}

// Finish stores or keeps how the job ended, with what a job that failed
// on its workload's schema found.
func (s *jobStore) Finish(ctx context.Context, status, msg string, sf jobs.SchemaFailure) (stored bool, err error) {
	return s.write(ctx, spool.KindFinish, 0, finishRecord{Status: status, Error: msg, Schema: sf}, func(ctx context.Context) error {
		return s.t.repo.FinishSchema(ctx, s.t.id, status, msg, sf)
	})
}

// write hands in what is kept, then stores a record with direct; when
// either fails, it keeps the record in the spool file. stored says whether
// the record (and all before it) is in the repository; err is only for a
// record neither stored nor kept.
func (s *jobStore) write(ctx context.Context, kind string, seq int, v any, direct func(context.Context) error) (stored bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	err = s.drainLocked(ctx)
	if err == nil {
		if err = direct(ctx); err == nil {
			return true, nil
		}
	}
	if len(s.dirs) == 0 {
		s.noteUnkept(kind, err)
		return false, err
	}
	s.why = err
	err = s.keepLocked(kind, seq, v)
	s.noteUnkept(kind, err)
	return false, err
}

// noteUnkept remembers the first record of what the job measured or how
// it ended (its result, an agent's part, its thresholds, its end) that
// could be neither stored nor kept: the job's numbers are then lost to the
// repository. A lost interval is marked missing instead, and lost output
// lines are only warned about (the result keeps the numbers).
func (s *jobStore) noteUnkept(kind string, err error) {
	if err == nil || s.unkept != nil {
		return
	}
	switch kind {
	case spool.KindInterval, spool.KindLines:
		return
	}
	s.unkept = err
}

// keepLocked appends a record to the spool file. Without a file it creates
// one in the first directory that takes it; when the file's directory
// cannot take the record (the data directory's file system is often the
// repository's, and full), the file moves to another directory that can,
// the data directory again once it has room.
func (s *jobStore) keepLocked(kind string, seq int, v any) error {
	var failed []string // each attempt's reason, for the error
	if s.file == nil {
		for _, dir := range s.dirs {
			f, err := s.create(dir)
			if err == nil {
				s.file = f
				break
			}
			failed = append(failed, err.Error())
		}
	}
	err := errors.New("no spool directory")
	if s.file != nil {
		err = s.file.Append(kind, seq, v)
		for _, dir := range s.dirs {
			if err == nil {
				break
			}
			failed = append(failed, err.Error())
			from := filepath.Dir(s.file.Path())
			if dir == from {
				continue
			}
			if err = s.usable(dir); err != nil {
				continue
			}
			moved, merr := s.file.MoveTo(dir)
			if merr != nil {
				err = merr
				continue
			}
			s.file = moved
			if s.warn != nil {
				fmt.Fprintf(s.warn, "sledge: warning: %s cannot take job %d's spool file (%s): it is kept in %s instead\n",
					from, s.t.id, failed[len(failed)-1], s.file.Path())
			}
			err = s.file.Append(kind, seq, v)
		}
	}
	if err != nil {
		if s.file != nil {
			failed = append(failed, err.Error())
		}
		why := strings.Join(slices.Compact(failed), "; ")
		if kind == spool.KindInterval {
			s.lost = append(s.lost, jobs.MissingInterval{Seq: seq,
				Reason: fmt.Sprintf("not stored: %v; not kept either: %s", s.why, why)})
		}
		return fmt.Errorf("%v; and it cannot be kept: %s", s.why, why)
	}
	if !s.warned && s.warn != nil {
		s.warned = true
		fmt.Fprintf(s.warn, "sledge: warning: the jobs repository cannot be written (%v): job %d's output, intervals and result are kept in %s and handed in when it can\n",
			s.why, s.t.id, s.file.Path())
	}
	return nil
}

// usable says why dir may not hold a spool file: the spare directory must
// be private to this user.
func (s *jobStore) usable(dir string) error {
	if dir == s.spare {
		return spool.Private(dir)
	}
	return nil
}

// create creates the job's spool file in dir, if it is usable.
func (s *jobStore) create(dir string) (*spool.File, error) {
	if err := s.usable(dir); err != nil {
		return nil, err
	}
	return spool.Create(dir, s.head)
}

// drainLocked hands in everything kept (the spool file and the intervals
// that are lost, as missing) and removes the file; an error leaves both.
func (s *jobStore) drainLocked(ctx context.Context) error {
	if s.file == nil && len(s.lost) == 0 {
		return nil
	}
	if s.file != nil {
		c, err := spool.Read(s.file.Path())
		if err != nil {
			return err
		}
		if err := s.t.handIn(ctx, c.Records); err != nil {
			return err
		}
	}
	if len(s.lost) > 0 {
		if err := s.t.repo.MarkIntervalsMissing(ctx, s.t.id, s.lost); err != nil {
			return err
		}
		s.lost = nil
	}
	if s.file != nil {
		path := s.file.Path()
		if err := s.file.Remove(); err != nil && s.warn != nil {
			fmt.Fprintf(s.warn, "sledge: warning: remove the handed-in spool file: %v\n", err)
		}
		s.file = nil
		if s.warn != nil {
			fmt.Fprintf(s.warn, "sledge: the jobs repository can be written again: handed in what job %d kept in %s\n", s.t.id, path)
		}
	}
	if s.onBack != nil {
		s.onBack()
	}
	return nil
}

// Retry hands in what is kept; it reports whether nothing is kept any more.
func (s *jobStore) Retry(ctx context.Context) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.drainLocked(ctx) == nil
}

// Close hands in what is kept a last time and closes the spool file. It
// returns the file still holding records ("" when none) and why the
// repository could not take them.
func (s *jobStore) Close(ctx context.Context) (path string, why error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.drainLocked(ctx)
	switch {
	case err == nil:
		return "", nil
	case s.file == nil:
		// Only lost intervals are left, and the repository cannot record
		// them: the job's series shows a hole MarkSeriesHoles names later.
		return "", err
	}
	path = s.file.Path()
	s.file.Close()
	s.file = nil
	return path, err
}

// Unkept is why the job's result or end could be neither stored nor kept
// (noteUnkept); nil when none was lost.
func (s *jobStore) Unkept() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.unkept
}

// Intervals are the intervals kept in the spool file (none without one).
func (s *jobStore) Intervals() []metrics.Interval {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file == nil {
		return nil
	}
	c, err := spool.Read(s.file.Path())
	if err != nil {
		return nil
	}
	var out []metrics.Interval
	for _, r := range c.Records {
		var iv metrics.Interval
		if r.Kind == spool.KindInterval && r.Decode(&iv) == nil {
			out = append(out, iv)
		}
	}
	return out
}

// withKept adds the intervals kept in a spool file to the stored ones, in
// order: the series as it will be once handed in.
func withKept(stored, kept []metrics.Interval) []metrics.Interval {
	if len(kept) == 0 {
		return stored
	}
	out := slices.Clone(stored)
	for _, iv := range kept {
		if !slices.ContainsFunc(out, func(s metrics.Interval) bool { return s.Seq == iv.Seq }) {
			out = append(out, iv)
		}
	}
	slices.SortFunc(out, func(a, b metrics.Interval) int { return a.Seq - b.Seq })
	return out
}

// NotStoredError says that a job's result was measured but is not in the
// repository: it is kept in Spool (when not "") and handed in later. Front
// ends exit with status 75 (EX_TEMPFAIL) for it.
type NotStoredError struct {
	Job   int64
	Spool string
	Err   error
	// Unkept says that some of it (the result, an agent's part, the
	// thresholds' verdicts or the job's end) could not be kept either: it
	// is only in what was printed. Spool, when set, holds the rest.
	Unkept bool
}

func (e *NotStoredError) Error() string {
	if e.Unkept {
		rest := ""
		if e.Spool != "" {
			rest = fmt.Sprintf("; the rest is kept in %s and handed in by the next sledge command that opens the repository, or sledge jobs recover", e.Spool)
		}
		return fmt.Sprintf("job %d's result could be neither stored in the jobs repository nor kept in a spool file (%v): what was not kept is only in the output above%s; free space (or make the data directory writable) before the next run", e.Job, e.Err, rest)
	}
	if e.Spool == "" {
		return fmt.Sprintf("job %d's result is not in the jobs repository yet (%v): it is handed in by the next sledge command that opens the repository, or sledge jobs recover", e.Job, e.Err)
	}
	return fmt.Sprintf("job %d's result could not be stored in the jobs repository (%v): it is kept in %s and handed in by the next sledge command that opens the repository, or sledge jobs recover", e.Job, e.Err, e.Spool)
}

func (e *NotStoredError) Unwrap() error { return e.Err }

// Recovered is one spool file Recover looked at.
type Recovered struct {
	Path    string
	Job     int64
	Segment string // an agent's, "" for a run of one process
	// Err is why it is still kept (nil: handed in and removed).
	Err error
}

// Recovery is what Recover did.
type Recovery struct {
	Files []Recovered
	// Merged are the group runs whose result Recover merged (their job
	// ids), as their last agent's part came in or was found.
	Merged []int64
}

// Report says what Recover did (rec, and err, what it returned), one line
// each.
func (rec Recovery) Report(w io.Writer, err error) {
	for _, f := range rec.Files {
		what := fmt.Sprintf("job %d", f.Job)
		if f.Segment != "" {
			what += " (segment " + f.Segment + ")"
		}
		if f.Err != nil {
			fmt.Fprintf(w, "sledge: %s: cannot hand in %s yet: %v\n", what, f.Path, f.Err)
			continue
		}
		fmt.Fprintf(w, "sledge: %s: handed in what it kept in %s\n", what, f.Path)
	}
	for _, id := range rec.Merged {
		fmt.Fprintf(w, "sledge: job %d: merged the agents' results and ended the job\n", id)
	}
	if err != nil {
		fmt.Fprintf(w, "sledge: warning: hand in spooled jobs: %v\n", err)
	}
}

// Recover hands in the spool files in dirs that were kept for repository
// repo (named repoName, as Options.RepoName), oldest job first, removing
// each once it is in, and then ends the group runs whose agents have all
// ended without one of them merging (an agent gave up waiting for the
// repository). A file that its process still writes is left to it; a job
// whose file cannot be handed in yet is kept from being counted abandoned
// (jobs.Repo.KeepSpooled). Errors of single files are in the Recovery.
func Recover(ctx context.Context, repo *jobs.Repo, repoName string, dirs ...string) (Recovery, error) {
	var rec Recovery
	paths, err := spool.List(dirs...)
	if err != nil {
		return rec, err
	}
	remerge := map[string]bool{}
	for _, p := range paths {
		c, err := spool.Claim(p)
		if errors.Is(err, spool.ErrBusy) {
			if c, err := spool.Read(p); err == nil && c.Header.Repo == repoName {
				repo.KeepSpooled(c.Header.Job) // its live process hands it in
			}
			continue
		}
		if err != nil {
			rec.Files = append(rec.Files, Recovered{Path: p, Err: err})
			continue
		}
		h := c.Header
		if h.Repo != repoName {
			c.Close()
			continue
		}
		r := Recovered{Path: p, Job: h.Job, Segment: h.Segment}
		t := storeTarget{repo: repo, id: h.Job, seg: h.Segment}
		r.Err = t.handIn(ctx, c.Records)
		if r.Err == nil && h.Segment == "" && slices.ContainsFunc(c.Records, func(r spool.Record) bool { return r.Kind == spool.KindFinish }) {
			r.Err = repo.MarkSeriesHoles(ctx, h.Job, holeReason)
		}
		if r.Err != nil {
			repo.KeepSpooled(h.Job)
			c.Close()
		} else {
			_ = c.Remove()
			if h.RunID != "" {
				remerge[h.RunID] = true
			}
		}
		rec.Files = append(rec.Files, r)
	}
	merged, err := endGroups(ctx, repo, remerge)
	rec.Merged = merged
	return rec, err
}

// endGroups merges and ends the running group runs whose agents have all
// ended without one merging, and merges again the ended runs of remerge
// (an agent's part came in after the others merged without it).
func endGroups(ctx context.Context, repo *jobs.Repo, remerge map[string]bool) ([]int64, error) {
	open, err := repo.OpenGroups(ctx)
	if err != nil {
		return nil, err
	}
	var runs []jobs.RunGroup
	for _, g := range open {
		if g.MergedBy == "" && !g.StartAt.IsZero() {
			runs = append(runs, g)
		}
	}
	for id := range remerge {
		g, err := repo.RunGroup(ctx, id)
		if err == nil && g.JobStatus != metrics.StatusRunning && g.MergedBy != "" {
			runs = append(runs, g)
		}
	}
	var merged []int64
	for _, run := range runs {
		agents, err := repo.Agents(ctx, run.JobID)
		if err != nil {
			return merged, err
		}
		if len(agents) == 0 || slices.ContainsFunc(agents, atWork) {
			continue
		}
		if run.MergedBy == "" {
			won, err := repo.ClaimMerge(ctx, run.RunID, "recover")
			if err != nil || !won {
				continue
			}
		}
		g := &group{repo: repo, runID: run.RunID, jobID: run.JobID}
		res, err := g.merge(ctx, agents)
		if err != nil {
			if errors.Is(err, errNothingToMerge) {
				err = repo.Finish(ctx, run.JobID, metrics.StatusFailed, fmt.Sprintf("run %s: %v", run.RunID, err))
			}
			if err != nil {
				return merged, err
			}
			continue
		}
		if ivs, err := repo.Intervals(ctx, run.JobID); err == nil {
			res.Warnings = append(res.Warnings, metrics.SteadinessWarnings(ivs)...)
		}
		if err := repo.SaveRunResult(ctx, run.JobID, res); err != nil {
			return merged, err
		}
		if err := repo.MarkSeriesHoles(ctx, run.JobID, holeReason); err != nil {
			return merged, err
		}
		if err := repo.Finish(ctx, run.JobID, res.Status, ""); err != nil {
			return merged, err
		}
		merged = append(merged, run.JobID)
	}
	return merged, nil
}
