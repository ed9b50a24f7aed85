package script

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload"
)

// Do runs one HammerDB action with the session state st: buildschema,
// checkschema, deleteschema, vurun and steprun (vurun's run with the steps
// of steps.xml as its stages) run a job through svc (its output
// streamed to w, ending with "SLEDGE-JOB ID STATUS"); librarycheck and
// datagenrun are not jobs. Do prints its errors on w, worded as HammerDB
// settings ("Error: vuset vu: vu must be at least 1 (got 0)"), and returns
// ExitError{1} when the action failed; no SLEDGE-JOB line is printed for a
// job that was never created, unless its virtual users were shown failing
// ("SLEDGE-JOB 0 failed": the front ends stop the script on it). It is `sledge cli do ACTION`, the Tcl and
// Python front ends' contract.
//
// A job's output is shown as HammerDB shows its virtual users' (see
// vuserOutput): "Vuser 1:" lines between every VU's RUNNING and FINISHED
// lines, a run's "N Active Virtual Users configured" and "TEST RESULT"
// lines last (stored with the job's output too, as HammerDB's jobs ID 1 has
// them), and with vuset logtotemp 1 HammerDB's log file as well.
func Do(ctx context.Context, w io.Writer, svc *app.Service, env Env, action string, st *State) error {
	h, err := newHammer(st, env)
	if err != nil {
		return failed(w, err, nil)
	}
	switch action {
	case "librarycheck":
		return librarycheck(ctx, w, st)
	case "datagenrun":
		return h.datagen(ctx, w)
	case "buildschema", "checkschema", "deleteschema", "vurun", "steprun":
	default:
		return failed(w, fmt.Errorf("cli do: unknown action %q", action), nil)
	}
	spec, err := h.spec(action)
	for _, l := range h.lines {
		fmt.Fprintln(w, l)
	}
	if err != nil {
		return failed(w, err, h.setting)
	}
	// Nothing is created (not even the database) for settings that cannot run.
	if err := svc.Validate(spec); err != nil {
		return failed(w, err, h.setting)
	}
	h.report(w)
	log := h.openLog(w)
	if l := h.header(spec); l != "" {
		fmt.Fprintln(w, l)
	}
	words := wording{name: h.setting, advice: h.schemaAdvice}
	o, err, shown := h.job(ctx, w, svc, action, spec, log, words)
	if lerr := log.Close(); lerr != nil {
		fmt.Fprintf(w, "Error: %v\n", lerr) // before the SLEDGE-JOB line, which is the last
	}
	if shown {
		// The virtual users were shown failing: the front ends learn it from
		// the SLEDGE-JOB line (ID 0 when no job was created), the error having
		// been shown as the virtual user's.
		fmt.Fprintf(w, "%s %d %s\n", JobLine, o.ID, cmp.Or(o.Status, metrics.StatusFailed))
		return ExitError{Code: 1}
	}
	if o.ID == 0 {
		return failed(w, err, h.setting)
	}
	return finish(w, o, err, words)
}

// job runs the action's job (buildschema first makes sure of its database)
// with its output shown, and logged to log, as HammerDB's virtual users';
// a TPROC-H run's queries are shown by stream as they start and end
// (streamConsole).
// shown tells that the virtual users were shown ending without success,
// after their error as HammerDB shows it ("Error in Virtual User 1: …").
func (h *hammer) job(ctx context.Context, w io.Writer, svc *app.Service, action string, spec config.Spec, log *hammerLog, words wording) (o app.Outcome, err error, shown bool) {
	out := newVuserOutput(w, vusers(spec), !h.running() || h.vu("showoutput") != "0", log)
	if action == "buildschema" {
		if err := ensureDatabase(ctx, out, h); err != nil {
			shown = out.failure(errorText(err, words))
			out.finish(metrics.StatusFailed)
			return app.Outcome{}, err, shown
		}
	}
	settings := h.settings()
	settings[ConfigDB] = h.product // HammerDB names jobs by the db chosen, not the server's product
	req := app.Request{Spec: spec, Console: out, Settings: settings}
	var streams *streamConsole
	if spec.Kind == config.KindRun && spec.Workload == "tproch" {
		streams = newStreamConsole(out)
		req.Queries, req.QueryStarts = streams.query, streams.started
	}
	o, err = svc.Run(ctx, req)
	streams.flush()
	if o.ID != 0 && h.running() && o.Run != nil {
		h.closeRun(ctx, w, svc, out, o)
		h.afterRun(ctx, svc, spec, out)
	}
	failure := err
	if failure == nil && o.ID != 0 && !o.OK() {
		failure = o.Err // interrupted: why it stopped
	}
	if failure != nil {
		shown = out.failure(errorText(failure, words))
	}
	out.finish(cmp.Or(o.Status, metrics.StatusFailed))
	return o, err, shown
}

// header is the line HammerDB's schema actions print before their virtual
// users start, naming what they do with how many: "Building 1
// Warehouses(s) with 1 Virtual User", "Building 4 Warehouses with 3
// Virtual Users, 2 active + 1 Monitor VU(dict value pg_num_vu is set to
// 2)", "Building Scale Factor 1 with …" (HammerDB words TPROC-H's thus
// for one loading VU too), "Checking schema with 1 Virtual User",
// "Deleting schema with 1 Virtual User"; "" for a run. The numbers are
// those the job uses (vusers).
func (h *hammer) header(s config.Spec) string {
	switch s.Kind {
	case config.KindCheck:
		return "Checking schema with 1 Virtual User"
	case config.KindDrop:
		return "Deleting schema with 1 Virtual User"
	case config.KindBuild:
	default:
		return ""
	}
	n := vusers(s)
	active := max(1, n-1)
	if s.Workload == "tproch" {
		return fmt.Sprintf("Building Scale Factor %s with %d Virtual Users, %d active + 1 Monitor VU(dict value %snum_tpch_threads is set to %d)",
			strconv.FormatFloat(s.Scale, 'g', -1, 64), n, active, h.prefix, active)
	}
	if n == 1 {
		return fmt.Sprintf("Building %d Warehouses(s) with 1 Virtual User", s.Warehouses)
	}
	return fmt.Sprintf("Building %d Warehouses with %d Virtual Users, %d active + 1 Monitor VU(dict value %snum_vu is set to %d)",
		s.Warehouses, n, active, h.prefix, active)
}

// closeRun ends a TPROC-C run's VU 1 output with HammerDB's result lines,
// naming the database as the script chose it ("MySQL TPM" after dbset db
// mysql, whatever the server is), and stores them with the job's output.
func (h *hammer) closeRun(ctx context.Context, w io.Writer, svc *app.Service, out *vuserOutput, o app.Outcome) {
	lines := []string{fmt.Sprintf("%d Active Virtual Users configured", o.Run.VUs), TestResult(h.product, o.Run)}
	stored := make([]jobs.OutputLine, len(lines))
	for i, l := range lines {
		out.line(l)
		stored[i] = jobs.OutputLine{Line: l}
	}
	if err := svc.Repo().AppendOutputLines(context.WithoutCancel(ctx), o.ID, stored); err != nil {
		fmt.Fprintf(w, "Warning: %v\n", err)
	}
}

// schemaAdvice is what a script can do about what a job found about the
// workload's schema, in HammerDB's commands and settings; "" for other
// errors.
func (h *hammer) schemaAdvice(err error) string {
	dbase := "dbase"
	if h.tpch() {
		dbase = "tpch_dbase"
	}
	switch {
	case errors.Is(err, workload.ErrSchemaExists):
		// HammerDB: "Database tpcc exists but is not empty, specify a new
		// or empty database name".
		return "run deleteschema first to drop it, or " + h.diset(dbase) + " a new or empty database"
	case errors.Is(err, workload.ErrNoSchema) && se(err).Holds != "":
		return "the database holds a " + workload.Title(se(err).Holds) + " schema: dbset bm " + workload.Title(se(err).Holds)
	case errors.Is(err, workload.ErrNoSchema):
		return "run buildschema first"
	case errors.Is(err, workload.ErrSchemaUnusable):
		return "run deleteschema, then buildschema"
	}
	return ""
}

// hammer resolves HammerDB keys for the chosen database.
type hammer struct {
	st      *State
	keys    Database // the key table of the chosen database
	prefix  string   // pg_ | maria_ | mysql_
	product string   // PostgreSQL | MariaDB | MySQL
	action  string   // the action whose spec was asked for (spec)
	notices []string
	// lines are printed before the notices: steprun's steps.
	lines []string
	// env is what the process's environment says (temporary directories,
	// HammerDB's configuration directory).
	env Env
	// stepsFile finds steprun's steps.xml (findSteps).
	stepsFile func() (path string, data []byte, err error)
}

func newHammer(st *State, env Env) (*hammer, error) {
	keys, ok := DatabaseNamed(st.DB)
	if !ok {
		return nil, fmt.Errorf("dbset db %s: Sledge drives pg, maria and mysql (and its embedded databases through its own CLI)", st.DB)
	}
	return &hammer{st: st, keys: keys, prefix: keys.Prefix, product: keys.Product, env: env,
		stepsFile: func() (string, []byte, error) { return findSteps(env) }}, nil
}

// running says whether the action runs the workload: vurun, steprun.
func (h *hammer) running() bool { return h.action == "vurun" || h.action == "steprun" }

// dictOrder is where a key is looked up: HammerDB's connection dict, then the
// benchmarks'.
var dictOrder = []string{"connection", "tpcc", "tpch"}

// get returns a key (without prefix) from the connection, tpcc or tpch
// dict, else HammerDB's default from the key table; fallback only stands
// for a key the table does not have.
func (h *hammer) get(key, fallback string) string {
	for _, d := range dictOrder {
		if v, ok := h.st.Dicts[d][h.prefix+key]; ok {
			return v
		}
	}
	if k, ok := h.keys.Lookup(h.keys.DictOf(h.prefix+key), h.prefix+key); ok {
		return k.Default
	}
	return fallback
}

// value is a key's setting or HammerDB's default.
func (h *hammer) value(key string) string { return h.get(key, "") }

// diset names the setting of a key (without prefix) as a script sets it:
// "diset tpcc pg_count_ware", in the dict that holds it, else HammerDB's
// dict of the key, else the benchmark's dict.
func (h *hammer) diset(key string) string {
	for _, d := range dictOrder {
		if _, ok := h.st.Dicts[d][h.prefix+key]; ok {
			return "diset " + d + " " + h.prefix + key
		}
	}
	return "diset " + cmp.Or(h.keys.DictOf(h.prefix+key), h.benchDict()) + " " + h.prefix + key
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

// notice records a notice of the mapping; each is printed once.
func (h *hammer) notice(format string, args ...any) {
	n := fmt.Sprintf(format, args...)
	if !slices.Contains(h.notices, n) {
		h.notices = append(h.notices, n)
	}
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
	if h.tpch() {
		user, pass, dbase = "tpch_user", "tpch_pass", "tpch_dbase"
	}
	host := net.JoinHostPort(h.value("host"), h.value("port"))
	q := url.Values{}
	if h.prefix == "pg_" {
		u := &url.URL{Scheme: "postgres", Host: host, Path: "/" + h.value(dbase)}
		u.User = url.UserPassword(h.value(user), h.value(pass))
		if mode := strings.TrimSpace(h.value("sslmode")); mode != "" {
			q.Set("sslmode", mode)
		}
		u.RawQuery = q.Encode()
		return u.String()
	}
	u := &url.URL{Scheme: "mysql", Path: "/" + h.value(dbase), User: url.User(h.value(user))}
	if p := h.value(pass); !strings.EqualFold(p, "null") { // HammerDB's "no password"
		u.User = url.UserPassword(h.value(user), p)
	}
	if sock, ok := h.socket(); ok {
		q.Set("socket", sock)
	} else {
		u.Host = host
	}
	if b, _ := boolValue(h.value("ssl")); b {
		q.Set("tls", "true")
		h.notice("%s %s: TLS, the server's certificate checked against the system's CA certificates "+
			"(HammerDB's %sssl_* CA path, CA file, client certificate, key and cipher are not used)", h.diset("ssl"), h.value("ssl"), h.prefix)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// socket is the Unix socket HammerDB connects MariaDB and MySQL through:
// the socket setting, when the host is 127.0.0.1 or localhost and the
// socket is not "null". HammerDB would then fail without the socket; Sledge
// connects over TCP instead when it does not exist here, and says so.
func (h *hammer) socket() (string, bool) {
	host, sock := h.value("host"), strings.TrimSpace(h.value("socket"))
	if (host != "127.0.0.1" && !strings.EqualFold(host, "localhost")) || sock == "" || strings.EqualFold(sock, "null") {
		return "", false
	}
	if _, err := os.Stat(sock); err != nil {
		h.notice("%s %s: no such socket here: connecting over TCP to %s (HammerDB connects to %s through the socket)",
			h.diset("socket"), sock, net.JoinHostPort(host, h.value("port")), host)
		return "", false
	}
	return sock, true
}

// minutes reads a HammerDB duration in minutes (fractions allowed, as in
// HammerDB). Its value is checked by the spec's rules (a negative ramp-up
// is refused there, worded as this setting).
func (h *hammer) minutes(key string) (config.Duration, error) {
	v := h.value(key)
	m, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		return 0, fmt.Errorf("%s %q: want minutes", h.diset(key), v)
	}
	return config.Duration(m * float64(time.Minute)), nil
}

func (h *hammer) intKey(key string) (int, error) {
	v := h.value(key)
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return 0, fmt.Errorf("%s %q: want a whole number", h.diset(key), v)
	}
	return n, nil
}

func (h *hammer) floatKey(key string) (float64, error) {
	v := h.value(key)
	x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		return 0, fmt.Errorf("%s %q: want a number", h.diset(key), v)
	}
	return x, nil
}

// spec maps the session's settings onto the job an action runs: the
// settings of the chosen database and benchmark, HammerDB's defaults from
// the key table for the keys not set, on top of Sledge's defaults. It reads
// the state only (the notices it records are printed by report); the
// spec's own rules are the job service's.
func (h *hammer) spec(action string) (config.Spec, error) {
	var s config.Spec
	h.action = action
	switch action {
	case "buildschema":
		s = config.New(config.KindBuild)
	case "checkschema":
		s = config.New(config.KindCheck)
	case "deleteschema":
		s = config.New(config.KindDrop)
		s.Confirm = true // the script's own command says to delete
	case "vurun", "steprun":
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
		if s.Scale, err = h.floatKey("scale_fact"); err != nil {
			return s, err
		}
		if s.Workers, err = h.intKey("num_tpch_threads"); err != nil {
			return s, err
		}
	case s.Kind == config.KindBuild:
		if s.Warehouses, err = h.intKey("count_ware"); err != nil {
			return s, err
		}
		if s.Workers, err = h.intKey("num_vu"); err != nil {
			return s, err
		}
		if h.prefix != "pg_" {
			s.Engine = strings.TrimSpace(h.value("storage_engine"))
		}
	case s.Kind == config.KindRun:
		s.Thresholds = h.st.Thresholds
		if err := h.runSpec(&s); err != nil || action != "steprun" {
			return s, err
		}
		h.lines, err = h.stepSpec(&s)
		return s, err
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
		if s.QuerySets, err = h.intKey("total_querysets"); err != nil {
			return err
		}
		s.Refresh = truthy(h.value("refresh_on"))
	} else if err := h.oltpSpec(s); err != nil {
		return err
	}
	// logtotemp, unique and timestamps are honoured by Do (HammerDB's log).
	notes := map[string]string{"delay": "VUs start together after the ramp-up stagger", "repeat": "not applicable",
		"iterations": "each VU runs the driver once (HammerDB would run the whole driver script that many times)"}
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

// oltpSpec maps the TPROC-C driver's settings: HammerDB's timed driver is a
// timed run; its test driver runs total_iterations transactions per VU
// (an iteration run, without ramp-up or duration).
func (h *hammer) oltpSpec(s *config.Spec) error {
	var err error
	switch driver := strings.ToLower(strings.TrimSpace(h.value("driver"))); driver {
	case "timed":
		if s.Rampup, err = h.minutes("rampup"); err != nil {
			return err
		}
		if s.Duration, err = h.minutes("duration"); err != nil {
			return err
		}
		if d := s.Duration.D(); d < 10*time.Second {
			s.Interval = config.Duration(max(time.Second, d/3))
		}
		if n := h.value("total_iterations"); !isDefault(n, h.keyDefault("total_iterations")) {
			h.notice("%s %s: a timed run ends at its duration: VUs do not stop after %s transactions (HammerDB's timed driver would stop such a VU early)",
				h.diset("total_iterations"), n, n)
		}
	case "test":
		if s.Iterations, err = h.intKey("total_iterations"); err != nil {
			return err
		}
		s.Rampup = 0 // HammerDB's test driver measures from the start
	default:
		return fmt.Errorf("%s %q: want timed or test", h.diset("driver"), driver)
	}
	s.Mode = "procs" // HammerDB's PostgreSQL driver calls its routines, whatever pg_storedprocs says
	if h.prefix != "pg_" && truthy(h.value("no_stored_procs")) {
		s.Mode = "sql"
	}
	if truthy(h.value("keyandthink")) {
		s.Pacing, s.PacingScale = "spec", 1
	}
	// HammerDB 6's MariaDB TPROC-C sessions switch innodb_snapshot_isolation
	// off where the server has it (Sledge's default); its MySQL driver
	// leaves the server's setting alone, also on a MariaDB.
	if h.prefix == "mysql_" {
		s.SnapshotIsolation = "server"
	}
	if err := h.asyncSpec(s); err != nil {
		return err
	}
	// HammerDB's time profiler (xtprof) times every VU's transactions;
	// Sledge keeps the run's histograms always, each VU's with timeprofile.
	s.PerVUTiming = truthy(h.value("timeprofile"))
	// HammerDB gives each VU a random home warehouse unless allwarehouse.
	s.RandomHome = !truthy(h.value("allwarehouse"))
	if !s.RandomHome {
		h.notice("%s %s: each VU keeps one home warehouse, the VUs spread evenly over the warehouses "+
			"(HammerDB would give each VU a share of all warehouses and a new one for every transaction)", h.diset("allwarehouse"), h.value("allwarehouse"))
	}
	return nil
}

// asyncSpec maps HammerDB's event-driven scaling: with async_scale each
// VU of the timed driver keys and thinks for async_client clients, running
// their transactions one at a time; Sledge runs vu × async_client paced
// terminals over a pool of vu sessions, a due terminal waiting for a free
// session as HammerDB's client waits for its VU. HammerDB holds a session
// per client (vu × async_client); the pool holds vu, and says so.
func (h *hammer) asyncSpec(s *config.Spec) error {
	if !truthy(h.value("async_scale")) {
		return nil
	}
	if s.Iterations > 0 {
		h.notice("%s %s: asynchronous clients are the timed driver's (HammerDB's test driver has none): one session per VU",
			h.diset("async_scale"), h.value("async_scale"))
		return nil
	}
	if s.Pacing != "spec" {
		return fmt.Errorf("%s %s: asynchronous clients key and think, and HammerDB's asynchronous scaling is not valid without keying and thinking time: %s true",
			h.diset("async_scale"), h.value("async_scale"), h.diset("keyandthink"))
	}
	clients, err := h.intKey("async_client")
	if err != nil {
		return err
	}
	if clients < 1 {
		return fmt.Errorf("%s %d: want at least 1 client per virtual user", h.diset("async_client"), clients)
	}
	s.Terminals, s.Connections = s.VU*clients, s.VU
	if h.action == "steprun" {
		h.notice("%s %s: %d asynchronous clients per VU: paced terminals over a pool of one session per VU, a due terminal waiting for a free one "+
			"(HammerDB holds a session per client)", h.diset("async_scale"), h.value("async_scale"), clients)
		return nil
	}
	h.notice("%s %s: %d VUs × %d asynchronous clients: %d paced terminals over %d sessions, a due terminal waiting for a free one "+
		"(HammerDB holds a session per client: %d)", h.diset("async_scale"), h.value("async_scale"), s.VU, clients, s.Terminals, s.VU, s.Terminals)
	return nil
}

// keyDefault is HammerDB's default of a key (without prefix).
func (h *hammer) keyDefault(key string) string {
	k, _ := h.keys.Lookup(h.keys.DictOf(h.prefix+key), h.prefix+key)
	return k.Default
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
	case "terminals":
		return h.diset("async_client")
	case "connections":
		return "vuset vu"
	case "stages":
		return "steprun's steps"
	case "mode":
		if h.prefix != "pg_" {
			return h.diset("no_stored_procs")
		}
		return h.diset("storedprocs")
	case "iterations":
		return h.diset("total_iterations")
	case "random_home":
		return h.diset("allwarehouse")
	case "per_vu_timing":
		return h.diset("timeprofile")
	case "engine":
		return h.diset("storage_engine")
	case "thresholds":
		return "threshold"
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
	if id := h.profileID(); id > 0 {
		kv[ConfigProfileID] = strconv.Itoa(id)
	}
	return kv
}

// profileID is the performance profile runs are recorded under: the
// session's (jobs profileid N), else giset commandline jobs_profile_id N,
// which HammerDB's jobs profileid sets.
func (h *hammer) profileID() int {
	if h.st.ProfileID > 0 {
		return h.st.ProfileID
	}
	if n, err := strconv.Atoi(strings.TrimSpace(h.st.Dicts["commandline"]["jobs_profile_id"])); err == nil && n > 0 {
		return n
	}
	return 0
}

// report prints the action's notices, each once: first every setting the
// key table says Sledge does not honour, where it concerns the action and
// differs from HammerDB's default, in the table's order; then any setting
// that is not a HammerDB key (the front ends refuse those, other clients of
// `cli do` may not); then the mapping's own notices.
func (h *hammer) report(w io.Writer) {
	for _, d := range h.keys.Dicts {
		if d.Name != "connection" && d.Name != h.benchDict() {
			continue // HammerDB's other benchmark's settings are not used
		}
		h.reportDict(w, "diset", d, h.st.Dicts[d.Name])
	}
	for _, d := range GenericDicts() {
		h.reportDict(w, "giset", d, h.st.Dicts[d.Name])
	}
	for _, name := range slices.Sorted(maps.Keys(h.st.Dicts)) {
		for _, k := range slices.Sorted(maps.Keys(h.st.Dicts[name])) {
			if why := h.unknown(name, k); why != "" {
				fmt.Fprintf(w, "Notice: %s %s %s %s: %s: ignored\n", h.setCommand(name), name, k, h.st.Dicts[name][k], why)
			}
		}
	}
	for _, n := range h.notices {
		fmt.Fprintf(w, "Notice: %s\n", n)
	}
}

// reportDict prints the notices of one dictionary's settings.
func (h *hammer) reportDict(w io.Writer, set string, d Dict, values map[string]string) {
	for _, k := range d.Keys {
		v, ok := values[k.Name]
		if !ok || k.Treatment != Notice || !h.concerns(k.When) || isDefault(v, k.Default) {
			continue
		}
		fmt.Fprintf(w, "Notice: %s %s %s %s: %s\n", set, d.Name, k.Name, v, k.Sledge)
	}
}

// concerns says whether keys used when (Always, Build, Run) concern the
// action.
func (h *hammer) concerns(when string) bool {
	switch when {
	case Build:
		return h.action == "buildschema"
	case Run:
		return h.running()
	}
	return true
}

// unknown says why a setting is not a HammerDB key ("" when it is one, or
// belongs to another database: HammerDB keeps each database's dictionaries).
func (h *hammer) unknown(dict, key string) string {
	if !slices.Contains(dictOrder, dict) {
		if _, ok := lookup(GenericDicts(), dict, key); ok {
			return ""
		}
		return "not a HammerDB generic key"
	}
	if !strings.HasPrefix(key, h.prefix) {
		return ""
	}
	if h.keys.DictOf(key) != "" {
		return "" // in another dictionary than HammerDB's, the mapping still finds it
	}
	return "not a HammerDB key of " + h.product
}

// setCommand is the command that sets a dictionary's keys.
func (h *hammer) setCommand(dict string) string {
	if slices.Contains(dictOrder, dict) {
		return "diset"
	}
	return "giset"
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
	req.Dir = dg("directory", filepath.Join(tempDir(runtime.GOOS, h.env.get), "sledge-datagen"))
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
