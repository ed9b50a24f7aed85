package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/report"
)

// The views are what the commands that read jobs print (jobs, jobs show,
// jobs diff, jobs hlog, compare, profile show and profile list), rendered where
// the jobs are: by the CLI from its own repository, or by a server (GET
// /api/view/{name}) for a CLI driving it, which then prints the server's
// bytes as they are. The typed results they are drawn from (NaN for what
// was not measured, encoded histograms) do not survive the API's JSON
// shapes, so a remote command prints exactly what a local one would only
// when the same code renders both.

// The views (View.Name).
const (
	ViewJobs     = "jobs"     // jobs [--kind K] [--status S] [--limit N]
	ViewShow     = "show"     // jobs show ID [SECTION]
	ViewDiff     = "diff"     // jobs diff A B
	ViewCompare  = "compare"  // compare A B
	ViewProfile  = "profile"  // profile show ID
	ViewProfiles = "profiles" // profile list
	ViewHlog     = "hlog"     // jobs hlog ID --tx TX
	ViewExport   = "export"   // jobs export ID... (the file, JSON; gzip is the writer's)
	ViewSLO      = "slo"      // slo show ID
)

// The formats a view is written in (View.Format).
const (
	FormatText = "text"
	FormatJSON = "json"
	FormatHTML = "html" // profile, slo and compare (of two profiles) only
)

// viewIDs is how many job ids each view takes.
// (-1: one or more).
var viewIDs = map[string]int{ViewJobs: 0, ViewShow: 1, ViewDiff: 2, ViewCompare: 2, ViewProfile: 1, ViewProfiles: 0, ViewHlog: 1,
	ViewExport: -1, ViewSLO: 1}

// ViewNames are the views, for a front end that lists them.
var ViewNames = []string{ViewJobs, ViewShow, ViewDiff, ViewCompare, ViewProfile, ViewProfiles, ViewHlog, ViewExport, ViewSLO}

// View is one view of the jobs: which, of which jobs, in which format.
type View struct {
	Name    string
	IDs     []int64
	Section string // show: one of report.Sections, "" for the summary
	Tx      string // hlog: the transaction type
	Format  string // FormatText (also for ""), FormatJSON or FormatHTML
	// Filter is which jobs the jobs view lists.
	Filter jobs.ListFilter
}

// Validate reports what is wrong with v as field errors (name, id,
// section, tx, format, and the filter's kind, status and limit).
func (v View) Validate() error {
	n, ok := viewIDs[v.Name]
	if !ok {
		return config.FieldErrors{{Field: "name", Msg: fmt.Sprintf("view %q: want one of %v", v.Name, ViewNames)}}
	}
	fe := config.Fields(v.Filter.Validate())
	switch {
	case n < 0 && len(v.IDs) == 0:
		fe = append(fe, config.FieldError{Field: "id", Msg: fmt.Sprintf("view %s takes one or more job ids, got none", v.Name)})
	case n >= 0 && len(v.IDs) != n:
		fe = append(fe, config.FieldError{Field: "id", Msg: fmt.Sprintf("view %s takes %d job ids, got %d", v.Name, n, len(v.IDs))})
	}
	for _, id := range v.IDs {
		if id < 1 {
			fe = append(fe, config.FieldError{Field: "id", Msg: fmt.Sprintf("bad job id %d: want a positive number", id)})
		}
	}
	if v.Section != "" && (v.Name != ViewShow || !slices.Contains(report.SectionNames(), v.Section)) {
		fe = append(fe, config.FieldError{Field: "section", Msg: fmt.Sprintf("section %q: not a section of view %s", v.Section, v.Name)})
	}
	if v.Name == ViewHlog && v.Tx == "" {
		fe = append(fe, config.FieldError{Field: "tx", Msg: "tx: name the transaction type"})
	}
	switch v.Format {
	case "", FormatText, FormatJSON:
		if v.Name == ViewHlog && v.Format == FormatJSON {
			fe = append(fe, config.FieldError{Field: "format", Msg: "format json: an interval log is text"})
		}
		if v.Name == ViewExport && v.Format == FormatText {
			fe = append(fe, config.FieldError{Field: "format", Msg: "format text: an export is JSON"})
		}
	case FormatHTML:
		if v.Name != ViewProfile && v.Name != ViewCompare && v.Name != ViewSLO {
			fe = append(fe, config.FieldError{Field: "format", Msg: "format html: only for a profile, an SLO search or a comparison of two profiles"})
		}
	default:
		fe = append(fe, config.FieldError{Field: "format", Msg: fmt.Sprintf("format %q: want text, json or html", v.Format)})
	}
	if fe != nil {
		return fe
	}
	return nil
}

// ParseJobIDs reads job ids as a front end takes them, all of them before
// anything is done: a typo must not leave half a list deleted.
func ParseJobIDs(args []string) ([]int64, error) {
	ids := make([]int64, 0, len(args))
	for _, s := range args {
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil || id <= 0 {
			return nil, fmt.Errorf("bad job id %q: want a positive number (see `sledge jobs`)", s)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// RecordedStore is what Recorded reads of the jobs repository (and
// deletes); *jobs.Repo is one.
type RecordedStore interface {
	report.Store
	ProfileStore
	report.IntervalLogStore
	DeleteStopped(ctx context.Context, id int64, force bool) error
	Path() string
	Export(ctx context.Context, ids []int64, sledgeVersion string, now time.Time) (*jobs.ExportFile, error)
	Import(ctx context.Context, f *jobs.ExportFile, now time.Time) ([]jobs.Imported, error)
}

var _ RecordedStore = (*jobs.Repo)(nil)

// Recorded are the jobs recorded in a repository as the commands that read,
// delete, export and import them see them. Version is Sledge's, written in
// an export.
type Recorded struct {
	Store   RecordedStore
	Version string
}

// Import loads the jobs of an export (jobs.ReadExport) into the repository
// as read-only jobs with new ids, all or none (jobs.Repo.Import).
func (r Recorded) Import(ctx context.Context, f *jobs.ExportFile) ([]jobs.Imported, error) {
	return r.Store.Import(ctx, f, time.Now())
}

// Importer is where exported files are imported: a repository
// (Recorded) or a sledge serve (server.Client).
type Importer interface {
	Import(ctx context.Context, f *jobs.ExportFile) ([]jobs.Imported, error)
}

// ImportFiles imports each file (read before, so that a bad one imports
// nothing) through im, saying on w which job each became; a file that
// does not import is an error named by its name (names[i] is files[i]'s),
// and the others are imported still.
func ImportFiles(ctx context.Context, im Importer, names []string, files []*jobs.ExportFile, w io.Writer) error {
	var errs []error
	for i, f := range files {
		imported, err := im.Import(ctx, f)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", names[i], err))
			continue
		}
		for _, j := range imported {
			fmt.Fprintf(w, "imported job %d of %s as job %d\n", j.From, j.Origin.Host, j.ID)
		}
	}
	return errors.Join(errs...)
}

// Delete deletes a job and everything recorded with it, unless it is still
// running (a *jobs.RunningError) and not forced.
func (r Recorded) Delete(ctx context.Context, id int64, force bool) error {
	return r.Store.DeleteStopped(ctx, id, force)
}

// View writes view v to w. A job that does not exist is an error matching
// jobs.ErrNotFound; a job of no profile (profile) ErrNotProfile; a
// transaction type the job lacks (hlog) a field error of tx, and html for
// two jobs that are not both profiles (compare) a field error of format,
// each naming the job.
func (r Recorded) View(ctx context.Context, w io.Writer, v View) error {
	if err := v.Validate(); err != nil {
		return err
	}
	st, asJSON := r.Store, v.Format == FormatJSON
	switch v.Name {
	case ViewJobs:
		list, err := st.List(ctx, v.Filter)
		if err != nil {
			return err
		}
		return report.JobList(w, list, st.Path(), asJSON)
	case ViewShow:
		// Get first: a missing job is "no job N" whatever the section.
		j, err := st.Get(ctx, v.IDs[0])
		if err != nil {
			return err
		}
		return report.Show(ctx, w, st, j, v.Section, asJSON)
	case ViewDiff:
		return r.diff(ctx, w, v.IDs, asJSON)
	case ViewHlog:
		j, err := st.Get(ctx, v.IDs[0])
		if err != nil {
			return err
		}
		err = report.IntervalLog(ctx, w, st, j, v.Tx)
		var unknown *report.UnknownTxError
		if errors.As(err, &unknown) {
			return config.FieldErrors{{Field: "tx", Msg: "tx " + unknown.Tx + ": " + unknown.Why()}}
		}
		return err
	case ViewProfile:
		p, err := LoadProfile(ctx, st, v.IDs[0])
		if errors.Is(err, ErrNotProfile) {
			return notProfileError{v.IDs[0]}
		}
		if err != nil {
			return err
		}
		if v.Format == FormatHTML {
			return report.ProfileHTML(w, p)
		}
		return report.ProfileShow(w, p, asJSON)
	case ViewSLO:
		o, err := LoadSLO(ctx, st, v.IDs[0])
		if errors.Is(err, ErrNotSLO) {
			return notSLOError{v.IDs[0]}
		}
		if err != nil {
			return err
		}
		if v.Format == FormatHTML {
			return report.SLOHTML(w, o)
		}
		return report.SLOShow(w, o, asJSON)
	case ViewExport:
		f, err := st.Export(ctx, v.IDs, r.Version, time.Now())
		if err != nil {
			return err
		}
		return jobs.WriteExport(w, f, false)
	case ViewProfiles:
		ps, err := ListProfiles(ctx, st)
		if err != nil {
			return err
		}
		return report.ProfileList(w, ps, asJSON)
	}
	// ViewCompare: two profiles step by step, else two jobs as diff.
	a, b, profiles, err := ProfilePair(ctx, st, v.IDs[0], v.IDs[1])
	switch {
	case err != nil:
		return err
	case !profiles && v.Format == FormatHTML:
		return config.FieldErrors{{Field: "format", Msg: fmt.Sprintf("only for two profiles (jobs %d and %d are not both the first jobs of profiles; see `sledge profile list`)", v.IDs[0], v.IDs[1])}}
	case !profiles:
		return r.diff(ctx, w, v.IDs, asJSON)
	case v.Format == FormatHTML:
		return report.ProfileCompareHTML(w, a, b)
	}
	return report.ProfileCompare(w, a, b, asJSON)
}

// diff writes jobs ids[0] and ids[1] side by side (jobs diff A B).
func (r Recorded) diff(ctx context.Context, w io.Writer, ids []int64, asJSON bool) error {
	a, err := r.Store.Get(ctx, ids[0])
	if err != nil {
		return err
	}
	b, err := r.Store.Get(ctx, ids[1])
	if err != nil {
		return err
	}
	return report.Diff(ctx, w, r.Store, a, b, asJSON)
}

// notProfileError is profile's error for a job of no profile.
type notProfileError struct{ id int64 }

func (e notProfileError) Error() string {
	return fmt.Sprintf("job %d is not part of a profile (see `sledge profile list`)", e.id)
}
func (e notProfileError) Is(target error) bool { return target == ErrNotProfile }

// notSLOError is slo show's error for a job of no SLO search.
type notSLOError struct{ id int64 }

func (e notSLOError) Error() string {
	return fmt.Sprintf("job %d is not part of an SLO search (its steps record the setting slo: sledge jobs show ID config)", e.id)
}
func (e notSLOError) Is(target error) bool { return target == ErrNotSLO }
