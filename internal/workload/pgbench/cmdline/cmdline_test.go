package cmdline

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
)

func TestParseRun(t *testing.T) {
	t.Parallel()
	base := func(edit func(*config.Spec)) config.Spec {
		s := config.New(config.KindRun)
		s.Workload = "pgbench"
		s.Rampup = 0
		s.VU = 1
		s.Iterations = DefaultTransactions
		if edit != nil {
			edit(&s)
		}
		return s
	}
	for _, c := range []struct {
		args  []string
		env   map[string]string
		want  config.Spec
		notes int
	}{
		{args: nil, want: base(nil)},
		{args: []string{"-c", "8", "-T", "60", "postgres://u@h/db"}, want: base(func(s *config.Spec) {
			s.VU, s.Iterations, s.Duration, s.DB = 8, 0, config.Duration(time.Minute), "postgres://u@h/db"
		})},
		{args: []string{"-c8", "--time=5", "mydb"}, want: base(func(s *config.Spec) {
			s.VU, s.Iterations, s.Duration, s.DB = 8, 0, config.Duration(5*time.Second), "postgres://localhost/mydb"
		})},
		{args: []string{"--client", "3", "-t", "100"}, want: base(func(s *config.Spec) { s.VU, s.Iterations = 3, 100 })},
		{args: []string{"-j", "4"}, want: base(nil), notes: 1},
		{args: []string{"-R", "250.5", "-T", "60"}, want: base(func(s *config.Spec) { s.Rate, s.Iterations, s.Duration = 250.5, 0, config.Duration(time.Minute) })},
		{args: []string{"-R", "100", "-L", "2.5", "-T", "60"}, want: base(func(s *config.Spec) {
			s.Rate, s.LatencyLimit, s.Iterations, s.Duration = 100, config.Duration(2500*time.Microsecond), 0, config.Duration(time.Minute)
		})},
		{args: []string{"-P", "2"}, want: base(func(s *config.Spec) { s.Interval = config.Duration(2 * time.Second) })},
		{args: []string{"--max-tries", "10"}, want: base(func(s *config.Spec) { s.MaxRetries = 9 })},
		{args: []string{"-M", "prepared"}, want: base(func(s *config.Spec) { s.QueryMode = "prepared" })},
		{args: []string{"--protocol=extended"}, want: base(func(s *config.Spec) { s.QueryMode = "extended" })},
		{args: []string{"--random-seed", "42"}, want: base(func(s *config.Spec) { s.Seed = 42 })},
		{args: []string{"--random-seed=time"}, want: base(nil)},
		{args: []string{"--random-seed", "rand"}, want: base(nil)},
		{args: []string{"-D", "a=1", "--define", "b=x"}, want: base(func(s *config.Spec) { s.Defines = []string{"a=1", "b=x"} })},
		{args: []string{"-s", "7", "-D", "a=1", "-f", "x.sql"}, want: base(func(s *config.Spec) {
			s.Defines, s.Scripts = []string{"scale=7", "a=1"}, []string{"x.sql"}
		})},
		{args: []string{"-s", "7", "-D", "a=1"}, want: base(func(s *config.Spec) { s.Defines = []string{"a=1"} }), notes: 1},
		{args: []string{"-f", "my.sql@3", "-b", "select-only@1", "-S", "-N", "--file=x.sql", "-btpcb"}, want: base(func(s *config.Spec) {
			s.Scripts = []string{"my.sql@3", "builtin:select-only@1", "builtin:select-only", "builtin:simple-update", "x.sql", "builtin:tpcb"}
		})},
		{args: []string{"-r", "-n", "--failures-detailed"}, want: base(func(s *config.Spec) { s.PerStatement = true }), notes: 2},
		{args: []string{"-h", "db.example", "-p", "5433", "-U", "bob", "bench"}, want: base(func(s *config.Spec) {
			s.DB = "postgres://bob@db.example:5433/bench"
		})},
		{args: []string{"-h", "/tmp/sock"}, env: map[string]string{"PGDATABASE": "env", "PGPORT": "5444"}, want: base(func(s *config.Spec) {
			s.DB = "postgres://localhost/env?host=%2Ftmp%2Fsock&port=5444"
		})},
		{args: []string{"-c", "2", "sqlite:/tmp/x.db"}, want: base(func(s *config.Spec) { s.VU, s.DB = 2, "sqlite:/tmp/x.db" })},
		{args: []string{"mysql://u:p@h/db"}, want: base(func(s *config.Spec) { s.DB = "mysql://u:p@h/db" })},
	} {
		env := func(k string) string { return c.env[k] }
		inv, err := Parse(c.args, env)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.args, err)
			continue
		}
		if !reflect.DeepEqual(inv.Spec, c.want) {
			t.Errorf("Parse(%q):\n got %+v\nwant %+v", c.args, inv.Spec, c.want)
		}
		if len(inv.Notes) != c.notes {
			t.Errorf("Parse(%q): notes %q; want %d", c.args, inv.Notes, c.notes)
		}
	}
}

func TestParseInit(t *testing.T) {
	t.Parallel()
	base := func(edit func(*config.Spec)) config.Spec {
		s := config.New(config.KindBuild)
		s.Workload = "pgbench"
		s.Scale = 1
		s.Force, s.Confirm = true, true
		if edit != nil {
			edit(&s)
		}
		return s
	}
	for _, c := range []struct {
		args  []string
		want  config.Spec
		notes int
	}{
		{args: []string{"-i"}, want: base(nil)},
		{args: []string{"-i", "-s", "10", "db"}, want: base(func(s *config.Spec) { s.Scale, s.DB = 10, "postgres://localhost/db" })},
		{args: []string{"--initialize", "--scale=3", "-F", "90", "--foreign-keys"}, want: base(func(s *config.Spec) {
			s.Scale, s.Fillfactor, s.ForeignKeys = 3, 90, true
		})},
		{args: []string{"-i", "--partitions", "4", "--partition-method", "hash"}, want: base(func(s *config.Spec) {
			s.Partitions, s.PartitionMethod = 4, "hash"
		})},
		{args: []string{"-i", "--partitions=2"}, want: base(func(s *config.Spec) { s.Partitions = 2 })},
		{args: []string{"-i", "-I", "dtgvpf"}, want: base(func(s *config.Spec) { s.ForeignKeys = true }), notes: 1},
		{args: []string{"-i", "-I", "tGp"}, want: base(func(s *config.Spec) { s.Force, s.Confirm = false, false }), notes: 1},
		{args: []string{"-i", "-n"}, want: base(nil), notes: 1},
	} {
		inv, err := Parse(c.args, nil)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.args, err)
			continue
		}
		if !reflect.DeepEqual(inv.Spec, c.want) {
			t.Errorf("Parse(%q):\n got %+v\nwant %+v", c.args, inv.Spec, c.want)
		}
		if len(inv.Notes) != c.notes {
			t.Errorf("Parse(%q): notes %q, want %d", c.args, inv.Notes, c.notes)
		}
	}
}

func TestParseRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-x"}, "unknown option -x"},
		{[]string{"--bogus"}, "unknown option --bogus"},
		{[]string{"-C"}, "-C/--connect is not supported"},
		{[]string{"-l"}, "-l/--log is not supported"},
		{[]string{"--aggregate-interval", "5"}, "--aggregate-interval is not supported"},
		{[]string{"-L", "5"}, "-L/--latency-limit: only with -R"},
		{[]string{"-R", "10", "-T", "5", "-L", "0"}, "-L/--latency-limit: invalid"},
		{[]string{"-R", "10"}, "-R/--rate: give -T too"},
		{[]string{"-R", "10", "-t", "5"}, "-R/--rate: give -T too"},
		{[]string{"-i", "--unlogged-tables"}, "--unlogged-tables is not supported"},
		{[]string{"-c", "0"}, "-c/--client: invalid number of clients 0"},
		{[]string{"-c", "many"}, "invalid argument \"many\""},
		{[]string{"-c"}, "option needs an argument"},
		{[]string{"-j", "0"}, "-j/--jobs: invalid"},
		{[]string{"-T", "0"}, "-T/--time: invalid duration"},
		{[]string{"-T", "1.5"}, "-T/--time: invalid duration"},
		{[]string{"-t", "0"}, "-t/--transactions: invalid"},
		{[]string{"-t", "5", "-T", "5"}, "not both"},
		{[]string{"-R", "0", "-T", "5"}, "-R/--rate: invalid"},
		{[]string{"-R", "-3", "-T", "5"}, "-R/--rate: invalid"},
		{[]string{"-P", "0"}, "-P/--progress: invalid"},
		{[]string{"--max-tries", "0"}, "--max-tries: invalid"},
		{[]string{"--max-tries", "1000"}, "--max-tries: invalid"},
		{[]string{"-M", "fast"}, "-M/--protocol: invalid query mode \"fast\""},
		{[]string{"--random-seed", "abc"}, "--random-seed: invalid random seed"},
		{[]string{"--random-seed", "0"}, "--random-seed 0"},
		{[]string{"-D", "x"}, "-D/--define: invalid variable definition"},
		{[]string{"-D", "1a=2"}, "-D/--define: invalid variable name"},
		{[]string{"-s", "0"}, "-s/--scale: invalid scale factor"},
		{[]string{"-b", "nope"}, "-b nope: no built-in script named"},
		{[]string{"-b", "tpcb-like@x"}, "invalid weight"},
		{[]string{"-f", "@2"}, "-f: a script file is expected"},
		{[]string{"-F", "90"}, "-F/--fillfactor is an initialization option"},
		{[]string{"--foreign-keys"}, "--foreign-keys is an initialization option"},
		{[]string{"-i", "-c", "4"}, "-c/--client is a run option: not with -i"},
		{[]string{"-i", "-T", "4"}, "-T/--time is a run option"},
		{[]string{"-i", "-s", "1.5"}, "-s/--scale: invalid scale factor \"1.5\""},
		{[]string{"-i", "-F", "5"}, "-F/--fillfactor: invalid fillfactor 5"},
		{[]string{"-i", "--partition-method", "list", "--partitions", "2"}, "invalid partition method \"list\""},
		{[]string{"-i", "--partition-method", "hash"}, "requires greater than zero --partitions"},
		{[]string{"-i", "--partitions", "-1"}, "--partitions: invalid"},
		{[]string{"-i", "-I", "dtx"}, "unrecognized initialization step \"x\""},
		{[]string{"-i", "-I", "dt"}, "t, g or G, and p are needed"},
		{[]string{"a", "b"}, "too many command-line arguments (first is \"b\")"},
		{[]string{"-p", "abc", "db"}, "-p/--port: invalid port"},
		{[]string{"-h", "x", "postgres://h/db"}, "-h, -p and -U are not used with a URL"},
	} {
		_, err := Parse(c.args, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q): %v, want an error saying %q", c.args, err, c.want)
		}
	}
}

func TestParseHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--help"}, {"-?"}, {"-c", "4", "--help"}} {
		inv, err := Parse(args, nil)
		if err != nil || !inv.Help {
			t.Errorf("Parse(%q) = %+v, %v; want help", args, inv, err)
		}
	}
}

// TestTakeOptions takes the front end's own options out of a command line,
// spelled --NAME VALUE or --NAME=VALUE, and leaves pgbench's in order.
func TestTakeOptions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name             string
		args, wantRest   []string
		wantRepo, wantSv string
	}{
		{name: "none", args: []string{"-c", "8", "db"}, wantRest: []string{"-c", "8", "db"}},
		{name: "separate value", args: []string{"--repo", "r.db", "-c", "8"}, wantRest: []string{"-c", "8"}, wantRepo: "r.db"},
		{name: "joined value", args: []string{"-i", "--server=http://s", "db"}, wantRest: []string{"-i", "db"}, wantSv: "http://s"},
		{name: "both", args: []string{"--server", "http://s", "-T", "5", "--repo=r.db"}, wantRest: []string{"-T", "5"}, wantRepo: "r.db", wantSv: "http://s"},
		{name: "no value left", args: []string{"db", "--repo"}, wantRest: []string{"db", "--repo"}},
		{name: "not a prefix", args: []string{"--repository", "x"}, wantRest: []string{"--repository", "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var repo, server string
			rest := TakeOptions(tc.args, map[string]*string{"--repo": &repo, "--server": &server})
			if !reflect.DeepEqual(rest, tc.wantRest) || repo != tc.wantRepo || server != tc.wantSv {
				t.Errorf("rest %q, repo %q, server %q; want %q, %q, %q", rest, repo, server, tc.wantRest, tc.wantRepo, tc.wantSv)
			}
		})
	}
}

// TestOptionFieldsAreSpecFields: every field Option words is a field of
// config.Spec by its JSON name, so a renamed field cannot leave its error
// worded as a run flag again; a field no pgbench option sets has none.
func TestOptionFieldsAreSpecFields(t *testing.T) {
	t.Parallel()
	fields := map[string]bool{}
	st := reflect.TypeFor[config.Spec]()
	for i := range st.NumField() {
		name, _, _ := strings.Cut(st.Field(i).Tag.Get("json"), ",")
		fields[name] = true
	}
	for field, opt := range options {
		if !fields[field] {
			t.Errorf("options[%q] = %q: no config.Spec field has that JSON name", field, opt)
		}
	}
	if o := Option("warehouses"); o != "" {
		t.Errorf("Option(warehouses) = %q: no pgbench option sets it", o)
	}
	// Every field a command line sets has the option that set it (those
	// the job service may refuse; the per-statement report cannot be).
	env := func(string) string { return "" }
	for _, args := range [][]string{
		{"-c", "3", "-T", "9", "-R", "10", "-L", "5", "-P", "2", "--max-tries", "3", "-M", "extended",
			"--random-seed", "7", "-f", "x.sql", "-D", "a=1", "postgres://u@h/db"},
		{"-i", "-s", "3", "-F", "90", "--foreign-keys", "--partitions", "2", "--partition-method", "hash", "postgres://u@h/db"},
	} {
		set, err := Parse(args, env)
		if err != nil {
			t.Fatal(err)
		}
		base, err := Parse(args[len(args)-1:], env)
		if err != nil {
			t.Fatal(err)
		}
		if args[0] == "-i" {
			base, _ = Parse([]string{"-i", args[len(args)-1]}, env)
		}
		a, b := reflect.ValueOf(set.Spec), reflect.ValueOf(base.Spec)
		for i := range st.NumField() {
			name, _, _ := strings.Cut(st.Field(i).Tag.Get("json"), ",")
			if name != "per_statement" && !reflect.DeepEqual(a.Field(i).Interface(), b.Field(i).Interface()) && Option(name) == "" {
				t.Errorf("%v sets %s, which Option does not name", args, name)
			}
		}
	}
}
