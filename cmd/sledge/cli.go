package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/drivers"
	"github.com/sledge-bench/sledge/internal/hammerjobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	pyembed "github.com/sledge-bench/sledge/python"
)

// `sledge cli`: HammerDB CLI scripts, run by a real Tcl interpreter (tclsh)
// with HammerDB's command set defined in Tcl (hammerdb.tcl). The commands
// keep their settings as HammerDB does (dbset, diset, vuset …) and hand the
// whole state to `sledge cli do ACTION`, which maps HammerDB's parameter
// names onto Sledge's options in one place (hammerOptions) and runs the job
// in Go. The Python package (python/sledge) uses the same `cli do` contract.

//go:embed hammerdb.tcl
var hammerdbTcl string

func newCLICmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cli [auto SCRIPT.tcl]",
		Short: "Run HammerDB CLI scripts (real Tcl) or an interactive sledge> prompt",
		Long: `Run HammerDB CLI scripts unchanged: a real Tcl interpreter (tclsh 8.6) runs
the script with HammerDB's commands — dbset, diset, vuset, buildschema, vurun,
jobs … — defined to drive Sledge's engine. Without arguments: an interactive
sledge> prompt with line editing (arrows, Home/End, Ctrl-A/E/K/U/W), history
kept between sessions (Up/Down), Tab to complete a command name, and help.
Ctrl-C at the prompt drops the line; while a command runs it stops the job
(stored as interrupted) and the prompt comes back. Ctrl-D or quit leaves.

  sledge cli auto build.tcl
  sledge cli py auto sweep.py     # the same commands from Python

HammerDB's parameter names (pg_*, maria_*, mysql_* keys of the connection,
tpcc and tpch dicts) map onto Sledge's options; a key Sledge cannot honour is
accepted with a one-line notice. See the README for the table. jobs answers
from Sledge's repository with HammerDB's sub-commands and JSON/text shapes
(type help jobs at the prompt); librarycheck connects to every configured
database and prints its server version.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return runTcl(cmd.Context(), g, "")
			case len(args) == 2 && args[0] == "auto":
				return runTcl(cmd.Context(), g, args[1])
			}
			return fmt.Errorf("usage: sledge cli [auto SCRIPT.tcl] | sledge cli py [auto SCRIPT.py]")
		},
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "py [auto SCRIPT.py]",
		Short: "Run a Python script (or a Python prompt) with the sledge module and HammerDB's commands",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return runPython(cmd.Context(), "")
			case len(args) == 2 && args[0] == "auto":
				return runPython(cmd.Context(), args[1])
			}
			return fmt.Errorf("usage: sledge cli py [auto SCRIPT.py]")
		},
	})
	do := &cobra.Command{
		Use:    "do ACTION",
		Short:  "Run one HammerDB action with the state given as JSON on stdin (used by the Tcl and Python front ends)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var st cliState
			if err := json.NewDecoder(cmd.InOrStdin()).Decode(&st); err != nil {
				return fmt.Errorf("cli do: state on stdin: %w", err)
			}
			return cliDo(cmd.Context(), cmd.OutOrStdout(), g, args[0], &st)
		},
	}
	cmd.AddCommand(do, newCLIJobsCmd(g))
	return cmd
}

// newCLIJobsCmd is HammerDB's jobs command for the front ends: it prints
// what the command prints, then a line holding only the record separator
// (0x1E), a line "FORMAT PROFILEID" with the session after the command, and
// the command's return value.
func newCLIJobsCmd(g *globals) *cobra.Command {
	var s hammerjobs.Session
	cmd := &cobra.Command{
		Use:    "jobs [--format JSON|text] [--profileid N] -- [ARGS...]",
		Short:  "HammerDB's jobs command over Sledge's repository (used by the Tcl and Python front ends)",
		Hidden: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			repo, err := openRepo(cmd.Context(), g)
			if err != nil {
				return err
			}
			defer repo.Close()
			c := &hammerjobs.Command{Repo: repo}
			out, err := c.Run(cmd.Context(), s, args)
			if err != nil {
				return err
			}
			return out.Write(cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&s.Format, "format", hammerjobs.FormatJSON, "output format: JSON or text (jobs format)")
	cmd.Flags().IntVar(&s.ProfileID, "profileid", 0, "the session's performance profile id (jobs profileid)")
	return cmd
}

// runTcl runs tclsh with the HammerDB prelude, then the script or a prompt.
func runTcl(ctx context.Context, g *globals, script string) error {
	tclsh, err := exec.LookPath("tclsh")
	if err != nil {
		return errors.New("tclsh not found: install Tcl 8.6 (Debian: apt-get install tcl)")
	}
	dir, err := os.MkdirTemp("", "sledge-cli-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	prelude := filepath.Join(dir, "hammerdb.tcl")
	if err := os.WriteFile(prelude, []byte(hammerdbTcl), 0o644); err != nil {
		return err
	}
	args := []string{prelude}
	if script != "" {
		abs, err := filepath.Abs(script)
		if err != nil {
			return err
		}
		if _, err := os.Stat(abs); err != nil {
			return fmt.Errorf("script: %w", err)
		}
		args = append(args, "auto", abs)
	}
	env := append(os.Environ(), cliEnv(g)...)
	if script == "" && isTerminal(os.Stdin) && term.IsTerminal(int(os.Stdin.Fd())) {
		return promptSession(ctx, tclsh, prelude, env)
	}
	cmd := exec.CommandContext(ctx, tclsh, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = env
	return exitStatus(cmd.Run())
}

// runPython runs python3 with the embedded sledge package on its path.
func runPython(ctx context.Context, script string) error {
	py, err := exec.LookPath("python3")
	if err != nil {
		return errors.New("python3 not found")
	}
	dir, err := os.MkdirTemp("", "sledge-py-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := pyembed.Extract(dir); err != nil {
		return err
	}
	var args []string
	if script != "" {
		// The HammerDB commands are importable unqualified, as in HammerDB.
		args = []string{"-c", "import runpy, sys; from sledge.hammerdb import *; sys.argv = [sys.argv[1]]; " +
			"runpy.run_path(sys.argv[0], init_globals={k: v for k, v in globals().items() if not k.startswith('__')}, run_name='__main__')", script}
	} else {
		args = []string{"-i", "-c", "from sledge.hammerdb import *; import sledge; print('sledge Python prompt: HammerDB commands and the sledge module are loaded')"}
	}
	cmd := exec.CommandContext(ctx, py, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), "PYTHONPATH="+dir+string(os.PathListSeparator)+os.Getenv("PYTHONPATH"))
	cmd.Env = append(cmd.Env, cliEnv(nil)...)
	return exitStatus(cmd.Run())
}

// cliEnv tells the front ends which sledge binary and repository to use.
func cliEnv(g *globals) []string {
	var env []string
	if exe, err := os.Executable(); err == nil {
		env = append(env, "SLEDGE_BIN="+exe)
	}
	if g != nil && g.repo != "" {
		env = append(env, "SLEDGE_REPO="+g.repo)
	}
	return env
}

func exitStatus(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return exitError{code: ee.ExitCode()}
	}
	return err
}

// cliState is HammerDB's session state as the front ends keep it.
type cliState struct {
	DB    string                       `json:"db"` // pg | maria | mysql
	BM    string                       `json:"bm"` // TPROC-C | TPROC-H (older HammerDB names accepted)
	Dicts map[string]map[string]string `json:"dicts"`
	VU    map[string]string            `json:"vu"`
	DG    map[string]string            `json:"dg"`
	// ProfileID is the performance profile (jobs profileid N) that runs are
	// recorded under; 0 for none.
	ProfileID int `json:"profileid"`
}

// recordSettings makes the jobs that ctx starts record the HammerDB settings
// of the chosen database (jobs ID dict) and the performance profile.
func (h *hammer) recordSettings(ctx context.Context) context.Context {
	extra := map[string]string{}
	for d, kv := range h.st.Dicts {
		for k, v := range kv {
			if strings.HasPrefix(k, h.prefix) {
				extra[hammerjobs.ConfigPrefix+d+"."+k] = v
			}
		}
	}
	if h.st.ProfileID > 0 {
		extra[hammerjobs.ConfigProfileID] = strconv.Itoa(h.st.ProfileID)
	}
	return context.WithValue(ctx, jobConfigKey{}, extra)
}

// hammer resolves HammerDB keys for the chosen database.
type hammer struct {
	st      *cliState
	prefix  string // pg_ | maria_ | mysql_
	product string // PostgreSQL | MariaDB | MySQL
	notices []string
	used    map[string]bool
}

func newHammer(st *cliState) (*hammer, error) {
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

// get returns a key (without prefix) from the connection, tpcc or tpch dict.
func (h *hammer) get(key, def string) string {
	for _, d := range []string{"connection", "tpcc", "tpch"} {
		if v, ok := h.st.Dicts[d][h.prefix+key]; ok {
			h.used[d+"."+h.prefix+key] = true
			return v
		}
	}
	return def
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
	if h.tpch() {
		user, pass, dbase = "tpch_user", "tpch_pass", "tpch_dbase"
	}
	switch h.prefix {
	case "pg_":
		u := &url.URL{Scheme: "postgres", Host: h.get("host", "localhost") + ":" + h.get("port", "5432"),
			Path: "/" + h.get(dbase, map[bool]string{false: "tpcc", true: "tpch"}[h.tpch()])}
		u.User = url.UserPassword(h.get(user, map[bool]string{false: "tpcc", true: "tpch"}[h.tpch()]),
			h.get(pass, map[bool]string{false: "tpcc", true: "tpch"}[h.tpch()]))
		q := url.Values{}
		if !truthy(h.get("sslmode_require", "false")) {
			q.Set("sslmode", "disable")
		}
		u.RawQuery = q.Encode()
		return u.String()
	default:
		u := &url.URL{Scheme: "mysql", Path: "/" + h.get(dbase, map[bool]string{false: "tpcc", true: "tpch"}[h.tpch()])}
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
func (h *hammer) minutes(key, def string) (time.Duration, error) {
	v := h.get(key, def)
	m, err := strconv.ParseFloat(v, 64)
	if err != nil || m < 0 {
		return 0, fmt.Errorf("%s%s %q: want minutes", h.prefix, key, v)
	}
	return time.Duration(m * float64(time.Minute)), nil
}

func (h *hammer) intKey(key, def string) (int, error) {
	v := h.get(key, def)
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return 0, fmt.Errorf("%s%s %q: want a whole number", h.prefix, key, v)
	}
	return n, nil
}

// unsupported lists keys Sledge accepts but does not honour, with why.
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
// that no mapping read.
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
		bare := strings.TrimPrefix(k[strings.IndexByte(k, '.')+1:], h.prefix)
		why, ok := unsupported[bare]
		if !ok {
			why = "not used by Sledge"
		}
		if why == "" {
			continue
		}
		d, key, _ := strings.Cut(k, ".")
		fmt.Fprintf(w, "Notice: %s = %s is accepted but not honoured: %s\n", k, h.st.Dicts[d][key], why)
	}
	for _, n := range h.notices {
		fmt.Fprintf(w, "Notice: %s\n", n)
	}
}

// cliDo runs one HammerDB action.
func cliDo(ctx context.Context, w io.Writer, g *globals, action string, st *cliState) error {
	h, err := newHammer(st)
	if err != nil {
		return err
	}
	target := h.url()
	ctx = h.recordSettings(ctx)
	switch action {
	case "librarycheck":
		return librarycheck(ctx, w, st)
	case "buildschema":
		if err := ensureDatabase(ctx, w, h); err != nil {
			return err
		}
		f := &buildFlags{db: target, seed: defaultSeed}
		if h.tpch() {
			f.workload = workloadTPROCH
			sf, err := strconv.ParseFloat(h.get("scale_fact", "1"), 64)
			if err != nil {
				return fmt.Errorf("%sscale_fact: %w", h.prefix, err)
			}
			f.scale = sf
			if f.workers, err = h.intKey("num_tpch_threads", "1"); err != nil {
				return err
			}
		} else {
			f.workload = workloadTPROCC
			if f.warehouses, err = h.intKey("count_ware", "1"); err != nil {
				return err
			}
			if f.workers, err = h.intKey("num_vu", "1"); err != nil {
				return err
			}
			if h.prefix != "pg_" {
				h.get("no_stored_procs", "false") // read: procedures are installed either way
			}
		}
		h.reportUnused(w)
		return finishAction(w)(cliRun(ctx, w, g, "build", func(ctx context.Context) error {
			repo, err := openRepo(ctx, g)
			if err != nil {
				return err
			}
			defer repo.Close()
			return buildJob(ctx, w, repo, f)
		}))
	case "checkschema":
		if h.tpch() {
			return errors.New("checkschema: Sledge checks TPROC-C schemas (TPROC-H answers are validated with --validate runs)")
		}
		h.reportUnused(w)
		return finishAction(w)(cliRun(ctx, w, g, "check", func(ctx context.Context) error { return runCheck(ctx, w, g, target) }))
	case "deleteschema":
		h.reportUnused(w)
		return finishAction(w)(cliRun(ctx, w, g, "drop", func(ctx context.Context) error {
			if h.tpch() {
				return runDropH(ctx, w, g, target)
			}
			t, err := db.ParseTarget(target)
			if err != nil {
				return err
			}
			return runDropC(ctx, w, g, t)
		}))
	case "vurun":
		return cliVurun(ctx, w, g, h, target)
	case "datagenrun":
		f := &datagenFlags{seed: defaultSeed, out: st.DG["directory"]}
		if f.out == "" {
			f.out = filepath.Join(os.TempDir(), "sledge-datagen")
		}
		f.workers, _ = strconv.Atoi(st.DG["virtual_users"])
		if h.tpch() {
			f.workload = workloadTPROCH
			f.scale, _ = strconv.ParseFloat(st.DG["scale_fact"], 64)
			if f.scale == 0 {
				f.scale = 1
			}
		} else {
			f.workload = workloadTPROCC
			f.warehouses, _ = strconv.Atoi(st.DG["warehouses"])
			if f.warehouses == 0 {
				f.warehouses = 1
			}
		}
		return runDatagen(ctx, w, f)
	}
	return fmt.Errorf("cli do: unknown action %q", action)
}

// librarycheck reports, for every database the session has configured (the
// one chosen with dbset db, and any other with pg_*, maria_* or mysql_*
// settings), the driver compiled into Sledge and whether the server answers,
// with its version. When the benchmark's database does not exist yet (before
// buildschema) it reaches the server through the default database instead,
// and says so. It fails if any configured server cannot be reached.
func librarycheck(ctx context.Context, w io.Writer, st *cliState) error {
	failed := 0
	for _, name := range []string{"pg", "maria", "mysql"} {
		one := *st
		one.DB = name
		h, err := newHammer(&one)
		if err != nil {
			return err
		}
		if !h.configured(st.DB) {
			continue
		}
		t, err := db.ParseTarget(h.url())
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "Checking database library for %s\n", h.product)
		drv, err := drivers.For(t.Kind)
		if err != nil {
			fmt.Fprintf(w, "Error: %v\n", err)
			failed++
			continue
		}
		fmt.Fprintf(w, "Success ... %s driver built in (%s)\n", h.product, driverModule(t.Kind))
		version, via, err := reachServer(ctx, drv, h, t)
		if err != nil {
			fmt.Fprintf(w, "Error: cannot reach the %s server: %v\n", h.product, err)
			failed++
			continue
		}
		fmt.Fprintf(w, "Success ... connected to %s at %s%s\n", version, t, via)
	}
	if failed > 0 {
		return exitError{code: 1}
	}
	return nil
}

// configured says whether the session chose this database or set any of
// its keys.
func (h *hammer) configured(selected string) bool {
	if strings.EqualFold(selected, strings.TrimSuffix(h.prefix, "_")) || (selected == "" && h.prefix == "pg_") {
		return true
	}
	for _, kv := range h.st.Dicts {
		for k := range kv {
			if strings.HasPrefix(k, h.prefix) {
				return true
			}
		}
	}
	return false
}

// pgDefaultDB is u moved to PostgreSQL's default database (pg_defaultdbase),
// as the superuser HammerDB's settings name (pg_superuser, or
// pg_tpch_superuser for TPROC-H) when superuser is set.
func (h *hammer) pgDefaultDB(u *url.URL, superuser bool) *url.URL {
	o := *u
	o.Path = "/" + h.get("defaultdbase", "postgres")
	if superuser {
		su := "superuser"
		if h.tpch() {
			su = "tpch_superuser"
		}
		o.User = url.UserPassword(h.get(su, "postgres"), h.get(su+"pass", "postgres"))
	}
	return &o
}

// reachServer connects to the benchmark's database or, failing that, to the
// server's default database (PostgreSQL: as the same user, then as the
// superuser; MariaDB/MySQL: information_schema), and returns the server
// version and, for a fallback, which way it got in.
func reachServer(ctx context.Context, drv db.Driver, h *hammer, t db.Target) (version, via string, err error) {
	try := func(t db.Target) (string, error) {
		ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		c, err := drv.Connect(ctx, t, db.Options{})
		if err != nil {
			return "", err
		}
		defer c.Close(context.Background())
		return drv.Version(ctx, c)
	}
	version, firstErr := try(t)
	if firstErr == nil {
		return version, "", nil
	}
	u := mustURL(t.DSN)
	var others []*url.URL
	if h.prefix == "pg_" {
		others = append(others, h.pgDefaultDB(u, false), h.pgDefaultDB(u, true))
	} else {
		info := *u
		info.Path = "/information_schema"
		others = append(others, &info)
	}
	for _, o := range others {
		ot, err := db.ParseTarget(o.String())
		if err != nil {
			continue
		}
		if version, err := try(ot); err == nil {
			return version, fmt.Sprintf(" (through database %s as %s; the benchmark's database is not reachable yet: %v)",
				strings.TrimPrefix(o.Path, "/"), o.User.Username(), firstErr), nil
		}
	}
	return "", "", firstErr
}

// driverModule names the Go module of a database's built-in driver, with
// the version compiled in.
func driverModule(k db.Kind) string {
	mod := map[db.Kind]string{db.Postgres: "github.com/jackc/pgx/v5", db.MySQL: "github.com/go-sql-driver/mysql"}[k]
	if mod == "" {
		return string(k)
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == mod {
				return mod + " " + d.Version
			}
		}
	}
	return mod
}

// cliRun runs a job and returns its id and final status.
func cliRun(ctx context.Context, w io.Writer, g *globals, kind string, run func(context.Context) error) (int64, string, error) {
	var id int64
	ctx = context.WithValue(ctx, jobStartedKey{}, func(k string, jid int64) {
		if k == kind && id == 0 {
			id = jid
		}
	})
	err := run(ctx)
	status := metrics.StatusCompleted
	if err != nil {
		status = metrics.StatusFailed
		if ctx.Err() != nil {
			status = metrics.StatusInterrupted
		}
	}
	if id != 0 {
		if repo, rerr := openRepo(context.Background(), g); rerr == nil {
			if j, gerr := repo.Get(context.Background(), id); gerr == nil && j.Status != metrics.StatusRunning {
				status = j.Status
			}
			repo.Close()
		}
	}
	if err != nil && !errors.As(err, new(exitError)) {
		fmt.Fprintf(w, "Error: %v\n", err)
	}
	return id, status, err
}

// finishAction prints the line the front ends parse, last: SLEDGE-JOB id status.
func finishAction(w io.Writer) func(id int64, status string, err error) error {
	return func(id int64, status string, err error) error {
		fmt.Fprintf(w, "SLEDGE-JOB %d %s\n", id, status)
		if err != nil || status != metrics.StatusCompleted {
			return exitError{code: 1}
		}
		return nil
	}
}

func cliVurun(ctx context.Context, w io.Writer, g *globals, h *hammer, target string) error {
	vus, err := strconv.Atoi(h.st.VU["vu"])
	if err != nil || vus < 1 {
		return fmt.Errorf("vuset vu %q: want a positive number of virtual users", h.st.VU["vu"])
	}
	f := &runFlags{db: target, vus: vus, interval: 10 * time.Second, mode: "auto", execMode: "prepared", querySets: 1}
	if h.tpch() {
		f.workload = workloadTPROCH
		if vus > 1 {
			f.streams = vus // HammerDB's VUs are the query streams
		}
		if f.querySets, err = h.intKey("total_querysets", "1"); err != nil {
			return err
		}
		f.refresh = truthy(h.get("refresh_on", "false"))
		h.get("degree_of_parallel", "")
	} else {
		f.workload = workloadTPROCC
		driver := h.get("driver", "test")
		if driver != "timed" {
			h.notice("%sdriver %s: Sledge runs are timed; using a 0 ramp-up and a 1-minute window unless rampup/duration are set", h.prefix, driver)
		}
		if f.rampup, err = h.minutes("rampup", map[bool]string{true: "2", false: "0"}[driver == "timed"]); err != nil {
			return err
		}
		if f.duration, err = h.minutes("duration", map[bool]string{true: "5", false: "1"}[driver == "timed"]); err != nil {
			return err
		}
		if f.duration < 10*time.Second {
			f.interval = max(time.Second, f.duration/3)
		}
		if h.prefix != "pg_" && truthy(h.get("no_stored_procs", "false")) {
			f.mode = "sql"
		}
		f.pacingScale = 1
		if truthy(h.get("keyandthink", "false")) {
			f.pacing = "spec"
		}
		h.get("count_ware", "")
		h.get("num_vu", "")
	}
	for k, why := range map[string]string{"delay": "VUs start together after the ramp-up stagger", "repeat": "not applicable",
		"iterations": "runs are timed", "logtotemp": "output is stored with the job (sledge jobs show ID output)",
		"unique": "not applicable", "timestamps": "output lines are stored with times"} {
		if v, ok := h.st.VU[k]; ok && v != vuDefaults[k] {
			h.notice("vuset %s %s: %s", k, v, why)
		}
	}
	h.reportUnused(w)
	var out io.Writer = w
	if h.st.VU["showoutput"] == "0" {
		out = io.Discard
	}
	id, status, err := cliRun(ctx, out, g, "run", func(ctx context.Context) error {
		if f.workload == workloadTPROCH {
			return runRunH(ctx, out, g, f)
		}
		return runRun(ctx, out, g, f)
	})
	if id != 0 && f.workload == workloadTPROCC {
		if repo, rerr := openRepo(context.Background(), g); rerr == nil {
			j, jerr := repo.Get(context.Background(), id)
			if res, _ := repo.RunResult(context.Background(), id); res != nil && jerr == nil {
				fmt.Fprintln(w, hammerjobs.TestResult(j, res))
			}
			repo.Close()
		}
	}
	return finishAction(w)(id, status, err)
}

var vuDefaults = map[string]string{"vu": "1", "delay": "500", "repeat": "500", "iterations": "1", "showoutput": "1",
	"logtotemp": "0", "unique": "0", "timestamps": "0"}

// ensureDatabase creates the target database (and, on PostgreSQL, its
// owner) as HammerDB's build does, connecting as the superuser.
func ensureDatabase(ctx context.Context, w io.Writer, h *hammer) error {
	t, err := db.ParseTarget(h.url())
	if err != nil {
		return err
	}
	drv, err := drivers.For(t.Kind)
	if err != nil {
		return err
	}
	if c, err := drv.Connect(ctx, t, db.Options{}); err == nil {
		c.Close(context.Background())
		return nil // it exists and we can reach it
	}
	dbName := strings.TrimPrefix(mustURL(t.DSN).Path, "/")
	owner := mustURL(t.DSN).User
	var adminURL string
	switch h.prefix {
	case "pg_":
		adminURL = h.pgDefaultDB(mustURL(t.DSN), true).String()
	default:
		u := mustURL(t.DSN)
		u.Path = "/mysql"
		adminURL = u.String()
	}
	at, err := db.ParseTarget(adminURL)
	if err != nil {
		return err
	}
	c, err := drv.Connect(ctx, at, db.Options{})
	if err != nil {
		return fmt.Errorf("connect as superuser to create database %s: %w", dbName, err)
	}
	defer c.Close(context.Background())
	ident := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	if h.prefix == "pg_" {
		user := owner.Username()
		pass, _ := owner.Password()
		var n int
		_ = c.QueryRow(ctx, "SELECT count(*) FROM pg_roles WHERE rolname = $1", user).Scan(&n)
		if n == 0 {
			if _, err := c.Exec(ctx, "CREATE ROLE "+ident(user)+" LOGIN PASSWORD '"+strings.ReplaceAll(pass, "'", "''")+"'"); err != nil {
				return fmt.Errorf("create user %s: %w", user, err)
			}
		}
		if _, err := c.Exec(ctx, "CREATE DATABASE "+ident(dbName)+" OWNER "+ident(user)); err != nil {
			return fmt.Errorf("create database %s: %w", dbName, err)
		}
	} else if _, err := c.Exec(ctx, "CREATE DATABASE IF NOT EXISTS `"+strings.ReplaceAll(dbName, "`", "``")+"`"); err != nil {
		return fmt.Errorf("create database %s: %w", dbName, err)
	}
	fmt.Fprintf(w, "created database %s\n", dbName)
	return nil
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		return &url.URL{}
	}
	return u
}
