package script

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// state is a session of database dbset and benchmark bm with the dicts'
// settings given as "dict.key", value pairs and vuset vu.
func state(dbset, bm, vu string, kv ...string) *State {
	st := &State{DB: dbset, BM: bm, Dicts: map[string]map[string]string{"connection": {}, "tpcc": {}, "tpch": {}},
		VU: map[string]string{"vu": vu, "delay": "500", "repeat": "500", "iterations": "1", "showoutput": "1",
			"logtotemp": "0", "unique": "0", "timestamps": "0"}}
	for i := 0; i+1 < len(kv); i += 2 {
		d, k, _ := strings.Cut(kv[i], ".")
		if st.Dicts[d] == nil {
			st.Dicts[d] = map[string]string{}
		}
		st.Dicts[d][k] = kv[i+1]
	}
	return st
}

func minutes(m float64) config.Duration { return config.Duration(m * float64(time.Minute)) }

// The HammerDB settings of each database and benchmark map onto the job's
// spec: Sledge's defaults (config.New) with what the settings change.
func TestSpecMapping(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		st     *State
		action string
		kind   string
		want   func(s *config.Spec) // changes to config.New(kind)
	}{
		{"pg build defaults", state("pg", "TPROC-C", "1"), "buildschema", config.KindBuild, func(s *config.Spec) {
			s.DB = "postgres://tpcc:tpcc@localhost:5432/tpcc?sslmode=prefer"
			s.Warehouses, s.Workers = 1, 1
		}},
		{"pg build", state("pg", "TPROC-C", "1", "connection.pg_host", "db1", "connection.pg_port", "5433",
			"tpcc.pg_user", "bench", "tpcc.pg_pass", "p@ss word", "tpcc.pg_dbase", "tpcc4",
			"tpcc.pg_count_ware", "4", "tpcc.pg_num_vu", "2", "tpcc.pg_superuser", "admin"), "buildschema", config.KindBuild, func(s *config.Spec) {
			s.DB = "postgres://bench:p%40ss%20word@db1:5433/tpcc4?sslmode=prefer"
			s.Warehouses, s.Workers = 4, 2
		}},
		{"pg build with TLS", state("pg", "TPROC-C", "1", "connection.pg_sslmode", "require"), "buildschema", config.KindBuild, func(s *config.Spec) {
			s.DB = "postgres://tpcc:tpcc@localhost:5432/tpcc?sslmode=require"
			s.Warehouses, s.Workers = 1, 1
		}},
		{"maria build", state("maria", "TPROC-C", "1", "connection.maria_host", "db2", "tpcc.maria_count_ware", "8",
			"tpcc.maria_num_vu", "4", "tpcc.maria_no_stored_procs", "true"), "buildschema", config.KindBuild, func(s *config.Spec) {
			s.DB = "mysql://root:maria@db2:3306/tpcc"
			s.Warehouses, s.Workers, s.Engine = 8, 4, "innodb"
		}},
		{"mysql build, socket null: TCP", state("mysql", "TPROC-C", "1", "connection.mysql_socket", "null",
			"tpcc.mysql_user", "u", "tpcc.mysql_pass", "p", "tpcc.mysql_count_ware", "2", "tpcc.mysql_storage_engine", "MyRocks"), "buildschema", config.KindBuild, func(s *config.Spec) {
			s.DB = "mysql://u:p@127.0.0.1:3306/tpcc"
			s.Warehouses, s.Workers, s.Engine = 2, 1, "MyRocks"
		}},
		{"pg TPROC-H build", state("pg", "TPROC-H", "1", "tpch.pg_scale_fact", "0.1", "tpch.pg_num_tpch_threads", "3",
			"tpch.pg_tpch_user", "h", "tpch.pg_tpch_pass", "hp", "tpch.pg_tpch_dbase", "tpch01",
			"tpcc.pg_count_ware", "9"), "buildschema", config.KindBuild, func(s *config.Spec) {
			s.DB, s.Workload = "postgres://h:hp@localhost:5432/tpch01?sslmode=prefer", "tproch"
			s.Scale, s.Workers = 0.1, 3
		}},
		{"maria TPROC-H build, older benchmark name", state("maria", "TPC-H" /* HammerDB's old name, a TPC trademark: accepted as input */, "1", "tpch.maria_scale_fact", "10",
			"connection.maria_socket", "null"), "buildschema", config.KindBuild, func(s *config.Spec) {
			s.DB, s.Workload = "mysql://root:maria@127.0.0.1:3306/tpch", "tproch"
			s.Scale, s.Workers = 10, 1
		}},
		{"pg check", state("pg", "TPROC-C", "1", "tpcc.pg_dbase", "x"), "checkschema", config.KindCheck, func(s *config.Spec) {
			s.DB = "postgres://tpcc:tpcc@localhost:5432/x?sslmode=prefer"
		}},
		{"maria TPROC-H check", state("maria", "TPROC-H", "1", "tpch.maria_tpch_dbase", "h"), "checkschema", config.KindCheck, func(s *config.Spec) {
			s.DB, s.Workload = "mysql://root:maria@127.0.0.1:3306/h", "tproch"
		}},
		{"mysql TPROC-H delete", state("mysql", "TPROC-H", "1", "connection.mysql_host", "localhost", "connection.mysql_socket", "NULL"), "deleteschema", config.KindDrop, func(s *config.Spec) {
			s.DB, s.Workload, s.Confirm = "mysql://root:mysql@localhost:3306/tpch", "tproch", true
		}},
		{"pg vurun timed, minutes with decimals", state("pg", "TPROC-C", "8", "tpcc.pg_driver", "timed",
			"tpcc.pg_rampup", "0.5", "tpcc.pg_duration", "1.5"), "vurun", config.KindRun, func(s *config.Spec) {
			s.DB = "postgres://tpcc:tpcc@localhost:5432/tpcc?sslmode=prefer"
			s.VU, s.Rampup, s.Duration = 8, minutes(0.5), minutes(1.5)
			s.Mode, s.RandomHome = "procs", true
		}},
		{"pg vurun defaults: HammerDB's timed driver", state("pg", "TPROC-C", "2"), "vurun", config.KindRun, func(s *config.Spec) {
			s.DB = "postgres://tpcc:tpcc@localhost:5432/tpcc?sslmode=prefer"
			s.VU, s.Rampup, s.Duration = 2, minutes(2), minutes(5)
			s.Mode, s.RandomHome = "procs", true
		}},
		{"pg vurun test driver: an iteration run", state("pg", "TPROC-C", "1", "tpcc.pg_driver", "test", "tpcc.pg_total_iterations", "1000",
			"tpcc.pg_rampup", "3"), "vurun", config.KindRun, func(s *config.Spec) {
			s.DB = "postgres://tpcc:tpcc@localhost:5432/tpcc?sslmode=prefer"
			s.VU, s.Rampup, s.Iterations = 1, 0, 1000
			s.Mode, s.RandomHome = "procs", true
		}},
		{"short run: shorter intervals", state("pg", "TPROC-C", "1", "tpcc.pg_driver", "timed", "tpcc.pg_rampup", "0",
			"tpcc.pg_duration", "0.1"), "vurun", config.KindRun, func(s *config.Spec) {
			s.DB = "postgres://tpcc:tpcc@localhost:5432/tpcc?sslmode=prefer"
			s.VU, s.Rampup, s.Duration, s.Interval = 1, 0, config.Duration(6*time.Second), config.Duration(2*time.Second)
			s.Mode, s.RandomHome = "procs", true
		}},
		{"maria_no_stored_procs: mode sql", state("maria", "TPROC-C", "4", "tpcc.maria_driver", "timed", "tpcc.maria_rampup", "0",
			"tpcc.maria_duration", "1", "tpcc.maria_no_stored_procs", "true", "connection.maria_host", "db2"), "vurun", config.KindRun, func(s *config.Spec) {
			s.DB = "mysql://root:maria@db2:3306/tpcc"
			s.VU, s.Rampup, s.Duration, s.Mode, s.RandomHome = 4, 0, minutes(1), "sql", true
			s.SnapshotIsolation = "off" // as HammerDB 6's MariaDB driver sets it (Sledge's default too)
		}},
		{"maria_timeprofile true: per-VU timing", state("maria", "TPROC-C", "2", "tpcc.maria_timeprofile", "true"), "vurun", config.KindRun, func(s *config.Spec) {
			s.DB = "mysql://root:maria@127.0.0.1:3306/tpcc"
			s.VU, s.Rampup, s.Duration, s.Mode, s.RandomHome, s.PerVUTiming = 2, minutes(2), minutes(5), "procs", true, true
			s.SnapshotIsolation = "off"
		}},
		{"pg_no_stored_procs is not PostgreSQL's", state("pg", "TPROC-C", "1", "tpcc.pg_no_stored_procs", "true"), "vurun", config.KindRun, func(s *config.Spec) {
			s.DB = "postgres://tpcc:tpcc@localhost:5432/tpcc?sslmode=prefer"
			s.VU, s.Rampup, s.Duration = 1, minutes(2), minutes(5)
			s.Mode, s.RandomHome = "procs", true
		}},
		{"mysql keyandthink: paced", state("mysql", "TPROC-C", "10", "tpcc.mysql_keyandthink", "true",
			"tpcc.mysql_driver", "timed", "tpcc.mysql_rampup", "1", "tpcc.mysql_duration", "10", "connection.mysql_host", "db3"), "vurun", config.KindRun, func(s *config.Spec) {
			s.DB = "mysql://root:mysql@db3:3306/tpcc"
			s.VU, s.Rampup, s.Duration, s.Pacing, s.PacingScale = 10, minutes(1), minutes(10), "spec", 1
			s.Mode, s.RandomHome = "procs", true
			s.SnapshotIsolation = "server" // HammerDB's MySQL driver leaves innodb_snapshot_isolation alone
		}},
		{"pg TPROC-H vurun: VUs are streams", state("pg", "TPROC-H", "4", "tpch.pg_total_querysets", "2",
			"tpch.pg_refresh_on", "true"), "vurun", config.KindRun, func(s *config.Spec) {
			s.DB, s.Workload = "postgres://tpch:tpch@localhost:5432/tpch?sslmode=prefer", "tproch"
			s.VU, s.Streams, s.QuerySets, s.Refresh = 4, 4, 2, true
		}},
		{"maria TPROC-H vurun, one VU: the power test only", state("maria", "TPROC-H", "1", "connection.maria_host", "db2"), "vurun", config.KindRun, func(s *config.Spec) {
			s.DB, s.Workload = "mysql://root:maria@db2:3306/tpch", "tproch"
			s.VU = 1
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := newHammer(tc.st, Env{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := h.spec(tc.action)
			if err != nil {
				t.Fatalf("spec(%s): %v", tc.action, err)
			}
			want := config.New(tc.kind)
			tc.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("spec(%s)\n got %+v\nwant %+v", tc.action, got, want)
			}
		})
	}
}

// Settings that are not even of the right type are refused by the mapping,
// named as the script set them.
func TestSpecMappingErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		st     *State
		action string
		want   string
	}{
		{"count_ware", state("pg", "TPROC-C", "1", "tpcc.pg_count_ware", "four"), "buildschema", `diset tpcc pg_count_ware "four": want a whole number`},
		{"in the connection dict", state("maria", "TPROC-C", "1", "connection.maria_num_vu", "2.5"), "buildschema", `diset connection maria_num_vu "2.5": want a whole number`},
		{"scale_fact", state("pg", "TPROC-H", "1", "tpch.pg_scale_fact", "big"), "buildschema", `diset tpch pg_scale_fact "big": want a number`},
		{"duration", state("mysql", "TPROC-C", "1", "tpcc.mysql_duration", "5m"), "vurun", `diset tpcc mysql_duration "5m": want minutes`},
		{"vu", state("pg", "TPROC-C", "many"), "vurun", `vuset vu "many": want a whole number of virtual users`},
		{"total_querysets", state("pg", "TPROC-H", "2", "tpch.pg_total_querysets", "x"), "vurun", `diset tpch pg_total_querysets "x": want a whole number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := newHammer(tc.st, Env{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = h.spec(tc.action)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("spec(%s): %v, want %q", tc.action, err, tc.want)
			}
		})
	}
	if _, err := newHammer(&State{DB: "oracle"}, Env{}); err == nil || !strings.Contains(err.Error(), "Sledge drives pg, maria and mysql") {
		t.Errorf("dbset db oracle: %v", err)
	}
}

// newService is a job service over a new, empty repository.
func newService(t *testing.T) (*app.Service, *jobs.Repo) {
	t.Helper()
	repo, err := jobs.Open(context.Background(), filepath.Join(t.TempDir(), "jobs.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	// Not owning the process, unlike `sledge cli`'s: GOMAXPROCS is the
	// whole test binary's, and the tests run in parallel.
	return app.New(app.Options{Repo: repo}), repo
}

func noJobs(t *testing.T, repo *jobs.Repo) {
	t.Helper()
	all, err := repo.List(context.Background(), jobs.ListFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 0 {
		t.Errorf("%d jobs recorded, want none: %+v", len(all), all)
	}
}

// Invalid settings are worded as the HammerDB settings that set them, and
// create nothing: no job, no SLEDGE-JOB line, exit status 1. None of these
// reaches a server (there is none at these addresses).
func TestDoFieldErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		st     *State
		action string
		want   string // the output, exactly
	}{
		{"vu 0", state("pg", "TPROC-C", "0"), "vurun", "Error: vuset vu: vu must be at least 1 (got 0)\n"},
		{"TPROC-H vu 0", state("maria", "TPROC-H", "0"), "vurun", "Error: vuset vu: vu must be at least 1 (got 0)\n"},
		{"negative count_ware", state("maria", "TPROC-C", "1", "tpcc.maria_count_ware", "-3"), "buildschema",
			"Error: diset tpcc maria_count_ware: warehouses must be at least 1 (got -3)\n"},
		{"count_ware in the connection dict", state("pg", "TPROC-C", "1", "connection.pg_count_ware", "0"), "buildschema",
			"Error: diset connection pg_count_ware: warehouses must be at least 1 (got 0)\n"},
		{"negative num_vu", state("mysql", "TPROC-C", "1", "tpcc.mysql_num_vu", "-1"), "buildschema",
			"Error: diset tpcc mysql_num_vu: workers must not be negative (got -1)\n"},
		{"negative num_tpch_threads", state("pg", "TPROC-H", "1", "tpch.pg_num_tpch_threads", "-2"), "buildschema",
			"Error: diset tpch pg_num_tpch_threads: workers must not be negative (got -2)\n"},
		{"scale_fact too small", state("pg", "TPROC-H", "1", "tpch.pg_scale_fact", "0.0001"), "buildschema",
			"Error: diset tpch pg_scale_fact: scale must be at least 0.001 (got 0.0001)\n"},
		{"negative rampup, duration 0", state("pg", "TPROC-C", "2", "tpcc.pg_driver", "timed", "tpcc.pg_rampup", "-1",
			"tpcc.pg_duration", "0"), "vurun",
			"Error: diset tpcc pg_rampup: rampup must not be negative (got -1m0s)\nError: diset tpcc pg_duration: duration must be positive (got 0s)\n"},
		{"total_querysets 0", state("mysql", "TPROC-H", "2", "tpch.mysql_total_querysets", "0"), "vurun",
			"Error: diset tpch mysql_total_querysets: query_sets must be at least 1 (got 0)\n"},
		{"not a number", state("pg", "TPROC-C", "1", "tpcc.pg_count_ware", "four"), "buildschema",
			"Error: diset tpcc pg_count_ware \"four\": want a whole number\n"},
		{"unknown action", state("pg", "TPROC-C", "1"), "vudestroy", "Error: cli do: unknown action \"vudestroy\"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc, repo := newService(t)
			var out bytes.Buffer
			err := Do(context.Background(), &out, svc, Env{}, tc.action, tc.st)
			var exit interface{ ExitCode() int }
			if err == nil || !asExit(err, &exit) || exit.ExitCode() != 1 {
				t.Errorf("Do %s: %v, want exit status 1", tc.action, err)
			}
			if out.String() != tc.want {
				t.Errorf("Do %s printed\n%q\nwant\n%q", tc.action, out.String(), tc.want)
			}
			noJobs(t, repo)
		})
	}
}

func asExit(err error, target *interface{ ExitCode() int }) bool {
	e, ok := err.(interface{ ExitCode() int })
	if ok {
		*target = e
	}
	return ok
}

// vurun with vu 0 creates no job: the error names vuset vu, and the
// repository stays empty.
func TestDoVurunWithoutVUsCreatesNoJob(t *testing.T) {
	t.Parallel()
	svc, repo := newService(t)
	var out bytes.Buffer
	err := Do(context.Background(), &out, svc, Env{}, "vurun", state("pg", "TPROC-C", "0", "tpcc.pg_driver", "timed"))
	if err == nil {
		t.Fatal("vurun with vu 0 succeeded")
	}
	if ee, ok := err.(ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("error %#v, want ExitError{1}", err)
	}
	if !strings.Contains(out.String(), "Error: vuset vu: vu must be at least 1 (got 0)") {
		t.Errorf("output %q does not name vuset vu", out.String())
	}
	if strings.Contains(out.String(), JobLine) || strings.Contains(out.String(), "--vu") {
		t.Errorf("output %q: a job line or a CLI flag", out.String())
	}
	noJobs(t, repo)
}

func TestSettingsRecorded(t *testing.T) {
	t.Parallel()
	st := state("maria", "TPROC-C", "1", "connection.maria_host", "db1", "tpcc.maria_count_ware", "2",
		"tpcc.pg_count_ware", "9", "commandline.keepalive_margin", "5")
	st.ProfileID = 3
	h, err := newHammer(st, Env{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"hammerdb.connection.maria_host": "db1", "hammerdb.tpcc.maria_count_ware": "2", ConfigProfileID: "3"}
	if got := h.settings(); !reflect.DeepEqual(got, want) {
		t.Errorf("settings %v, want %v", got, want)
	}
}

func TestNoticesReported(t *testing.T) {
	t.Parallel()
	st := state("pg", "TPROC-C", "2", "tpcc.pg_driver", "test", "tpcc.pg_allwarehouse", "true", "tpcc.pg_odd", `a {b} $c`,
		"tpcc.pg_count_ware", "4", "tpcc.maria_odd", "x", "tpcc.pg_connect_pool", "true", "nodict.k", "v")
	st.VU["delay"] = "20"
	h, err := newHammer(st, Env{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.spec("vurun"); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	h.report(&out)
	want := "Notice: diset tpcc pg_connect_pool true: HammerDB's cluster connect pool (each VU holding connections to several instances, from connectpool/*.xml) is not implemented: each VU's session is to the target\n" +
		"Notice: giset nodict k v: not a HammerDB generic key: ignored\n" +
		"Notice: diset tpcc pg_odd a {b} $c: not a HammerDB key of PostgreSQL: ignored\n" +
		"Notice: diset tpcc pg_allwarehouse true: each VU keeps one home warehouse, the VUs spread evenly over the warehouses " +
		"(HammerDB would give each VU a share of all warehouses and a new one for every transaction)\n" +
		"Notice: vuset delay 20: VUs start together after the ramp-up stagger\n"
	if out.String() != want {
		t.Errorf("notices\n%s\nwant\n%s", out.String(), want)
	}
}

// The `sledge cli job` contract: a spec in, the job's output and its
// SLEDGE-JOB line out; an invalid spec creates nothing.
func TestJobContract(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, spec, want string }{
		{"invalid field", `{"kind":"run","vu":-1,"rampup":"-5s"}`, "Error: vu: vu must be at least 1 (got -1)\nError: rampup: rampup must not be negative (got -5s)\n"},
		{"unknown field", `{"kind":"run","frob":1}`, "Error: frob: unknown field \"frob\"\n"},
		{"not JSON", `{"kind":`, "Error: body: unexpected EOF\n"},
		{"no kind", `{}`, "Error: kind: kind is required: build, run, check, drop\n"},
		{"bad target", `{"kind":"check","db":"oracle://x"}`, ""},
		// The mixed run's fields pass through as any spec field: decoded,
		// and judged by the service's rules.
		{"analytic streams negative", `{"kind":"run","workload":"chbench","analytic_streams":-1,"analytic_delay":"-1s"}`,
			"Error: analytic_streams: analytic_streams must not be negative (got -1)\nError: analytic_delay: analytic_delay must not be negative (got -1s)\n"},
		{"analytic streams of tprocc", `{"kind":"run","workload":"tprocc","analytic_streams":2}`,
			"Error: analytic_streams: analytic_streams apply to workload chbench only: workload tprocc runs no analytic streams beside its transactions\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc, repo := newService(t)
			var out bytes.Buffer
			err := Job(context.Background(), &out, svc, []byte(tc.spec))
			if ee, ok := err.(ExitError); !ok || ee.Code != 1 {
				t.Errorf("Job: %v, want ExitError{1}", err)
			}
			if tc.want != "" && out.String() != tc.want {
				t.Errorf("Job printed\n%q\nwant\n%q", out.String(), tc.want)
			}
			if !strings.HasPrefix(out.String(), "Error: ") || strings.Contains(out.String(), JobLine) {
				t.Errorf("Job printed %q", out.String())
			}
			noJobs(t, repo)
		})
	}
}

func TestTclPreludeEmbedded(t *testing.T) {
	t.Parallel()
	for _, want := range []string{"proc vurun", "cli do $name", "SLEDGE-JOB", "proc jobs"} {
		if !strings.Contains(TclPrelude, want) {
			t.Errorf("TclPrelude lacks %q", want)
		}
	}
}

// A spec as the Python API sends it runs as a job and ends with its
// SLEDGE-JOB line; a job that fails still has one, with exit status 1.
func TestJobRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	t.Parallel()
	svc, repo := newService(t)
	target := "sqlite:" + filepath.Join(t.TempDir(), "tpcc.db")
	for i, tc := range []struct {
		spec, status string
		ok           bool
	}{
		{`{"kind":"build","workload":"tprocc","db":"` + target + `","warehouses":1,"workers":1}`, "completed", true},
		{`{"kind":"run","workload":"tprocc","db":"` + target + `","vu":2,"rampup":"0s","duration":"1s","interval":"1s","seed":7}`, "completed", true},
		{`{"kind":"build","workload":"tprocc","db":"` + target + `"}`, "failed", false}, // the schema exists
	} {
		var out bytes.Buffer
		err := Job(context.Background(), &out, svc, []byte(tc.spec))
		if (err == nil) != tc.ok {
			t.Errorf("Job %s: %v\n%s", tc.spec, err, out.String())
		}
		line := fmt.Sprintf("%s %d %s\n", JobLine, i+1, tc.status)
		if !strings.HasSuffix(out.String(), line) {
			t.Errorf("Job %s: output does not end with %q:\n%s", tc.spec, line, out.String())
		}
	}
	all, err := repo.List(context.Background(), jobs.ListFilter{})
	if err != nil || len(all) != 3 {
		t.Errorf("%d jobs recorded, want 3 (%v)", len(all), err)
	}
}
