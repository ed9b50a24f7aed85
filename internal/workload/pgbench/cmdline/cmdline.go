// Package cmdline reads pgbench's own command line — the options a
// pgbench user already types, spelled as pgbench spells them — into the
// job spec Sledge runs: `pgbench -i -s 10 mydb` becomes a build of the
// pgbench workload at scale 10, `pgbench -c 8 -T 60 -f my.sql@3 mydb` a
// run. It holds the translation only: the command that runs the spec is
// the front end's, and the spec's own rules are checked by the job
// service as for any other job.
package cmdline

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/workload/pgbench"
	"github.com/sledge-bench/sledge/internal/workload/pgbench/pgscript"
)

// DefaultTransactions is pgbench's default when neither -t nor -T is
// given: 10 transactions per client.
const DefaultTransactions = 10

// Invocation is one pgbench command line read as Sledge's job.
type Invocation struct {
	// Spec is a build of the pgbench workload (-i) or a run of it.
	Spec config.Spec
	// Notes say what the command line asked that Sledge does otherwise or
	// not at all, without changing the job (-j, -n, --failures-detailed).
	Notes []string
	// Help is -? or --help: nothing else was read.
	Help bool
}

// unsupported are pgbench options Sledge does not take, with why; each is
// refused by name.
var unsupported = []struct {
	long, short string
	takesValue  bool
	why         string
}{
	{"connect", "C", false, "a new connection per transaction is not measured by Sledge"},
	{"log", "l", false, "per-transaction logs are not written; the job stores HDR histograms per interval instead (sledge jobs hlog)"},
	{"log-prefix", "", true, "per-transaction logs are not written"},
	{"sampling-rate", "", true, "per-transaction logs are not written"},
	{"aggregate-interval", "", true, "per-transaction logs are not written; -P sets the interval of the stored series"},
	{"debug", "d", false, "debug output is not available"},
	{"vacuum-all", "v", false, "Sledge does not vacuum before a run"},
	{"quiet", "q", false, "the build reports its own progress"},
	{"show-script", "", true, "print the built-in scripts with pgbench itself"},
	{"tablespace", "", true, "tablespaces are not chosen by Sledge's build"},
	{"index-tablespace", "", true, "tablespaces are not chosen by Sledge's build"},
	{"unlogged-tables", "", false, "unlogged tables are not built by Sledge"},
	{"verbose-errors", "", false, "errors are classified and counted in the report instead"},
	{"exit-on-abort", "", false, "a failed session reconnects in Sledge; the run goes on"},
	{"continue-on-error", "", false, "failed transactions are counted and the run goes on already"},
}

// TakeOptions takes the front end's own long options (e.g. Sledge's
// --repo and --server, by name with their dashes) out of a pgbench
// command line, as --NAME VALUE or --NAME=VALUE, setting each one's value,
// and returns the rest, pgbench's, for Parse.
func TakeOptions(args []string, own map[string]*string) []string {
	var rest []string
	for i := 0; i < len(args); i++ {
		a, taken := args[i], false
		for name, to := range own {
			if v, ok := strings.CutPrefix(a, name+"="); ok {
				*to, taken = v, true
			} else if a == name && i+1 < len(args) {
				*to, taken = args[i+1], true
				i++
			}
		}
		if !taken {
			rest = append(rest, a)
		}
	}
	return rest
}

// Parse reads args, pgbench's options and its trailing database name or
// URL. getenv gives PGHOST, PGPORT, PGUSER and PGDATABASE, which fill what
// -h, -p, -U and the database name leave out, as libpq's; nil reads
// none.
func Parse(args []string, getenv func(string) string) (Invocation, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	fl := pflag.NewFlagSet("pgbench", pflag.ContinueOnError)
	fl.SetInterspersed(true)
	fl.Usage = func() {}
	fl.SetOutput(discard{})
	var (
		help, init, foreignKeys, noVacuum, failuresDetailed, perStatement, selectOnly, simpleUpdate bool
		clients, jobs, txs, fillfactor, partitions, maxTries, progress                              int
		duration                                                                                    string
		rate, scale, latencyLimit                                                                   float64
		files, builtins, defines                                                                    []string
		protocol, partitionMethod, initSteps, seed, host, port, user                                string
	)
	fl.BoolVarP(&help, "help", "?", false, "")
	fl.BoolVarP(&init, "initialize", "i", false, "")
	fl.BoolVar(&foreignKeys, "foreign-keys", false, "")
	fl.BoolVarP(&noVacuum, "no-vacuum", "n", false, "")
	fl.BoolVar(&failuresDetailed, "failures-detailed", false, "")
	fl.BoolVarP(&perStatement, "report-per-command", "r", false, "")
	fl.BoolVarP(&selectOnly, "select-only", "S", false, "")
	fl.BoolVarP(&simpleUpdate, "skip-some-updates", "N", false, "")
	fl.IntVarP(&clients, "client", "c", 1, "")
	fl.IntVarP(&jobs, "jobs", "j", 1, "")
	fl.IntVarP(&txs, "transactions", "t", 0, "")
	fl.StringVarP(&duration, "time", "T", "", "")
	fl.Float64VarP(&rate, "rate", "R", 0, "")
	fl.Float64VarP(&latencyLimit, "latency-limit", "L", 0, "")
	fl.Float64VarP(&scale, "scale", "s", 0, "")
	fl.IntVarP(&fillfactor, "fillfactor", "F", 0, "")
	fl.IntVar(&partitions, "partitions", 0, "")
	fl.StringVar(&partitionMethod, "partition-method", "", "")
	fl.StringVarP(&initSteps, "init-steps", "I", "", "")
	fl.IntVar(&maxTries, "max-tries", 1, "")
	fl.IntVarP(&progress, "progress", "P", 0, "")
	fl.StringArrayVarP(&files, "file", "f", nil, "")
	fl.StringArrayVarP(&builtins, "builtin", "b", nil, "")
	fl.StringArrayVarP(&defines, "define", "D", nil, "")
	fl.StringVarP(&protocol, "protocol", "M", "", "")
	fl.StringVar(&seed, "random-seed", "", "")
	fl.StringVarP(&host, "host", "h", "", "")
	fl.StringVarP(&port, "port", "p", "", "")
	fl.StringVarP(&user, "username", "U", "", "")
	refused := make([]*string, len(unsupported))
	for i, u := range unsupported {
		refused[i] = new(string)
		fl.StringVarP(refused[i], u.long, u.short, "", "")
		if !u.takesValue {
			fl.Lookup(u.long).NoOptDefVal = "true"
		}
	}
	// The scripts in the order the command line gives them (-f, -b, -S
	// and -N interleaved as written): ParseAll sees the options in order.
	var scripts []string
	err := fl.ParseAll(args, func(f *pflag.Flag, value string) error {
		if err := fl.Set(f.Name, value); err != nil {
			return err
		}
		switch f.Name {
		case "file":
			scripts = append(scripts, "-f\x00"+value)
		case "builtin":
			scripts = append(scripts, "-b\x00"+value)
		case "select-only":
			scripts = append(scripts, "-b\x00select-only")
		case "skip-some-updates":
			scripts = append(scripts, "-b\x00simple-update")
		}
		return nil
	})
	if err != nil {
		return Invocation{}, reword(err)
	}
	if help {
		return Invocation{Help: true}, nil
	}
	for _, u := range unsupported {
		if fl.Changed(u.long) {
			return Invocation{}, fmt.Errorf("%s is not supported by sledge pgbench: %s", optName(u.long, u.short), u.why)
		}
	}
	rest := fl.Args()
	if len(rest) > 1 {
		return Invocation{}, fmt.Errorf("too many command-line arguments (first is %q)", rest[1])
	}
	dbname := ""
	if len(rest) == 1 {
		dbname = rest[0]
	}
	target, err := targetURL(dbname, host, port, user, getenv)
	if err != nil {
		return Invocation{}, err
	}

	var inv Invocation
	changed := func(names ...string) string {
		for _, n := range names {
			if fl.Changed(n) {
				f := fl.Lookup(n)
				return optName(f.Name, f.Shorthand)
			}
		}
		return ""
	}
	if init {
		if o := changed("client", "jobs", "transactions", "time", "rate", "file", "builtin", "define", "protocol",
			"random-seed", "max-tries", "progress", "report-per-command", "select-only", "skip-some-updates", "failures-detailed"); o != "" {
			return Invocation{}, fmt.Errorf("%s is a run option: not with -i (initialize)", o)
		}
		s := config.New(config.KindBuild)
		s.Workload = pgbench.Name
		s.DB = target
		if fl.Changed("scale") {
			if scale < 1 || scale != math.Trunc(scale) || scale > math.MaxInt32 {
				return Invocation{}, fmt.Errorf("-s/--scale: invalid scale factor %q: a whole number of at least 1 is expected", fl.Lookup("scale").Value)
			}
			s.Scale = scale
		} else {
			s.Scale = 1
		}
		if fl.Changed("fillfactor") && (fillfactor < 10 || fillfactor > 100) {
			return Invocation{}, fmt.Errorf("-F/--fillfactor: invalid fillfactor %d: 10..100 is expected", fillfactor)
		}
		s.Fillfactor = fillfactor
		if partitions < 0 {
			return Invocation{}, fmt.Errorf("--partitions: invalid number of partitions %d", partitions)
		}
		s.Partitions = partitions
		if partitionMethod != "" {
			if partitionMethod != "range" && partitionMethod != "hash" {
				return Invocation{}, fmt.Errorf("--partition-method: invalid partition method %q: range or hash is expected", partitionMethod)
			}
			if partitions == 0 {
				return Invocation{}, errors.New("--partition-method requires greater than zero --partitions")
			}
			s.PartitionMethod = partitionMethod
		}
		s.ForeignKeys = foreignKeys
		// pgbench -i drops its tables first (step d) without asking: the
		// command line is the user's word, as it is pgbench's.
		s.Force, s.Confirm = true, true
		if fl.Changed("init-steps") {
			notes, err := applySteps(&s, initSteps)
			if err != nil {
				return Invocation{}, err
			}
			inv.Notes = append(inv.Notes, notes...)
		}
		if noVacuum {
			inv.Notes = append(inv.Notes, "-n: Sledge's build does not vacuum anyway")
		}
		inv.Spec = s
		return inv, nil
	}

	if o := changed("fillfactor", "foreign-keys", "partitions", "partition-method", "init-steps"); o != "" {
		return Invocation{}, fmt.Errorf("%s is an initialization option: use it with -i", o)
	}
	s := config.New(config.KindRun)
	s.Workload = pgbench.Name
	s.DB = target
	s.Rampup = 0 // pgbench measures from the start
	if clients < 1 || clients > config.MaxVUs {
		return Invocation{}, fmt.Errorf("-c/--client: invalid number of clients %d: 1..%d is expected", clients, config.MaxVUs)
	}
	s.VU = clients
	if jobs < 1 {
		return Invocation{}, fmt.Errorf("-j/--jobs: invalid number of threads %d", jobs)
	}
	if fl.Changed("jobs") && jobs > 1 {
		inv.Notes = append(inv.Notes, fmt.Sprintf("-j %d: Sledge runs each client as a goroutine; threads are not needed (a no-op)", jobs))
	}
	switch {
	case fl.Changed("transactions") && fl.Changed("time"):
		return Invocation{}, errors.New("specify either a number of transactions (-t) or a duration (-T), not both")
	case fl.Changed("time"):
		secs, err := strconv.ParseInt(duration, 10, 64)
		if err != nil || secs < 1 || time.Duration(secs)*time.Second > config.MaxTime {
			return Invocation{}, fmt.Errorf("-T/--time: invalid duration %q: a whole number of seconds of at least 1 is expected", duration)
		}
		s.Duration = config.Duration(time.Duration(secs) * time.Second)
	case fl.Changed("transactions"):
		if txs < 1 {
			return Invocation{}, fmt.Errorf("-t/--transactions: invalid number of transactions %d", txs)
		}
		s.Iterations = txs
	default:
		s.Iterations = DefaultTransactions
	}
	if fl.Changed("rate") {
		if !fl.Changed("time") {
			return Invocation{}, errors.New("-R/--rate: give -T too: Sledge's rate runs are timed (not -t)")
		}
		s.Iterations = 0
		if rate <= 0 || math.IsInf(rate, 0) || math.IsNaN(rate) {
			return Invocation{}, fmt.Errorf("-R/--rate: invalid rate limit %q", fl.Lookup("rate").Value)
		}
		s.Rate = rate
	}
	if fl.Changed("latency-limit") {
		if !fl.Changed("rate") {
			// pgbench counts late transactions without -R; Sledge skips
			// them only in a rate run.
			return Invocation{}, errors.New("-L/--latency-limit: only with -R (a rate): Sledge's latency limit skips late arrivals")
		}
		if latencyLimit <= 0 || math.IsInf(latencyLimit, 0) || math.IsNaN(latencyLimit) || latencyLimit > float64(config.MaxTime/time.Millisecond) {
			return Invocation{}, fmt.Errorf("-L/--latency-limit: invalid latency limit %q", fl.Lookup("latency-limit").Value)
		}
		s.LatencyLimit = config.Duration(time.Duration(latencyLimit * float64(time.Millisecond)))
	}
	if fl.Changed("progress") {
		if progress < 1 {
			return Invocation{}, fmt.Errorf("-P/--progress: invalid thread progress delay %d", progress)
		}
		s.Interval = config.Duration(time.Duration(progress) * time.Second)
	}
	if maxTries < 1 || maxTries-1 > config.MaxRetriesLimit {
		return Invocation{}, fmt.Errorf("--max-tries: invalid number of maximum tries %d: 1..%d is expected (Sledge bounds the retries; 0, unlimited, is not available)",
			maxTries, config.MaxRetriesLimit+1)
	}
	s.MaxRetries = maxTries - 1
	if protocol != "" {
		if _, err := pgscript.ParseQueryMode(protocol); err != nil {
			return Invocation{}, fmt.Errorf("-M/--protocol: invalid query mode %q: simple, extended or prepared is expected", protocol)
		}
		s.QueryMode = protocol
	}
	if fl.Changed("random-seed") {
		switch seed {
		case "time", "rand":
			// Sledge draws a seed and records it with the job.
		default:
			n, err := pgscript.ParseSeed(seed)
			if err != nil {
				return Invocation{}, fmt.Errorf("--random-seed: %w", err)
			}
			if n == 0 {
				return Invocation{}, errors.New("--random-seed 0: Sledge takes 0 for \"draw one\"; give another seed")
			}
			s.Seed = n
		}
	}
	for _, d := range defines {
		if _, err := pgscript.ParseDefine(d); err != nil {
			return Invocation{}, fmt.Errorf("-D/--define: %w", err)
		}
	}
	s.Defines = defines
	if s.Scripts, err = scriptSpecs(scripts); err != nil {
		return Invocation{}, err
	}
	if fl.Changed("scale") {
		if scale < 1 || scale != math.Trunc(scale) {
			return Invocation{}, fmt.Errorf("-s/--scale: invalid scale factor %q", fl.Lookup("scale").Value)
		}
		// pgbench's -s on a run sets :scale for custom scripts; with a
		// built-in one it is ignored (the build's scale is used).
		builtin := len(s.Scripts) == 0
		for _, sc := range s.Scripts {
			builtin = builtin || strings.HasPrefix(sc, "builtin:")
		}
		if builtin {
			inv.Notes = append(inv.Notes, "-s: ignored with a built-in script, as pgbench ignores it: the build's scale is used")
		} else {
			s.Defines = append([]string{"scale=" + strconv.FormatInt(int64(scale), 10)}, s.Defines...)
		}
	}
	if noVacuum {
		inv.Notes = append(inv.Notes, "-n: Sledge does not vacuum before a run anyway")
	}
	if failuresDetailed {
		inv.Notes = append(inv.Notes, "--failures-detailed: failures are always reported by kind")
	}
	s.PerStatement = perStatement
	inv.Spec = s
	return inv, nil
}

// scriptSpecs are the run's scripts, each "-f\x00FILE[@W]" or
// "-b\x00NAME[@W]", as config.Spec.Scripts reads them.
func scriptSpecs(opts []string) ([]string, error) {
	var out []string
	for _, o := range opts {
		kind, v, _ := strings.Cut(o, "\x00")
		name, _, err := pgscript.SplitWeight(v)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", kind, v, err)
		}
		if kind == "-f" {
			if name == "" {
				return nil, errors.New("-f: a script file is expected")
			}
			out = append(out, v)
			continue
		}
		if _, err := pgscript.Builtin(name); err != nil {
			return nil, fmt.Errorf("-b %s: %w", v, err)
		}
		out = append(out, "builtin:"+v)
	}
	return out, nil
}

// applySteps reads -I's initialization steps: d drops (Sledge's build
// drops with force), t, g/G and p are what Sledge's build always does, f
// adds the foreign keys, v (vacuum) is not done.
func applySteps(s *config.Spec, steps string) ([]string, error) {
	var notes []string
	has := func(c byte) bool { return strings.IndexByte(steps, c) >= 0 }
	for i := 0; i < len(steps); i++ {
		switch c := steps[i]; c {
		case 'd', 't', 'g', 'G', 'v', 'p', 'f', ' ':
		default:
			return nil, fmt.Errorf("-I/--init-steps: unrecognized initialization step %q: d, t, g, G, v, p and f are allowed", string(c))
		}
	}
	if !has('t') || !has('g') && !has('G') || !has('p') {
		return nil, fmt.Errorf("-I/--init-steps %q: Sledge's build always creates the tables, generates the data and adds the primary keys (t, g or G, and p are needed)", steps)
	}
	s.Force = has('d')
	s.Confirm = s.Force
	if has('f') {
		s.ForeignKeys = true
	}
	if has('G') {
		notes = append(notes, "-I G: Sledge loads the data from the client at its bulk-load speed (as g)")
	}
	if has('v') {
		notes = append(notes, "-I v: Sledge's build does not vacuum")
	}
	return notes, nil
}

// targetURL is the database the run or build connects to: a URL as given
// (postgres://…, mysql://…, sqlite:…), or pgbench's database name with -h,
// -p and -U (and libpq's environment) made into a PostgreSQL URL. Nothing
// at all: "" (Sledge's default target).
func targetURL(dbname, host, port, user string, getenv func(string) string) (string, error) {
	if strings.Contains(dbname, "://") || strings.HasPrefix(dbname, "sqlite:") || strings.HasPrefix(dbname, "duckdb:") ||
		strings.HasSuffix(dbname, ".db") || strings.HasSuffix(dbname, ".sqlite") {
		if host != "" || port != "" || user != "" {
			return "", fmt.Errorf("-h, -p and -U are not used with a URL (%s): put them in the URL", dbname)
		}
		return dbname, nil
	}
	or := func(v, env string) string {
		if v == "" {
			return getenv(env)
		}
		return v
	}
	dbname, host, port, user = or(dbname, "PGDATABASE"), or(host, "PGHOST"), or(port, "PGPORT"), or(user, "PGUSER")
	if dbname == "" && host == "" && port == "" && user == "" {
		return "", nil
	}
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("-p/--port: invalid port %q", port)
		}
	}
	u := url.URL{Scheme: "postgres", Path: "/" + dbname}
	q := url.Values{}
	switch {
	case strings.HasPrefix(host, "/"):
		// A Unix socket's directory, as libpq takes it.
		q.Set("host", host)
		u.Host = "localhost"
		if port != "" {
			q.Set("port", port)
		}
	case host == "":
		u.Host = "localhost"
		if port != "" {
			u.Host += ":" + port
		}
	default:
		u.Host = host
		if port != "" {
			u.Host += ":" + port
		}
	}
	if user != "" {
		u.User = url.User(user)
	}
	if dbname == "" {
		u.Path = ""
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// reword says pflag's complaint in pgbench's terms: which option, and
// that sledge pgbench does not know it.
func reword(err error) error {
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "unknown shorthand flag: "):
		// "unknown shorthand flag: 'x' in -x"
		if _, opt, ok := strings.Cut(msg, " in "); ok {
			return fmt.Errorf("unknown option %s: not a pgbench option sledge pgbench takes (sledge pgbench --help lists them)", opt)
		}
	case strings.HasPrefix(msg, "unknown flag: "):
		return fmt.Errorf("unknown option %s: not a pgbench option sledge pgbench takes (sledge pgbench --help lists them)", strings.TrimPrefix(msg, "unknown flag: "))
	}
	return errors.New(strings.ReplaceAll(msg, "flag", "option"))
}

// options are the pgbench options that set each spec field Parse sets
// (by the field's JSON name), as a pgbench user typed them.
var options = map[string]string{
	"db":               "DBNAME",
	"scale":            "-s/--scale",
	"fillfactor":       "-F/--fillfactor",
	"foreign_keys":     "--foreign-keys",
	"partitions":       "--partitions",
	"partition_method": "--partition-method",
	"vu":               "-c/--client",
	"duration":         "-T/--time",
	"iterations":       "-t/--transactions",
	"rate":             "-R/--rate",
	"latency_limit":    "-L/--latency-limit",
	"interval":         "-P/--progress",
	"max_retries":      "--max-tries",
	"query_mode":       "-M/--protocol",
	"seed":             "--random-seed",
	"scripts":          "-f/-b",
	"defines":          "-D/--define",
}

// Option is the pgbench option that sets the spec field named field (its
// JSON name), "" for a field no pgbench option sets: for wording the job
// service's field errors as the options a pgbench user gave.
func Option(field string) string { return options[field] }

// optName is "-c/--client", or "--max-tries" for an option without a
// letter.
func optName(long, short string) string {
	if short == "" {
		return "--" + long
	}
	return "-" + short + "/--" + long
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
