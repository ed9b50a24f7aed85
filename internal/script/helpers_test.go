package script

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/testdb"
)

// runPrelude runs a Tcl script after HammerDB's command set (TclPrelude),
// as `sledge cli auto` does, and returns its output. The script must not
// reach the binary: SLEDGE_BIN names one that does not exist.
func runPrelude(t *testing.T, script string) string {
	t.Helper()
	tclsh := testdb.Command(t, "tclsh", "tcl")
	dir := t.TempDir()
	prelude := filepath.Join(dir, "hammerdb.tcl")
	if err := os.WriteFile(prelude, []byte(TclKeys()+"\n"+TclPrelude), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "script.tcl")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(tclsh, prelude, "auto", file)
	cmd.Env = append(os.Environ(), "SLEDGE_BIN="+filepath.Join(dir, "no-sledge"))
	testdb.DieWithTest(cmd)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("tclsh: %v\n%s", err, out)
	}
	return string(out)
}

// cpuinfoProcessors counts the processors /proc/cpuinfo lists, as HammerDB
// does; 0 where there is no such file.
func cpuinfoProcessors(t *testing.T) int {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return 0
	}
	return len(regexp.MustCompile(`(?m)^processor\s`).FindAll(b, -1))
}

// HammerDB's sizing of a schema: 8 warehouses a CPU, rounded up to a
// multiple of 10 up to 100, at most the limit.
func TestTclWarehouseSizing(t *testing.T) {
	t.Parallel()
	cases := []struct{ cpus, limit, want int }{
		{1, 4000, 10}, {2, 4000, 20}, {3, 4000, 30}, {4, 4000, 40}, {12, 4000, 100},
		{13, 4000, 104}, {64, 4000, 512}, {500, 4000, 4000}, {1000, 4000, 4000}, {16, 100, 100},
	}
	var b strings.Builder
	for _, c := range cases {
		b.WriteString("puts [::sledge::warehouses " + strconv.Itoa(c.cpus) + " " + strconv.Itoa(c.limit) + "]\n")
	}
	got := strings.Fields(runPrelude(t, b.String()))
	if len(got) != len(cases) {
		t.Fatalf("got %q for %d cases", got, len(cases))
	}
	for i, c := range cases {
		if got[i] != strconv.Itoa(c.want) {
			t.Errorf("%d CPUs, limit %d: %s warehouses, want %d", c.cpus, c.limit, got[i], c.want)
		}
	}
}

// numberOfWHs sizes the schema for this machine's CPUs, as numberOfCPUs
// counts them (HammerDB's count: /proc/cpuinfo), and says so.
func TestTclNumberOfWHs(t *testing.T) {
	t.Parallel()
	out := runPrelude(t, "puts CPUS=[numberOfCPUs]\nputs WHS=[numberOfWHs]\n")
	m := regexp.MustCompile(`(?m)^CPUS=(\d+)\n` +
		`numberOfWHs: (\d+) warehouses for (\d+) CPUs \(HammerDB's sizing: 8 a CPU, rounded up to a multiple of 10 up to 100, at most 4000\)\n` +
		`WHS=(\d+)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no CPUs, notice and warehouses:\n%s", out)
	}
	cpus, _ := strconv.Atoi(m[1])
	if n := cpuinfoProcessors(t); n > 0 && cpus != n {
		t.Errorf("numberOfCPUs %d, /proc/cpuinfo lists %d processors", cpus, n)
	}
	want := cpus * 8
	if want <= 100 {
		want = (want + 9) / 10 * 10
	}
	want = min(want, 4000)
	if m[2] != strconv.Itoa(want) || m[3] != m[1] || m[4] != m[2] {
		t.Errorf("numberOfWHs for %d CPUs: said %s for %s CPUs, returned %s; want %d:\n%s", cpus, m[2], m[3], m[4], want, out)
	}
}

// HammerDB's other helpers answer as HammerDB's do.
func TestTclHelpers(t *testing.T) {
	t.Parallel()
	cases := []struct{ script, want string }{
		{"puts [even 4][even 3][odd 3][odd -2]", "1010"},
		{"putscli hello", "hello"},
		{"puts [findakey pg_count_ware configpostgresql]", "tpcc"},
		{"puts [findakey pg_host]", "connection"},
		{"puts <[findakey pg_nosuchkey]>", "<>"},
		{"dbset db maria\nputs [findakey maria_socket]", "Database set to MariaDB\nconnection"},
		{"set cfg {connection {h 1} tpcc {w 2}}\nputs [findakey w cfg]", "tpcc"},
		{"puts [string insert abc 1 X]|[string insert abc end Y]|[string insert abc end-1 Z]|[string insert abc 0+1 W]",
			"aXbc|abcY|abZc|aWbc"},
		{"puts [catch {string insert abc x Y} e]:$e", "1:bad index \"x\": must be integer?[+-]integer? or end?[+-]integer?"},
		{"puts [strip_html {<p>a <b>b</b></p>}]", "a b"},
		{"puts [get_ws_port]\nwsport 8123\nputs [get_ws_port]", "8080\nSetting Web Service port to 8123\n8123"},
		{"pdict {a 1 bb {c 2 d 3} e {x y z}}", "a  = 1\nbb {\n    c = 2\n    d = 3\n}\ne  = x y z"},
		{"pdict 1 {a 1 bb {c 2 d 3}}", "a  = 1\nbb = c 2 d 3"},
		{"pdict {ab 1 ac 2 b 3} a*", "ab = 1\nac = 2"},
		{"puts <[keepalive]><[_runtimer 60]><[_waittocomplete]>", "<><><>"},
		{"loadtpcc", "Notice: loadscript: Sledge's TPROC-C driver is built in; nothing to load"},
	}
	var b strings.Builder
	for _, c := range cases {
		b.WriteString(c.script + "\nputs ===\n")
	}
	got := strings.Split(runPrelude(t, b.String()), "===\n")
	if len(got) != len(cases)+1 {
		t.Fatalf("got %d answers for %d cases:\n%s", len(got)-1, len(cases), strings.Join(got, "===\n"))
	}
	for i, c := range cases {
		if g := strings.TrimSuffix(got[i], "\n"); g != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.script, g, c.want)
		}
	}
}
