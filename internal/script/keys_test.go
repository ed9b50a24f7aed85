package script

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/testdb"
)

// HammerDB 6's config files hold these numbers of keys per dictionary
// (config/postgresql.xml, mariadb.xml, mysql.xml at the HammerDB commit the
// table was written from).
func TestKeyTableCounts(t *testing.T) {
	t.Parallel()
	want := map[string]map[string]int{
		"pg":    {"connection": 3, "tpcc": 28, "tpch": 21},
		"maria": {"connection": 11, "tpcc": 24, "tpch": 14},
		"mysql": {"connection": 12, "tpcc": 23, "tpch": 17},
	}
	got := map[string]map[string]int{}
	for _, d := range Databases() {
		got[d.Name] = map[string]int{}
		for _, dc := range d.Dicts {
			got[d.Name][dc.Name] = len(dc.Keys)
			for _, k := range dc.Keys {
				if !strings.HasPrefix(k.Name, d.Prefix) {
					t.Errorf("%s: key %s lacks the prefix %s", d.Name, k.Name, d.Prefix)
				}
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("keys per dictionary %v, want %v", got, want)
	}
	generic := map[string]int{}
	for _, dc := range GenericDicts() {
		generic[dc.Name] = len(dc.Keys)
	}
	wantGeneric := map[string]int{"theme": 2, "sqlitedb": 1, "code_highlight": 2, "benchmark": 3, "virtual_user_options": 9,
		"autopilot": 3, "mode": 2, "transaction_counter": 5, "metrics": 2, "datageneration": 3, "commandline": 5,
		"webservice": 1, "tpcoss": 1, "timeprofile": 5}
	if !reflect.DeepEqual(generic, wantGeneric) {
		t.Errorf("generic keys per dictionary %v, want %v", generic, wantGeneric)
	}
}

// A few keys, newer ones included, with HammerDB's defaults.
func TestKeyTableDefaults(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ db, dict, key, def string }{
		{"pg", "connection", "pg_sslmode", "prefer"},
		{"pg", "tpcc", "pg_count_ware", "1"},
		{"pg", "tpcc", "pg_driver", "timed"},
		{"pg", "tpcc", "pg_total_iterations", "10000000"},
		{"pg", "tpcc", "pg_partition", "false"},
		{"pg", "tpch", "pg_degree_of_parallel", "2"},
		{"maria", "connection", "maria_ssl_windows_capath", `C:\mysql\certs`},
		{"maria", "tpcc", "maria_pass", "maria"},
		{"maria", "tpcc", "maria_purge", "false"},
		{"maria", "tpcc", "maria_history_pk", "false"},
		{"maria", "tpcc", "maria_prepared", "false"},
		{"mysql", "connection", "mysql_oceanbase_port", "2881"},
		{"mysql", "tpcc", "mysql_pass", "mysql"},
		{"mysql", "tpch", "mysql_tpch_storage_engine", "innodb"},
	} {
		d, ok := DatabaseNamed(tc.db)
		if !ok {
			t.Fatalf("no database %s", tc.db)
		}
		k, ok := d.Lookup(tc.dict, tc.key)
		if !ok || k.Default != tc.def {
			t.Errorf("%s %s %s: %+v (found %v), want default %q", tc.db, tc.dict, tc.key, k, ok, tc.def)
		}
	}
	for _, tc := range []struct{ dict, key, def string }{
		{"commandline", "keepalive_margin", "60"},
		{"commandline", "jobs_profile_id", "0"},
		{"timeprofile", "xt_gather_timeout", "60"},
		{"autopilot", "autopilot_sequence", "1 2 4 8 12 16 20 24"},
	} {
		if k, ok := lookup(GenericDicts(), tc.dict, tc.key); !ok || k.Default != tc.def {
			t.Errorf("generic %s %s: %+v (found %v), want default %q", tc.dict, tc.key, k, ok, tc.def)
		}
	}
	// Keys of one database are not another's; gen_directory has no value in
	// generic.xml, so HammerDB has no such key.
	pg, _ := DatabaseNamed("postgresql")
	if _, ok := pg.Lookup("tpcc", "maria_count_ware"); ok {
		t.Error("maria_count_ware is a PostgreSQL key")
	}
	if _, ok := lookup(GenericDicts(), "datageneration", "gen_directory"); ok {
		t.Error("gen_directory is in the table")
	}
}

// With SLEDGE_HAMMERDB_CONFIG naming a directory holding HammerDB's
// config/*.xml, the table is compared with them key by key, in order.
func TestKeyTableMatchesHammerDBConfig(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("SLEDGE_HAMMERDB_CONFIG")
	if dir == "" {
		t.Skip("SLEDGE_HAMMERDB_CONFIG (a directory with HammerDB's postgresql.xml, mariadb.xml, mysql.xml, generic.xml) is not set")
	}
	for _, d := range Databases() {
		file := map[string]string{"pg": "postgresql.xml", "maria": "mariadb.xml", "mysql": "mysql.xml"}[d.Name]
		if got, want := d.Dicts, readHammerDBConfig(t, filepath.Join(dir, file)); !sameKeys(got, want) {
			t.Errorf("%s: table\n%v\nHammerDB's %s\n%v", d.Name, got, file, want)
		}
	}
	if got, want := GenericDicts(), readHammerDBConfig(t, filepath.Join(dir, "generic.xml")); !sameKeys(got, want) {
		t.Errorf("generic: table\n%v\nHammerDB's generic.xml\n%v", got, want)
	}
}

func sameKeys(a, b []Dict) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || len(a[i].Keys) != len(b[i].Keys) {
			return false
		}
		for j := range a[i].Keys {
			if a[i].Keys[j].Name != b[i].Keys[j].Name || a[i].Keys[j].Default != b[i].Keys[j].Default {
				return false
			}
		}
	}
	return true
}

// readHammerDBConfig reads a HammerDB config file as HammerDB's loader
// does: the root's children are the dictionaries, every element below them
// with text is a key (sections such as <schema> flattened away), an element
// with only white space is no key.
func readHammerDBConfig(t *testing.T, path string) []Dict {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := xml.NewDecoder(f)
	var dicts []Dict
	var stack []string
	var text strings.Builder
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return dicts
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			stack = append(stack, tok.Name.Local)
			text.Reset()
			if len(stack) == 2 {
				dicts = append(dicts, Dict{Name: tok.Name.Local})
			}
		case xml.CharData:
			text.Write(tok)
		case xml.EndElement:
			if v := strings.TrimSpace(text.String()); len(stack) > 2 && v != "" {
				dicts[len(dicts)-1].Keys = append(dicts[len(dicts)-1].Keys, Key{Name: tok.Name.Local, Default: v})
			}
			text.Reset()
			stack = stack[:len(stack)-1]
		}
	}
}

// Every key has a treatment, every treatment a key; no text is left with a
// placeholder, and none says the old "not honoured".
func TestEveryKeyHasATreatment(t *testing.T) {
	t.Parallel()
	used := map[string]bool{}
	for _, db := range dbKeys {
		for _, k := range db.keys {
			if _, ok := dbTreatments[k.name]; !ok {
				t.Errorf("%s: no treatment for %s", db.name, k.name)
			}
			used[k.name] = true
		}
	}
	for name := range dbTreatments {
		if !used[name] {
			t.Errorf("treatment of %s, which no database has", name)
		}
	}
	all := GenericDicts()
	for _, d := range Databases() {
		all = append(all, d.Dicts...)
	}
	for _, dc := range all {
		for _, k := range dc.Keys {
			if k.Sledge == "" || strings.Contains(k.Sledge, "{p}") || strings.Contains(k.Sledge, "not honoured") {
				t.Errorf("%s %s: text %q", dc.Name, k.Name, k.Sledge)
			}
			switch k.Treatment {
			case Maps, Notice, NoEffect:
			default:
				t.Errorf("%s %s: treatment %q", dc.Name, k.Name, k.Treatment)
			}
		}
	}
}

// Keys that map change the job's spec, without a notice.
func TestKeyMappings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		st     *State
		action string
		check  func(s config.Spec) bool
	}{
		{"pg_storedprocs true: procs mode", state("pg", "TPROC-C", "1", "tpcc.pg_storedprocs", "true"), "vurun",
			func(s config.Spec) bool { return s.Mode == "procs" }},
		{"pg_storedprocs false: procs mode too", state("pg", "TPROC-C", "1", "tpcc.pg_storedprocs", "false"), "vurun",
			func(s config.Spec) bool { return s.Mode == "procs" }},
		{"maria_no_stored_procs 1: sql mode", state("maria", "TPROC-C", "1", "tpcc.maria_no_stored_procs", "1"), "vurun",
			func(s config.Spec) bool { return s.Mode == "sql" }},
		{"maria_storage_engine", state("maria", "TPROC-C", "1", "tpcc.maria_storage_engine", "Aria"), "buildschema",
			func(s config.Spec) bool { return s.Engine == "Aria" }},
		{"mysql_storage_engine default", state("mysql", "TPROC-C", "1"), "buildschema",
			func(s config.Spec) bool { return s.Engine == "innodb" }},
		{"pg builds have no engine", state("pg", "TPROC-C", "1"), "buildschema",
			func(s config.Spec) bool { return s.Engine == "" }},
		{"pg_keyandthink true: paced", state("pg", "TPROC-C", "1", "tpcc.pg_keyandthink", "true"), "vurun",
			func(s config.Spec) bool { return s.Pacing == "spec" && s.PacingScale == 1 }},
		{"maria_async_client 4, with maria_async_scale and maria_keyandthink: terminals over a session per VU",
			state("maria", "TPROC-C", "3", "tpcc.maria_async_scale", "true", "tpcc.maria_async_client", "4", "tpcc.maria_keyandthink", "true"), "vurun",
			func(s config.Spec) bool {
				return s.LoadModel() == config.LoadTerminals && s.Terminals == 12 && s.Connections == 3 && s.VU == 3 && s.Pacing == "spec"
			}},
		{"pg_async_client without pg_async_scale: closed-loop VUs", state("pg", "TPROC-C", "3", "tpcc.pg_async_client", "4"), "vurun",
			func(s config.Spec) bool { return s.LoadModel() == config.LoadClosed && s.Terminals == 0 }},
		{"mysql_allwarehouse false: random home warehouses", state("mysql", "TPROC-C", "1"), "vurun",
			func(s config.Spec) bool { return s.RandomHome }},
		{"pg_driver test: an iteration run", state("pg", "TPROC-C", "3", "tpcc.pg_driver", "test", "tpcc.pg_total_iterations", "500"), "vurun",
			func(s config.Spec) bool { return s.Iterations == 500 && s.Rampup == 0 }},
		{"maria_driver timed (the default): a timed run", state("maria", "TPROC-C", "3", "tpcc.maria_total_iterations", "500"), "vurun",
			func(s config.Spec) bool {
				return s.Iterations == 0 && s.Duration == minutes(5) && s.Rampup == minutes(2)
			}},
		{"pg_rampup, pg_duration: minutes as decimals", state("pg", "TPROC-C", "1", "tpcc.pg_rampup", "0.25", "tpcc.pg_duration", "1.5"), "vurun",
			func(s config.Spec) bool { return s.Rampup == minutes(0.25) && s.Duration == minutes(1.5) }},
		{"pg_sslmode", state("pg", "TPROC-C", "1", "connection.pg_sslmode", "require"), "checkschema",
			func(s config.Spec) bool { return strings.HasSuffix(s.DB, "?sslmode=require") }},
		{"maria_ssl true: TLS", state("maria", "TPROC-C", "1", "connection.maria_host", "db1", "connection.maria_ssl", "true"), "checkschema",
			func(s config.Spec) bool { return s.DB == "mysql://root:maria@db1:3306/tpcc?tls=true" }},
		{"maria_pass null: no password", state("maria", "TPROC-C", "1", "connection.maria_host", "db1", "tpcc.maria_pass", "NULL"), "checkschema",
			func(s config.Spec) bool { return s.DB == "mysql://root@db1:3306/tpcc" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := newHammer(tc.st, Env{})
			if err != nil {
				t.Fatal(err)
			}
			s, err := h.spec(tc.action)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(s) {
				t.Errorf("spec %+v", s)
			}
			var out bytes.Buffer
			h.report(&out)
			// The mapped key itself needs no notice (TLS says how it
			// differs; a default socket may be missing here).
			if key, _, _ := strings.Cut(tc.name, " "); key != "maria_ssl" && strings.Contains(out.String(), key) {
				t.Errorf("a notice for a mapped key:\n%s", out.String())
			}
		})
	}
}

// HammerDB's asynchronous scaling is not valid without keying and thinking
// time: such a vurun runs nothing and says what to set; async_client must
// be a whole number of clients.
func TestAsyncScaleRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		st   *State
		want string
	}{
		{state("pg", "TPROC-C", "2", "tpcc.pg_async_scale", "true"),
			"diset tpcc pg_async_scale true: asynchronous clients key and think, and HammerDB's asynchronous scaling is not valid " +
				"without keying and thinking time: diset tpcc pg_keyandthink true"},
		{state("mysql", "TPROC-C", "2", "tpcc.mysql_async_scale", "1", "tpcc.mysql_keyandthink", "true", "tpcc.mysql_async_client", "0"),
			"diset tpcc mysql_async_client 0: want at least 1 client per virtual user"},
		{state("mysql", "TPROC-C", "2", "tpcc.mysql_async_scale", "1", "tpcc.mysql_keyandthink", "true", "tpcc.mysql_async_client", "many"),
			`diset tpcc mysql_async_client "many": want a whole number`},
	} {
		h, err := newHammer(tc.st, Env{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.spec("vurun"); err == nil || err.Error() != tc.want {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
	// Too many terminals are refused by the spec's rules, named as the
	// setting that made them.
	h, _ := newHammer(state("pg", "TPROC-C", "100", "tpcc.pg_async_scale", "true", "tpcc.pg_keyandthink", "true", "tpcc.pg_async_client", "2000"), Env{})
	s, err := h.spec("vurun")
	if err != nil {
		t.Fatal(err)
	}
	fields := config.Fields(s.Validate())
	if len(fields) != 1 || fields[0].Field != "terminals" || h.setting(fields[0].Field) != "diset tpcc pg_async_client" {
		t.Errorf("validation %v", fields)
	}
}

// pg_superuser, pg_superuserpass and pg_defaultdbase are how buildschema
// reaches the server to create the benchmark's database.
func TestSuperuserMapping(t *testing.T) {
	t.Parallel()
	h, err := newHammer(state("pg", "TPROC-C", "1", "connection.pg_host", "db1", "tpcc.pg_superuser", "admin",
		"tpcc.pg_superuserpass", "s3cret", "tpcc.pg_defaultdbase", "maint"), Env{})
	if err != nil {
		t.Fatal(err)
	}
	if u, p := h.superuser(); u != "admin" || p != "s3cret" {
		t.Errorf("superuser %q %q", u, p)
	}
	if d := h.value("defaultdbase"); d != "maint" {
		t.Errorf("defaultdbase %q", d)
	}
	h, _ = newHammer(state("pg", "TPROC-H", "1"), Env{})
	if u, p := h.superuser(); u != "postgres" || p != "postgres" {
		t.Errorf("TPROC-H superuser defaults %q %q", u, p)
	}
}

// The notices are true, name the key and its value, come once, and only
// for the actions they concern; a default value needs none.
func TestKeyNotices(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		st     *State
		action string
		want   string
	}{
		{"defaults say nothing", state("pg", "TPROC-C", "1", "tpcc.pg_async_scale", "false", "tpcc.pg_raiseerror", "0",
			"tpcc.pg_async_client", "10.0", "tpcc.pg_timeprofile", "true"), "vurun", ""},
		{"async and raiseerror", state("pg", "TPROC-C", "3", "tpcc.pg_async_scale", "true", "tpcc.pg_async_client", "20",
			"tpcc.pg_keyandthink", "true", "tpcc.pg_async_delay", "0", "tpcc.pg_raiseerror", "true"), "vurun",
			"Notice: diset tpcc pg_raiseerror true: a VU does not stop on an error: errors are counted by class and the VU carries on\n" +
				"Notice: diset tpcc pg_async_delay 0: the terminals start together, without a delay between logins: the ramp-up (pg_rampup) is the time to settle before measuring\n" +
				"Notice: diset tpcc pg_async_scale true: 3 VUs × 20 asynchronous clients: 60 paced terminals over 3 sessions, a due terminal waiting for a free one " +
				"(HammerDB holds a session per client: 60)\n"},
		{"async with the test driver", state("pg", "TPROC-C", "3", "tpcc.pg_async_scale", "true", "tpcc.pg_driver", "test"), "vurun",
			"Notice: diset tpcc pg_async_scale true: asynchronous clients are the timed driver's (HammerDB's test driver has none): one session per VU\n"},
		{"build keys at buildschema", state("maria", "TPROC-C", "1", "connection.maria_host", "db1", "tpcc.maria_partition", "true",
			"tpcc.maria_history_pk", "true", "tpcc.maria_purge", "true"), "buildschema",
			"Notice: diset tpcc maria_partition true: the tables are not partitioned\n" +
				"Notice: diset tpcc maria_history_pk true: the history table is built without a primary key\n"},
		{"run keys at vurun", state("maria", "TPROC-C", "1", "connection.maria_host", "db1", "tpcc.maria_partition", "true",
			"tpcc.maria_purge", "true", "tpcc.maria_raiseerror", "true"), "vurun",
			"Notice: diset tpcc maria_raiseerror true: a VU does not stop on an error: errors are counted by class and the VU carries on\n"},
		{"vacuum and purge take effect: no notice", state("pg", "TPROC-C", "1", "tpcc.pg_vacuum", "true"), "vurun", ""},
		{"the other benchmark's keys are not used", state("pg", "TPROC-C", "1", "tpch.pg_verbose", "true"), "vurun", ""},
		{"total_iterations in a timed run", state("pg", "TPROC-C", "1", "tpcc.pg_total_iterations", "1000"), "vurun",
			"Notice: diset tpcc pg_total_iterations 1000: a timed run ends at its duration: VUs do not stop after 1000 transactions " +
				"(HammerDB's timed driver would stop such a VU early)\n"},
		{"allwarehouse true", state("mysql", "TPROC-C", "1", "connection.mysql_host", "db1", "tpcc.mysql_allwarehouse", "true"), "vurun",
			"Notice: diset tpcc mysql_allwarehouse true: each VU keeps one home warehouse, the VUs spread evenly over the warehouses " +
				"(HammerDB would give each VU a share of all warehouses and a new one for every transaction)\n"},
		{"generic keys", state("pg", "TPROC-C", "1", "commandline.jobs_disable", "1", "commandline.keepalive_margin", "5"), "checkschema",
			"Notice: giset commandline jobs_disable 1: jobs are always stored in Sledge's repository\n"},
		{"a key HammerDB does not have", state("pg", "TPROC-C", "1", "tpcc.pg_odd", `a {b} $c`), "checkschema",
			"Notice: diset tpcc pg_odd a {b} $c: not a HammerDB key of PostgreSQL: ignored\n"},
		{"a missing socket", state("mysql", "TPROC-C", "1", "connection.mysql_socket", "/nonexistent/mysql.sock"), "checkschema",
			"Notice: diset connection mysql_socket /nonexistent/mysql.sock: no such socket here: connecting over TCP to 127.0.0.1:3306 " +
				"(HammerDB connects to 127.0.0.1 through the socket)\n"},
		{"TLS", state("mysql", "TPROC-C", "1", "connection.mysql_host", "db1", "connection.mysql_ssl", "true"), "checkschema",
			"Notice: diset connection mysql_ssl true: TLS, the server's certificate checked against the system's CA certificates " +
				"(HammerDB's mysql_ssl_* CA path, CA file, client certificate, key and cipher are not used)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := newHammer(tc.st, Env{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := h.spec(tc.action); err != nil {
				t.Fatal(err)
			}
			h.url() // as Do does for buildschema: notices come once
			var out bytes.Buffer
			h.report(&out)
			if out.String() != tc.want {
				t.Errorf("notices\n%s\nwant\n%s", out.String(), tc.want)
			}
		})
	}
}

// A socket that exists is used as HammerDB uses it: for 127.0.0.1 and
// localhost only.
func TestSocketRule(t *testing.T) {
	t.Parallel()
	sock := filepath.Join(t.TempDir(), "mysqld.sock")
	if err := os.WriteFile(sock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ host, socket, want string }{
		{"127.0.0.1", sock, "mysql://root:maria@/tpcc?socket=" + strings.ReplaceAll(sock, "/", "%2F")},
		{"LocalHost", sock, "mysql://root:maria@/tpcc?socket=" + strings.ReplaceAll(sock, "/", "%2F")},
		{"db1", sock, "mysql://root:maria@db1:3306/tpcc"},
		{"127.0.0.1", "null", "mysql://root:maria@127.0.0.1:3306/tpcc"},
	} {
		h, _ := newHammer(state("maria", "TPROC-C", "1", "connection.maria_host", tc.host, "connection.maria_socket", tc.socket), Env{})
		if got := h.url(); got != tc.want {
			t.Errorf("host %s socket %s: %s, want %s", tc.host, tc.socket, got, tc.want)
		}
	}
}

// giset commandline jobs_profile_id is HammerDB's jobs profileid.
func TestProfileIDFromGiset(t *testing.T) {
	t.Parallel()
	st := state("pg", "TPROC-C", "1", "commandline.jobs_profile_id", "7")
	h, _ := newHammer(st, Env{})
	if got := h.settings()[ConfigProfileID]; got != "7" {
		t.Errorf("profile id %q, want 7", got)
	}
	st.ProfileID = 2 // the session's jobs profileid wins
	if got := h.settings()[ConfigProfileID]; got != "2" {
		t.Errorf("profile id %q, want 2", got)
	}
}

func TestIsDefault(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v, def string
		want   bool
	}{
		{"false", "false", true}, {"0", "false", true}, {"FALSE", "false", true}, {"1", "false", false},
		{"true", "false", false}, {"10.0", "10", true}, {" 2 ", "2", true}, {"2.5", "2", false},
		{"innodb", "innodb", true}, {"InnoDB", "innodb", false}, {"maybe", "false", false},
	} {
		if got := isDefault(tc.v, tc.def); got != tc.want {
			t.Errorf("isDefault(%q, %q) = %v", tc.v, tc.def, got)
		}
	}
}

// `sledge cli keys` prints the table as JSON, lists in HammerDB's order.
func TestKeysJSON(t *testing.T) {
	t.Parallel()
	b, err := KeysJSON()
	if err != nil {
		t.Fatal(err)
	}
	var got KeyTable
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, Keys()) {
		t.Error("the JSON does not read back as the table")
	}
	if got.Databases[0].Dicts[0].Keys[0].Name != "pg_host" || got.Generic[0].Name != "theme" {
		t.Errorf("order: %s, %s", got.Databases[0].Dicts[0].Keys[0].Name, got.Generic[0].Name)
	}
}

// The Tcl form of the table reads back, through tclsh, as the table: every
// key with its default, quoting and order kept.
func TestTclKeys(t *testing.T) {
	t.Parallel()
	tclsh := testdb.Command(t, "tclsh", "tcl") // in CI, installed or failed: never skipped
	script := TclKeys() + `
dict for {db d} $::sledge::keytable {
    puts "db $db [dict get $d product]"
    dict for {name keys} [dict get $d dicts] { dict for {k v} $keys { puts [list $name $k $v] } }
}
dict for {name keys} $::sledge::generictable { dict for {k v} $keys { puts [list generic $name $k $v] } }
`
	cmd := exec.Command(tclsh)
	testdb.DieWithTest(cmd)
	cmd.Stdin = strings.NewReader(script)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("tclsh: %v\n%s", err, out)
	}
	var want strings.Builder
	for _, d := range Databases() {
		want.WriteString("db " + d.Name + " " + d.Product + "\n")
		for _, dc := range d.Dicts {
			for _, k := range dc.Keys {
				want.WriteString(tclWord(dc.Name) + " " + tclWord(k.Name) + " " + tclWord(k.Default) + "\n")
			}
		}
	}
	for _, dc := range GenericDicts() {
		for _, k := range dc.Keys {
			want.WriteString("generic " + tclWord(dc.Name) + " " + tclWord(k.Name) + " " + tclWord(k.Default) + "\n")
		}
	}
	if string(out) != want.String() {
		t.Errorf("tclsh read\n%s\nwant\n%s", out, want.String())
	}
}

// The README's compatibility table is the table's: run with
// SLEDGE_UPDATE_README=1 to rewrite it after changing keys.go.
func TestREADMEKeyTable(t *testing.T) {
	t.Parallel()
	const begin, end = "<!-- hammerdb-keys:begin -->\n", "<!-- hammerdb-keys:end -->"
	path := filepath.Join("..", "..", "README.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	i, j := strings.Index(readme, begin), strings.Index(readme, end)
	if i < 0 || j < i {
		t.Fatalf("README.md lacks the markers %q … %q", begin, end)
	}
	want := readme[:i+len(begin)] + KeysMarkdown() + readme[j:]
	if readme == want {
		return
	}
	if os.Getenv("SLEDGE_UPDATE_README") != "" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's HammerDB key table is not the table's: run SLEDGE_UPDATE_README=1 go test ./internal/script -run TestREADMEKeyTable")
}
