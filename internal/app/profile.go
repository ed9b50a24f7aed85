package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/report"
)

// The settings a profile's jobs record: the profile (its first job's id,
// recorded on that job too) and the step's VU count. A step of several
// trials is also a series (settings "series", its first trial's id, and
// "trial", k/n), so that jobs diff of two steps compares their trials.
const (
	SettingProfile   = "profile"
	SettingProfileVU = "profile_vu"
)

// ErrNotProfile is the error of a job that belongs to no profile.
var ErrNotProfile = errors.New("not part of a profile")

// MaxTrials bounds the trials of a series, and of each step of a profile:
// a handful each.
const MaxTrials = 100

// CheckProfile checks what a profile runs besides each step's spec: its VU
// counts (CheckProfileVUs), its trials per step, and a spec whose VUs the
// steps may set — a closed-loop run without stages. Errors about the spec
// are config.FieldErrors naming the setting.
func CheckProfile(spec config.Spec, vus []int, repeat int) error {
	if err := CheckProfileVUs(vus); err != nil {
		return err
	}
	if spec.Kind != config.KindRun {
		return fmt.Errorf("a profile runs run jobs, not %s", spec.Kind)
	}
	var errs config.FieldErrors
	if repeat < 1 || repeat > MaxTrials {
		errs = append(errs, config.FieldError{Field: "repeat", Msg: fmt.Sprintf("must be between 1 and %d trials per step (got %d)", MaxTrials, repeat)})
	}
	if spec.Stages != "" {
		errs = append(errs, config.FieldError{Field: "stages", Msg: "a profile sets the VUs of each step itself: not with stages"})
	}
	switch spec.LoadModel() {
	case config.LoadRate:
		errs = append(errs, config.FieldError{Field: "rate", Msg: "a profile varies closed-loop VUs; an open-loop rate does not vary with them (run one job per rate instead)"})
	case config.LoadTerminals:
		field := "terminals"
		if spec.Terminals == 0 {
			field = "connections"
		}
		errs = append(errs, config.FieldError{Field: field, Msg: "a profile varies closed-loop VUs; a pool of connections does not vary with them"})
	}
	if errs != nil {
		return errs
	}
	return nil
}

// CheckProfileVUs checks a profile's VU counts: at least one, each in
// 1..config.MaxVUs, strictly ascending.
func CheckProfileVUs(vus []int) error {
	if len(vus) == 0 {
		return errors.New("a profile needs at least one VU count")
	}
	for i, v := range vus {
		if v < 1 || v > config.MaxVUs {
			return fmt.Errorf("VU count %d: want 1 to %d", v, config.MaxVUs)
		}
		if i > 0 && v <= vus[i-1] {
			return fmt.Errorf("VU counts must be strictly ascending (%d after %d)", v, vus[i-1])
		}
	}
	return nil
}

// RunProfile runs a performance profile: req's spec at each of vus (in
// order), repeat trials each, one job per trial. Every job records the
// profile (SettingProfile, the first job's id, on the first job too), its
// step's VU count (SettingProfileVU) and, with repeat > 1, its trial (k/n)
// and series (the step's first job). Between consecutive jobs the database
// gets what spec.Between asks. Every step's spec is validated before the
// first job. The profile stops at the first job that fails or is
// interrupted, or at a between step that fails; it returns the outcomes of
// the jobs that ran, that one included, and the failed job's (or step's)
// error. Every job records the between step too (setting "between"); a
// rebuild's build job records the profile (betweenTrials) but is no step.
func (s *Service) RunProfile(ctx context.Context, req Request, vus []int, repeat int) ([]Outcome, error) {
	if err := CheckProfile(req.Spec, vus, repeat); err != nil {
		return nil, err
	}
	for _, v := range vus {
		spec := req.Spec
		spec.VU = v
		if err := s.Validate(spec); err != nil {
			return nil, err
		}
	}
	var (
		out     []Outcome
		profile int64
	)
	for _, v := range vus {
		var series int64
		for k := 1; k <= repeat; k++ {
			r := req
			r.Spec.VU = v
			r.Settings = map[string]string{SettingProfileVU: strconv.Itoa(v)}
			for key, val := range req.Settings {
				r.Settings[key] = val
			}
			if profile != 0 {
				r.Settings[SettingProfile] = strconv.FormatInt(profile, 10)
			}
			if repeat > 1 {
				r.Settings["trial"] = fmt.Sprintf("%d/%d", k, repeat)
				if series != 0 {
					r.Settings["series"] = strconv.FormatInt(series, 10)
				}
			}
			if r.Console != nil {
				line := fmt.Sprintf("Profile step %d of %d: %d VU%s", slices.Index(vus, v)+1, len(vus), v, plural(v))
				if repeat > 1 {
					line += fmt.Sprintf(", trial %d of %d", k, repeat)
				}
				fmt.Fprintln(r.Console, line)
			}
			if b := req.Spec.Between; b != "" && b != config.BetweenNone {
				r.Settings["between"] = b
			}
			if len(out) > 0 {
				if err := s.betweenTrials(ctx, r); err != nil {
					return out, fmt.Errorf("after job %d: %w", out[len(out)-1].ID, err)
				}
			}
			j, err := s.Start(ctx, r)
			if err != nil {
				return out, err
			}
			// The first job learns its own id once started: it records it
			// at once, so that it shows as a profile while it runs.
			first := map[string]string{}
			if profile == 0 {
				profile = j.ID
				first[SettingProfile] = strconv.FormatInt(profile, 10)
			}
			if repeat > 1 && series == 0 {
				series = j.ID
				first["series"] = strconv.FormatInt(series, 10)
			}
			if len(first) > 0 {
				if err := s.opts.Repo.AddConfig(context.WithoutCancel(ctx), j.ID, first); err != nil {
					fmt.Fprintf(s.opts.Warn, "sledge: warning: cannot record the profile of job %d: %v\n", j.ID, err)
				}
			}
			o := j.Wait()
			out = append(out, o)
			if o.Status == metrics.StatusFailed {
				return out, fmt.Errorf("job %d (%d of %d): %w", o.ID, len(out), len(vus)*repeat, o.Err)
			}
			if o.Run == nil || o.Status == metrics.StatusInterrupted || ctx.Err() != nil {
				return out, nil
			}
		}
	}
	return out, nil
}

// ProfileStore is what reading profiles needs of the jobs repository;
// *jobs.Repo is one.
type ProfileStore interface {
	List(ctx context.Context, f jobs.ListFilter) ([]jobs.Job, error)
	Get(ctx context.Context, id int64) (jobs.Job, error)
	Config(ctx context.Context, id int64) (map[string]string, error)
	RunResult(ctx context.Context, id int64) (*metrics.RunResult, error)
	JobsWithSetting(ctx context.Context, key, value string) ([]int64, error)
}

var _ ProfileStore = (*jobs.Repo)(nil)

// ProfileOf returns the profile job id belongs to (its first job's id),
// or an error matching ErrNotProfile (jobs.ErrNotFound for no such job).
func ProfileOf(ctx context.Context, st ProfileStore, id int64) (int64, error) {
	if _, err := st.Get(ctx, id); err != nil {
		return 0, err
	}
	cfg, err := st.Config(ctx, id)
	if err != nil {
		return 0, err
	}
	root, err := strconv.ParseInt(cfg[SettingProfile], 10, 64)
	if err != nil || root < 1 {
		return 0, fmt.Errorf("job %d: %w", id, ErrNotProfile)
	}
	return root, nil
}

// LoadProfile reads back the profile job id belongs to (id is its first
// job or any of its jobs): its steps by VU count, ascending, each with its
// trials' figures (report.ProfileStep).
func LoadProfile(ctx context.Context, st ProfileStore, id int64) (report.Profile, error) {
	root, err := ProfileOf(ctx, st, id)
	if err != nil {
		return report.Profile{}, err
	}
	first, err := st.Get(ctx, root)
	if err != nil {
		return report.Profile{}, fmt.Errorf("profile %d: %w", root, err)
	}
	p := report.Profile{ID: root, Workload: first.Workload, DB: first.DBVersion, CreatedAt: first.CreatedAt}
	if p.DB == "" {
		p.DB = first.DBKind
	}
	if p.Settings, err = st.Config(ctx, root); err != nil {
		return p, err
	}
	ids, err := st.JobsWithSetting(ctx, SettingProfile, strconv.FormatInt(root, 10))
	if err != nil {
		return p, err
	}
	if !slices.Contains(ids, root) {
		ids = append([]int64{root}, ids...)
	}
	steps := map[int]*report.ProfileStep{}
	for _, jid := range ids {
		j, err := st.Get(ctx, jid)
		if errors.Is(err, jobs.ErrNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return p, err
		}
		if j.Kind != jobs.KindRun {
			continue // a build between steps (--between rebuild) belongs to the profile, but is no step
		}
		cfg, err := st.Config(ctx, jid)
		if err != nil {
			return p, err
		}
		vu, err := strconv.Atoi(cfg[SettingProfileVU])
		if err != nil {
			vu, _ = strconv.Atoi(cfg["vu"]) // recorded without its step: its spec's VUs
		}
		r, err := st.RunResult(ctx, jid)
		if err != nil {
			return p, err
		}
		step := steps[vu]
		if step == nil {
			step = &report.ProfileStep{VUs: vu}
			steps[vu] = step
		}
		step.Trials = append(step.Trials, report.TrialOf(jid, j.Status, r))
	}
	for _, s := range steps {
		p.Steps = append(p.Steps, *s)
	}
	slices.SortFunc(p.Steps, func(a, b report.ProfileStep) int { return a.VUs - b.VUs })
	return p, nil
}

// ListProfiles returns the profiles in the repository, newest first.
func ListProfiles(ctx context.Context, st ProfileStore) ([]report.Profile, error) {
	list, err := st.List(ctx, jobs.ListFilter{Kind: jobs.KindRun})
	if err != nil {
		return nil, err
	}
	var out []report.Profile
	for _, j := range list {
		cfg, err := st.Config(ctx, j.ID)
		if errors.Is(err, jobs.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if cfg[SettingProfile] != strconv.FormatInt(j.ID, 10) {
			continue
		}
		p, err := LoadProfile(ctx, st, j.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
