package script

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/config"
)

// Do runs one HammerDB action with the session state st: buildschema,
// checkschema, deleteschema and vurun run a job through svc (its output
// streamed to w, ending with "SLEDGE-JOB ID STATUS"); librarycheck and
// datagenrun are not jobs. Do prints its errors on w, worded as HammerDB
// settings ("Error: vuset vu: vu must be at least 1 (got 0)"), and returns
// ExitError{1} when the action failed; no SLEDGE-JOB line is printed for a
// job that was never created. It is `sledge cli do ACTION`, the Tcl and
// Python front ends' contract.
func Do(ctx context.Context, w io.Writer, svc *app.Service, action string, st *State) error {
	h, err := newHammer(st)
	if err != nil {
		return failed(w, err, nil)
	}
	switch action {
	case "librarycheck":
		return librarycheck(ctx, w, st)
	case "datagenrun":
		return h.datagen(ctx, w)
	case "buildschema", "checkschema", "deleteschema", "vurun":
	default:
		return failed(w, fmt.Errorf("cli do: unknown action %q", action), nil)
	}
	spec, err := h.spec(action)
	if err != nil {
		return failed(w, err, h.setting)
	}
	// Nothing is created (not even the database) for settings that cannot run.
	if err := svc.Validate(spec); err != nil {
		return failed(w, err, h.setting)
	}
	if action == "buildschema" {
		if err := ensureDatabase(ctx, w, h); err != nil {
			return failed(w, err, nil)
		}
	}
	h.reportUnused(w)
	out := w
	if action == "vurun" && h.vu("showoutput") == "0" {
		out = io.Discard
	}
	o, err := svc.Run(ctx, app.Request{Spec: spec, Console: out, Settings: h.settings()})
	if o.ID == 0 {
		return failed(w, err, h.setting)
	}
	if action == "vurun" && o.Run != nil {
		// HammerDB's line, naming the product the server reported.
		if j, jerr := svc.Repo().Get(context.WithoutCancel(ctx), o.ID); jerr == nil {
			fmt.Fprintln(w, TestResult(j, o.Run))
		}
	}
	return finish(w, o, err)
}

// hammer resolves HammerDB keys for the chosen database.
type hammer struct {
	st      *State
	prefix  string // pg_ | maria_ | mysql_
	product string // PostgreSQL | MariaDB | MySQL
	notices []string
	used    map[string]bool // dict.key of every setting read
}

func newHammer(st *State) (*hammer, error) {
	h := &hammer{st: st, used: map[string]bool{}}
	switch strings.ToLower(st.DB) {
	case "", "pg", "postgres", "postgresql":
		h.prefix, h.product = "pg_", "PostgreSQL"
	case "maria", "mariadb":
		h.prefix, h.product = "maria_", "MariaDB"
	case "mysql":
		h.prefix, h.product = "mysql_", "MySQL"
	default:
		return nil, fmt.Errorf("dbset db %s: Sledge drives pg, maria and mysql (and its embedded databases through its own CLI)", st.DB)
	}
	return h, nil
}

// dictOrder is where a key is looked up: HammerDB's connection dict, then the
// benchmarks'.
var dictOrder = []string{"connection", "tpcc", "tpch"}

// get returns a key (without prefix) from the connection, tpcc or tpch dict.
func (h *hammer) get(key, def string) string {
	for _, d := range dictOrder {
		if v, ok := h.st.Dicts[d][h.prefix+key]; ok {
			h.used[d+"."+h.prefix+key] = true
			return v
		}
	}
	return def
}

// diset names the setting of a key (without prefix) as a script sets it:
// "diset tpcc pg_count_ware", in the dict that holds it, else the
// benchmark's dict.
func (h *hammer) diset(key string) string {
	for _, d := range dictOrder {
		if _, ok := h.st.Dicts[d][h.prefix+key]; ok {
			return "diset " + d + " " + h.prefix + key
		}
	}
	return "diset " + h.benchDict() + " " + h.prefix + key
}

// benchDict is the dict of the chosen benchmark's settings.
func (h *hammer) benchDict() string {
	if h.tpch() {
		return "tpch"
	}
	return "tpcc"
}

// vu returns a vuset setting, HammerDB's default when the state has none.
func (h *hammer) vu(key string) string {
	if v, ok := h.st.VU[key]; ok {
		return v
	}
	return vuDefaults[key]
}

func (h *hammer) tpch() bool {
	bm := strings.ToUpper(strings.ReplaceAll(h.st.BM, "-", ""))
	return bm == "TPCH" || bm == "TPROCH"
}

func (h *hammer) notice(format string, args ...any) {
	h.notices = append(h.notices, fmt.Sprintf(format, args...))
}

func truthy(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// url builds the target database URL from the connection settings.
func (h *hammer) url() string {
	user, pass, dbase := "user", "pass", "dbase"
	def := "tpcc"
	if h.tpch() {
		user, pass, dbase = "tpch_user", "tpch_pass", "tpch_dbase"
		def = "tpch"
	}
	switch h.prefix {
	case "pg_":
		u := &url.URL{Scheme: "postgres", Host: h.get("host", "localhost") + ":" + h.get("port", "5432"),
			Path: "/" + h.get(dbase, def)}
		u.User = url.UserPassword(h.get(user, def), h.get(pass, def))
		q := url.Values{}
		if !truthy(h.get("sslmode_require", "false")) {
			q.Set("sslmode", "disable")
		}
		u.RawQuery = q.Encode()
		return u.String()
	default:
		u := &url.URL{Scheme: "mysql", Path: "/" + h.get(dbase, def)}
		u.User = url.UserPassword(h.get(user, "root"), h.get(pass, "mysql"))
		if sock := h.get("socket", ""); sock != "" && sock != "null" {
			u.RawQuery = url.Values{"socket": {sock}}.Encode()
		} else {
			u.Host = h.get("host", "127.0.0.1") + ":" + h.get("port", "3306")
		}
		return u.String()
	}
}

// minutes reads a HammerDB duration in minutes (fractions allowed here).
// Its value is checked by the spec's rules (a negative ramp-up is refused
// there, worded as this setting).
func (h *hammer) minutes(key, def string) (config.Duration, error) {
	v := h.get(key, def)
	m, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		return 0, fmt.Errorf("%s %q: want minutes", h.diset(key), v)
	}
	return config.Duration(m * float64(time.Minute)), nil
}

func (h *hammer) intKey(key, def string) (int, error) {
	v := h.get(key, def)
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return 0, fmt.Errorf("%s %q: want a whole number", h.diset(key), v)
	}
	return n, nil
}

func (h *hammer) floatKey(key, def string) (float64, error) {
	v := h.get(key, def)
	x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		return 0, fmt.Errorf("%s %q: want a number", h.diset(key), v)
	}
	return x, nil
}

// spec maps the session's settings onto the job an action runs: the
// settings of the chosen database and benchmark on top of Sledge's
// defaults. It reads the state only (the keys it reads are not reported as
// unused, see reportUnused); the spec's own rules are the job service's.
func (h *hammer) spec(action string) (config.Spec, error) {
	var s config.Spec
	switch action {
	case "buildschema":
		s = config.New(config.KindBuild)
	case "checkschema":
		if h.tpch() {
			return s, fmt.Errorf("checkschema: Sledge checks TPROC-C schemas (TPROC-H answers are validated with --validate runs)")
		}
		s = config.New(config.KindCheck)
	case "deleteschema":
		s = config.New(config.KindDrop)
		s.Confirm = true // the script's own command says to delete
	case "vurun":
		s = config.New(config.KindRun)
	default:
		return s, fmt.Errorf("cli do: %s runs no job", action)
	}
	s.DB = h.url()
	s.Workload = "tprocc"
	if h.tpch() {
		s.Workload = "tproch"
	}
	var err error
	switch {
	case s.Kind == config.KindBuild && h.tpch():
		if s.Scale, err = h.floatKey("scale_fact", "1"); err != nil {
			return s, err
		}
		if s.Workers, err = h.intKey("num_tpch_threads", "1"); err != nil {
			return s, err
		}
	case s.Kind == config.KindBuild:
		if s.Warehouses, err = h.intKey("count_ware", "1"); err != nil {
			return s, err
		}
		if s.Workers, err = h.intKey("num_vu", "1"); err != nil {
			return s, err
		}
		if h.prefix != "pg_" {
			h.get("no_stored_procs", "false") // read: procedures are installed either way
		}
	case s.Kind == config.KindRun:
		return s, h.runSpec(&s)
	}
	return s, nil
}

// runSpec maps vurun's settings.
func (h *hammer) runSpec(s *config.Spec) error {
	v := h.vu("vu")
	vus, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return fmt.Errorf("vuset vu %q: want a whole number of virtual users", v)
	}
	s.VU = vus
	if h.tpch() {
		if vus > 1 {
			s.Streams = vus // HammerDB's VUs are the query streams
		}
		if s.QuerySets, err = h.intKey("total_querysets", "1"); err != nil {
			return err
		}
		s.Refresh = truthy(h.get("refresh_on", "false"))
		h.get("degree_of_parallel", "")
	} else {
		driver := h.get("driver", "test")
		timed := driver == "timed"
		if !timed {
			h.notice("%sdriver %s: Sledge runs are timed; using a 0 ramp-up and a 1-minute window unless rampup/duration are set", h.prefix, driver)
		}
		if s.Rampup, err = h.minutes("rampup", map[bool]string{true: "2", false: "0"}[timed]); err != nil {
			return err
		}
		if s.Duration, err = h.minutes("duration", map[bool]string{true: "5", false: "1"}[timed]); err != nil {
			return err
		}
		if d := s.Duration.D(); d < 10*time.Second {
			s.Interval = config.Duration(max(time.Second, d/3))
		}
		if h.prefix != "pg_" && truthy(h.get("no_stored_procs", "false")) {
			s.Mode = "sql"
		}
		if truthy(h.get("keyandthink", "false")) {
			s.Pacing, s.PacingScale = "spec", 1
		}
		h.get("count_ware", "")
		h.get("num_vu", "")
	}
	notes := map[string]string{"delay": "VUs start together after the ramp-up stagger", "repeat": "not applicable",
		"iterations": "runs are timed", "logtotemp": "output is stored with the job (sledge jobs show ID output)",
		"unique": "not applicable", "timestamps": "output lines are stored with times"}
	keys := make([]string, 0, len(notes))
	for k := range notes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if v, ok := h.st.VU[k]; ok && v != vuDefaults[k] {
			h.notice("vuset %s %s: %s", k, v, notes[k])
		}
	}
	return nil
}

var vuDefaults = map[string]string{"vu": "1", "delay": "500", "repeat": "500", "iterations": "1", "showoutput": "1",
	"logtotemp": "0", "unique": "0", "timestamps": "0"}

// setting names the HammerDB setting that set a spec field, for errors:
// field "vu" is "vuset vu", "warehouses" "diset tpcc pg_count_ware" …;
// a field no setting maps onto keeps its name.
func (h *hammer) setting(field string) string {
	switch field {
	case "vu", "streams":
		return "vuset vu"
	case "warehouses":
		return h.diset("count_ware")
	case "workers":
		if h.tpch() {
			return h.diset("num_tpch_threads")
		}
		return h.diset("num_vu")
	case "duration":
		return h.diset("duration")
	case "rampup":
		return h.diset("rampup")
	case "scale":
		return h.diset("scale_fact")
	case "query_sets":
		return h.diset("total_querysets")
	case "refresh":
		return h.diset("refresh_on")
	case "pacing", "pacing_scale":
		return h.diset("keyandthink")
	case "mode":
		if h.prefix != "pg_" {
			return h.diset("no_stored_procs")
		}
	}
	return field
}

// settings are recorded with the job besides the spec's: the HammerDB
// settings of the chosen database (jobs ID dict) and the performance
// profile (jobs profile N).
func (h *hammer) settings() map[string]string {
	kv := map[string]string{}
	for d, dict := range h.st.Dicts {
		for k, v := range dict {
			if strings.HasPrefix(k, h.prefix) {
				kv[ConfigPrefix+d+"."+k] = v
			}
		}
	}
	if h.st.ProfileID > 0 {
		kv[ConfigProfileID] = strconv.Itoa(h.st.ProfileID)
	}
	return kv
}

// unsupported lists keys Sledge accepts but does not honour, with why ("":
// read elsewhere, no notice).
var unsupported = map[string]string{
	"total_iterations":   "runs are timed: the iteration count is not used",
	"allwarehouse":       "VUs are spread evenly over the warehouses (use sledge run --random-home for random ones)",
	"raiseerror":         "errors are always counted by class and the VU carries on",
	"timeprofile":        "latency histograms are always recorded",
	"partition":          "tables are not partitioned",
	"vacuum":             "the build freezes and analyzes; no vacuum after runs",
	"dritasnap":          "not applicable",
	"oracompat":          "not applicable",
	"pg_storedprocs":     "PostgreSQL always uses Sledge's functions in procs mode",
	"async_scale":        "not implemented",
	"async_client":       "not implemented",
	"async_verbose":      "not implemented",
	"async_delay":        "not implemented",
	"connect_pool":       "one session per VU",
	"tablespace":         "the default tablespace is used",
	"degree_of_parallel": "the database's own parallelism settings apply",
	"history_pk":         "not implemented",
	"purge":              "not implemented",
	"prepared":           "statements are always prepared",
	"rowcount":           "not applicable",
	"storage_engine":     "use sledge build --engine",
	"no_stored_procs":    "",
	"timedriver":         "",
}

// reportUnused prints a notice for every setting of the database's dicts
// that no mapping read, then the mapping's own notices.
func (h *hammer) reportUnused(w io.Writer) {
	var keys []string
	for d, kv := range h.st.Dicts {
		for k := range kv {
			if !strings.HasPrefix(k, h.prefix) || h.used[d+"."+k] {
				continue
			}
			keys = append(keys, d+"."+k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		d, key, _ := strings.Cut(k, ".")
		why, ok := unsupported[strings.TrimPrefix(key, h.prefix)]
		if !ok {
			why = "not used by Sledge"
		}
		if why == "" {
			continue
		}
		fmt.Fprintf(w, "Notice: %s = %s is accepted but not honoured: %s\n", k, h.st.Dicts[d][key], why)
	}
	for _, n := range h.notices {
		fmt.Fprintf(w, "Notice: %s\n", n)
	}
}

// datagen is datagenrun: the benchmark's data as flat files (dgset
// directory, virtual_users, warehouses, scale_fact). It is not a job.
func (h *hammer) datagen(ctx context.Context, w io.Writer) error {
	dg := func(key, def string) string {
		if v := strings.TrimSpace(h.st.DG[key]); v != "" {
			return v
		}
		return def
	}
	req := app.NewDatagen()
	req.Dir = dg("directory", filepath.Join(os.TempDir(), "sledge-datagen"))
	var err error
	if req.Spec.Workers, err = strconv.Atoi(dg("virtual_users", "0")); err != nil {
		return failed(w, fmt.Errorf("dgset virtual_users %q: want a whole number", h.st.DG["virtual_users"]), nil)
	}
	if h.tpch() {
		req.Spec.Workload = "tproch"
		if req.Spec.Scale, err = strconv.ParseFloat(dg("scale_fact", "1"), 64); err != nil {
			return failed(w, fmt.Errorf("dgset scale_fact %q: want a number", h.st.DG["scale_fact"]), nil)
		}
	} else {
		req.Spec.Workload = "tprocc"
		if req.Spec.Warehouses, err = strconv.Atoi(dg("warehouses", "1")); err != nil {
			return failed(w, fmt.Errorf("dgset warehouses %q: want a whole number", h.st.DG["warehouses"]), nil)
		}
	}
	if err := app.Datagen(ctx, w, req); err != nil {
		return failed(w, err, func(field string) string {
			switch field {
			case "out":
				return "dgset directory"
			case "warehouses":
				return "dgset warehouses"
			case "scale":
				return "dgset scale_fact"
			}
			return field
		})
	}
	return nil
}
