package main

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/testdb"
	"github.com/sledge-bench/sledge/internal/testdb/tpcctest"
)

// What HammerDB prints for the refused settings of keysScript, and the
// script carries on: nothing is changed.
const keysRefusals = `Dictionary "tpcc" for PostgreSQL exists but key "pg_cuont_ware" doesn't, key "pg_cuont_ware" cannot be found in any PostgreSQL dictionary
Type "print dict" for valid dictionaries and keys for PostgreSQL
Usage: diset dict key value
Dictionary "conection" for PostgreSQL does not exist
Type "print dict" for valid dictionaries and keys for PostgreSQL
Dictionary "tpcc" for PostgreSQL exists but key "pg_host" doesn't, key "pg_host" is in the "connection" dictionary
Type "print dict" for valid dictionaries and keys for PostgreSQL
Error: Driver script must be either "test" or "timed"
Changed tpcc:pg_count_ware from 1 to 5 for PostgreSQL
Value 5 for tpcc:pg_count_ware is the same as existing value 5, no change made
Dictionary "tpcc" for MariaDB exists but key "pg_count_ware" doesn't, key "pg_count_ware" cannot be found in any MariaDB dictionary
Type "print dict" for valid dictionaries and keys for MariaDB
Dictionary "commandline" exists but key "keepalive" doesn't
Type "print generic" for valid dictionaries and keys
Changed commandline:keepalive_margin from 60 to 5 for generic
carried on
`

// checkKeysOutput checks a keysScript run: HammerDB's messages in order,
// then print dict of MariaDB (defaults, nothing set) and of PostgreSQL
// (pg_count_ware 5, the refused values not there).
func checkKeysOutput(t *testing.T, out string) {
	t.Helper()
	if !strings.Contains(out, keysRefusals) {
		t.Errorf("refusals: got\n%s\nwant in it\n%s", out, keysRefusals)
	}
	for _, re := range []string{
		`(?m)^Dictionary Settings for MariaDB\nconnection \{\n maria_host +=  ?127\.0\.0\.1\n`,
		`(?m)^tpcc +\{\n maria_count_ware += 1\n`,
		`(?m)^Dictionary Settings for PostgreSQL\nconnection \{\n pg_host    = localhost\n pg_port    = 5432\n pg_sslmode = prefer\n\}\ntpcc +\{\n pg_count_ware += 5\n`,
		`(?m)^ pg_driver += timed$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("print dict: no match of %s in\n%s", re, out)
		}
	}
	if strings.Contains(out, "pg_cuont_ware  ") || strings.Contains(out, " = x\n") {
		t.Errorf("a refused setting was kept:\n%s", out)
	}
}

// A Tcl script's mistyped key and dictionary are refused with HammerDB's
// messages, and the script carries on with its settings unchanged.
func TestTclDisetRefusesAsHammerDB(t *testing.T) {
	needTclsh(t)
	t.Parallel()
	e := newEnv(t)
	script := `diset tpcc pg_cuont_ware 5
diset conection pg_host x
diset tpcc pg_host x
diset tpcc pg_driver fast
diset tpcc pg_count_ware 5
diset tpcc pg_count_ware 5
dbset db maria
diset tpcc pg_count_ware 7
giset commandline keepalive 5
giset commandline keepalive_margin 5
puts "carried on"
print dict
dbset db pg
print dict
`
	path := filepath.Join(t.TempDir(), "keys.tcl")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := e.process("", "cli", "auto", path)
	if err != nil {
		t.Fatalf("script stopped: %v\n%s", err, out)
	}
	// dbset prints its own line between the settings.
	checkKeysOutput(t, strings.Replace(out, "Database set to MariaDB\n", "", 1))
}

// The Python front end refuses them alike, from the same table (`sledge cli
// keys`).
func TestPythonDisetRefusesAsHammerDB(t *testing.T) {
	testdb.Command(t, "python3", "python3")
	t.Parallel()
	e := newEnv(t)
	script := `diset('tpcc', 'pg_cuont_ware', 5)
diset('conection', 'pg_host', 'x')
diset('tpcc', 'pg_host', 'x')
diset('tpcc', 'pg_driver', 'fast')
diset('tpcc', 'pg_count_ware', 5)
diset('tpcc', 'pg_count_ware', '5')
dbset('db', 'maria')
diset('tpcc', 'pg_count_ware', 7)
giset('commandline', 'keepalive', 5)
giset('commandline', 'keepalive_margin', 5)
print('carried on')
print_('dict')
dbset('db', 'pg')
print_('dict')
`
	path := filepath.Join(t.TempDir(), "keys.py")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := e.process("", "cli", "py", "auto", path)
	if err != nil {
		t.Fatalf("script stopped: %v\n%s", err, out)
	}
	checkKeysOutput(t, strings.Replace(out, "Database set to MariaDB\n", "", 1))
}

// `sledge cli keys` prints the table the front ends use: JSON, or Tcl.
func TestCLIKeysCommand(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	out := e.ok("cli", "keys")
	var table struct {
		Databases []struct {
			DB    string `json:"db"`
			Dicts []struct {
				Dict string `json:"dict"`
				Keys []struct {
					Key, Default, Treatment string
				} `json:"keys"`
			} `json:"dicts"`
		} `json:"databases"`
		Generic []struct {
			Dict string `json:"dict"`
		} `json:"generic"`
	}
	if err := json.Unmarshal([]byte(out), &table); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(table.Databases) != 3 || table.Databases[1].DB != "maria" || table.Databases[0].Dicts[1].Keys[0].Key != "pg_count_ware" ||
		table.Databases[0].Dicts[1].Keys[0].Treatment != "maps" || len(table.Generic) != 14 {
		t.Errorf("table: %+v", table)
	}
	tcl := e.ok("cli", "keys", "--tcl")
	if !strings.Contains(tcl, "dict set ::sledge::keytable maria dicts connection maria_ssl_windows_capath {C:\\mysql\\certs}\n") {
		t.Errorf("Tcl table:\n%s", tcl)
	}
}

// Keys that map do what HammerDB does with them: pg_superuser creates the
// database, pg_storedprocs runs the routines without a notice, the test
// driver with pg_total_iterations is an iteration run, and jobs ID dict
// shows the whole dictionary with HammerDB's defaults.
func TestTclMappedKeysPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	needTclsh(t)
	t.Parallel()
	e := newEnv(t)
	u, err := url.Parse(testdb.Postgres(t))
	if err != nil {
		t.Fatal(err)
	}
	pass, _ := u.User.Password()
	script := `diset connection pg_host ` + u.Hostname() + `
diset connection pg_port ` + u.Port() + `
diset connection pg_sslmode disable
diset tpcc pg_superuser ` + u.User.Username() + `
diset tpcc pg_superuserpass {` + pass + `}
diset tpcc pg_defaultdbase ` + strings.TrimPrefix(u.Path, "/") + `
diset tpcc pg_user keys_owner
diset tpcc pg_pass {owner pw}
diset tpcc pg_dbase keys_mapped
diset tpcc pg_storedprocs true
diset tpcc pg_async_scale true
buildschema
diset tpcc pg_driver test
diset tpcc pg_total_iterations 30
vuset vu 2
vucreate
set id [vurun]
puts DICT
jobs $id dict
`
	path := filepath.Join(t.TempDir(), "mapped.tcl")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := e.process("", "cli", "auto", path)
	if err != nil {
		t.Fatalf("script: %v\n%s", err, out)
	}
	run, dict, _ := strings.Cut(out, "\nDICT\n")
	for _, want := range []string{"created database keys_mapped", "30 transactions per VU",
		"Notice: diset tpcc pg_async_scale true: asynchronous clients are the timed driver's (HammerDB's test driver has none): one session per VU\n"} {
		if !strings.Contains(run, want) {
			t.Errorf("output lacks %q:\n%s", want, run)
		}
	}
	if strings.Contains(run, "not honoured") || strings.Contains(run, "Notice: diset tpcc pg_storedprocs") {
		t.Errorf("a notice for a key that maps:\n%s", run)
	}
	var d map[string]map[string]string
	if err := json.Unmarshal([]byte(dict), &d); err != nil {
		t.Fatalf("jobs dict: %v\n%s", err, dict)
	}
	superpass := "" // the sandbox's superuser may have no password
	if pass != "" {
		superpass = "xxxxx"
	}
	for k, want := range map[string]string{"pg_storedprocs": "true", "pg_driver": "test", "pg_total_iterations": "30",
		"pg_dbase": "keys_mapped", "pg_vacuum": "false", "pg_rampup": "2", "pg_superuserpass": superpass, "pg_pass": "xxxxx"} {
		if d["tpcc"][k] != want {
			t.Errorf("jobs dict tpcc %s = %q, want %q", k, d["tpcc"][k], want)
		}
	}
	if len(d["tpcc"]) != 28 || len(d["connection"]) != 3 || d["connection"]["pg_sslmode"] != "disable" || d["tpch"] != nil {
		t.Errorf("jobs dict: %v", d)
	}
}

// pg_vacuum true with a benchmark user that may not CHECKPOINT (as the user
// HammerDB's buildschema creates): the checkpoint is taken as pg_superuser
// in pg_defaultdbase, as HammerDB takes it, the vacuum as the user.
func TestTclVacuumChecksPointAsSuperuser(t *testing.T) {
	if testing.Short() {
		t.Skip("runs on PostgreSQL")
	}
	t.Parallel()
	needTclsh(t)
	raw := tpcctest.Postgres(t, tpcctest.Options{})
	const role = "hdb_vacuum_user"
	// The role owns the schema's tables and routines, as the owner of a
	// HammerDB build does, and is no superuser.
	targetExec(t, raw, "DROP ROLE IF EXISTS "+role, "CREATE ROLE "+role+" LOGIN", "GRANT CREATE ON SCHEMA public TO "+role,
		`DO $$ DECLARE o record; BEGIN
		   FOR o IN SELECT 'TABLE ' || c.oid::regclass AS what FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		              WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
		            UNION ALL SELECT 'ROUTINE ' || p.oid::regprocedure FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		              WHERE n.nspname = 'public' LOOP
		     EXECUTE 'ALTER ' || o.what || ' OWNER TO `+role+`';
		   END LOOP; END $$`)
	t.Cleanup(func() {
		targetExec(t, raw, "DROP OWNED BY "+role, "DROP ROLE IF EXISTS "+role)
	})
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	su, _ := u.User.Password()
	script := strings.Join([]string{"dbset db pg", "dbset bm TPROC-C",
		"diset connection pg_host " + u.Hostname(), "diset connection pg_port " + u.Port(),
		"diset tpcc pg_superuser " + u.User.Username(), "diset tpcc pg_superuserpass {" + su + "}",
		"diset tpcc pg_defaultdbase postgres",
		"diset tpcc pg_user " + role, "diset tpcc pg_pass {}", "diset tpcc pg_dbase " + strings.TrimPrefix(u.Path, "/"),
		"diset tpcc pg_rampup 0", "diset tpcc pg_duration 0.02", "diset tpcc pg_vacuum true",
		"vuset vu 1", "vurun", ""}, "\n")
	e := newEnv(t)
	out := e.runScript("vacuum.tcl", script)
	wantLines(t, "vacuum.tcl", out, `Vuser 1:TEST RESULT : System achieved \d+ NOPM from \d+ PostgreSQL TPM`,
		`Vuser 1:Checkpoint and Vacuum`, `Vuser 1:Checkpoint and Vacuum Complete`)
	if strings.Contains(out, "Error") || strings.Contains(out, "checkpoint as the benchmark's user") {
		t.Errorf("vacuum.tcl printed an error or did not checkpoint as the superuser:\n%s", out)
	}
	// A superuser the server does not know, a benchmark user who may
	// checkpoint: the checkpoint is the user's, and the line says why.
	script = strings.NewReplacer("diset tpcc pg_superuser "+u.User.Username(), "diset tpcc pg_superuser nobody_here",
		"diset tpcc pg_user "+role, "diset tpcc pg_user "+u.User.Username()).Replace(script)
	out = e.runScript("fallback.tcl", script)
	wantLines(t, "fallback.tcl", out, `Vuser 1:checkpoint as the benchmark's user: no connection as nobody_here \(diset tpcc pg_superuser\) to postgres .*`,
		`Vuser 1:Checkpoint and Vacuum Complete`)
}
