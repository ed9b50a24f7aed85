package main

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/sandbox"
	"github.com/sledge-bench/sledge/internal/testdb"
	"github.com/sledge-bench/sledge/internal/testdb/tpcctest"
)

// HammerDB 6's CLI commands in `sledge cli` (Tcl) and `sledge cli py`
// (Python): every command exists in both, HammerDB's values are taken, a
// command Sledge has no equivalent for prints a notice and the script goes
// on, failures are printed and the script goes on, and tclpy.eval runs Tcl
// from Python as in HammerDB's Python CLI.

// hammerdb6Commands is HammerDB 6's CLI help index (HammerDB's
// src/generic/genhelp.tcl and the CLI chapter of its documentation), the
// commands a HammerDB script may call, plus the ones its scripts use that
// the index leaves out.
var hammerdb6Commands = []string{
	"buildschema", "checkschema", "ci", "cifix", "cilisten", "cipush", "cireset", "ciset", "cistatus", "cistop",
	"citmp", "clearscript", "custommonitor", "customscript", "datagenrun", "dbset", "deleteschema", "dgset", "diset",
	"distributescript", "giset", "jobs", "librarycheck", "loadscript", "metset", "metstart", "metstatus", "metstop",
	"pipe", "pipes", "print", "quit", "savescript", "steprun", "switchmode", "tcset", "tcstart", "tcstatus", "tcstop",
	"vucomplete", "vucreate", "vudestroy", "vurun", "vuset", "vustatus", "wsport", "wsstart", "wsstatus", "wsstop",
	// Not in the index: deprecated in 6 but still defined, an alias, and
	// what the sample scripts call.
	"runtimer", "waittocomplete", "job", "numberOfCPUs", "numberOfWHs",
}

// tkinterWorks says whether python3 can start a Tcl interpreter (tclpy).
func tkinterWorks() bool {
	return exec.Command("python3", "-c", "import tkinter; tkinter.Tcl()").Run() == nil
}

// installTkinter installs python3-tk where the tests may (root, apt-get),
// as testdb.Command does for tclsh; it never skips.
func installTkinter(t *testing.T) {
	t.Helper()
	if tkinterWorks() || !sandbox.CanAptInstall() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	if err := sandbox.AptInstall(ctx, "python3-tk"); err != nil {
		t.Logf("installing python3-tk: %v", err)
	}
}

// needTkinter skips a test that needs tclpy's Tcl interpreter when Python's
// tkinter is missing and cannot be installed, and fails it under CI, where
// a skip would let it pass by not running.
func needTkinter(t *testing.T) {
	t.Helper()
	testdb.Command(t, "python3", "python3")
	installTkinter(t)
	if tkinterWorks() {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatal("CI is set but Python's tkinter is missing and could not be installed (apt-get install python3-tk)")
	}
	t.Skip("Python's tkinter is missing (apt-get install python3-tk)")
}

// runScript writes a script and runs it with `sledge cli auto` (Tcl) or
// `sledge cli py auto` (name ending .py); it must end with status 0.
func (e *testEnv) runScript(name, src string) string {
	t := e.t
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"cli", "auto", path}
	if strings.HasSuffix(name, ".py") {
		args = []string{"cli", "py", "auto", path}
	}
	out, err := e.process("", args...)
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, out)
	}
	for _, bad := range []string{"invalid command name", "Traceback", "NameError"} {
		if strings.Contains(out, bad) {
			t.Errorf("%s printed %q:\n%s", name, bad, out)
		}
	}
	return out
}

func wantLines(t *testing.T, what, out string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !regexp.MustCompile(`(?m)^` + l + `$`).MatchString(out) {
			t.Errorf("%s: no line matching %q:\n%s", what, l, out)
		}
	}
}

// pyDisets is hammerConnection for Python scripts.
func pyDisets(t *testing.T, raw string) string {
	t.Helper()
	var b strings.Builder
	for _, line := range hammerConnection(t, raw, "pg_") {
		f := strings.SplitN(line, " ", 4)
		v := strings.TrimSuffix(strings.TrimPrefix(f[3], "{"), "}")
		b.WriteString("diset(" + strconv.Quote(f[1]) + ", " + strconv.Quote(f[2]) + ", " + strconv.Quote(v) + ")\n")
	}
	return b.String()
}

// completedRuns counts the completed run jobs in the repository.
func (e *testEnv) completedRuns() int {
	e.t.Helper()
	n := 0
	for _, j := range e.jobs() {
		if j["kind"] == "run" && j["status"] == "completed" {
			n++
		}
	}
	return n
}

// notices are what the commands without a Sledge equivalent print, once
// each, in both front ends.
var commandNotices = []string{
	`Notice: metstart: Sledge observes the database server and this host during every run \(wait events, server statistics, settings, CPU, memory, disk and network\) and stores it with the job \(jobs ID metrics\); no metrics agent to start`,
	`Notice: metstatus: Sledge observes the database server and \S+ during every run \(jobs ID metrics\); no metrics agent runs`,
	`Notice: metstop: Sledge observes the database server and this host during every run \(jobs ID metrics\), without a metrics agent \(id: localhost:10000\); nothing to stop`,
	`Notice: tcstart: Sledge records the transaction count of every run \(jobs ID tcount\); no counter thread to start`,
	`Transaction Counter thread running \(Sledge records it with every run: jobs ID tcount\)`,
	`Stopping Transaction Counter`,
	`Notice: switchmode Primary: Sledge has no Primary/Replica multi-client mode yet; staying in Local mode \(runs use this machine's virtual users\)`,
	// steprun with HammerDB's default steps, whose replicas overrun a
	// 0.05-minute primary: refused before any job, as HammerDB refuses it.
	`Notice: steprun: no steps.xml in \$SLEDGE_HAMMERDB_CONFIG or \./config: HammerDB's default steps .*`,
	`primary starts immediately, runs rampup for 0 minutes then runs test for 0\.05 minutes with 1 Active VU`,
	`replica4 starts 1 minutes after previous replica starts and runs test for 1 minutes with 2 Active VU`,
	`Error: replica4 would end 5 minutes after the start, after the primary, which ends at 0\.05 minutes \(rampup 0 \+ duration 0\.05\)`,
	`Error: steprun: the primary must run longest, every replica ending by the time it ends \(a pyramid of steps\): nothing was run`,
	`Notice: customscript \S+custom\.tcl: Sledge cannot run HammerDB driver scripts; vurun runs nothing until loadscript or clearscript selects Sledge's built-in TPROC-C driver`,
	`Error: vurun: the script loaded is \S+custom\.tcl \(customscript\): .*`,
	`CUSTOM Benchmark Run \(No jobid\)`,
	`Notice: loadscript: Sledge's TPROC-C driver is built in; nothing to load`,
	`TEST COMPLETE`,
}

// A HammerDB 6 profile script (*_run_profile.tcl) and single run
// (*_run_single.tcl) in one: the metrics and transaction-counter calls
// around the runs, a custom script Sledge refuses to run, Primary mode
// (which it does not have), a step run whose replicas overrun the primary,
// and a run with one VU per CPU.
func TestCLIHammerDB6RunProfileTcl(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	needTclsh(t)
	t.Parallel()
	e := newEnv(t)
	// A database holding TPROC-C (a copy of the template): buildschema's
	// answer is TestCLIBuildIntoDBACreatedDatabase*'s.
	dbURL := tpcctest.Postgres(t, tpcctest.Options{Warehouses: 2})
	conn := strings.Join(hammerConnection(t, dbURL, "pg_"), "\n")
	custom := filepath.Join(t.TempDir(), "custom.tcl")
	if err := os.WriteFile(custom, []byte("puts {a custom driver}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := e.runScript("pg_tprocc_run_profile.tcl", `dbset db pg
dbset bm TPC-C ;# HammerDB's older name (a TPC trademark), sent as input
`+conn+`
diset tpcc pg_driver timed
diset tpcc pg_rampup 0
diset tpcc pg_duration 0.05
jobs profileid 7
switchmode
switchmode Primary
steprun
customscript {`+custom+`}
puts "CUSTOM [vurun]"
loadscript
metstart
tcstart
foreach z {1 2} {
    vuset vu $z
    vuset logtotemp true
    vucreate
    metstatus
    tcstatus
    set jobid [ vurun ]
    puts "RUN $jobid COMPLETE [vucomplete]"
    vudestroy
}
tcstop
metstop
vuset vu vcpu
print vuconf
set jobid [ vurun ]
vustatus
vudestroy
jobs $jobid result
puts "TEST COMPLETE"
`)
	wantLines(t, "profile", out, append(commandNotices,
		`Mode currently set to Local`,
		`RUN Benchmark Run jobid=\d+ COMPLETE true`,
		`Log Output = 1`,
		`Virtual Users = `+strconv.Itoa(runtime.NumCPU()),
		`1 = FINISH SUCCESS`,
		`  "`+strconv.Itoa(runtime.NumCPU())+` Active Virtual Users configured",`,
	)...)
	if n := len(regexp.MustCompile(`(?m)^RUN Benchmark Run jobid=`).FindAllString(out, -1)); n != 2 {
		t.Errorf("%d runs in the loop, want 2:\n%s", n, out)
	}
	if n := e.completedRuns(); n != 3 {
		t.Errorf("%d completed runs stored, want 3 (none for the custom script)", n)
	}
}

// The same in HammerDB's Python CLI, with the result read back through
// tclpy the way HammerDB 6's generic result script does: a Tcl proc that
// renames puts to redirect stdout into a file, then jobs(…) printed into it.
func TestCLIHammerDB6RunProfilePython(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	needTkinter(t)
	t.Parallel()
	e := newEnv(t)
	tmp := e.tmp()
	custom := filepath.Join(tmp, "custom.tcl")
	if err := os.WriteFile(custom, []byte("puts {a custom driver}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := e.runScript("pg_tprocc_run_profile.py", `dbset('db', 'pg')
dbset('bm', 'TPC-C')  # HammerDB's older name (a TPC trademark), sent as input
`+pyDisets(t, testdb.Postgres(t))+`diset('tpcc', 'pg_count_ware', 2)
diset('tpcc', 'pg_num_vu', 2)
print("BUILD", buildschema())
diset('tpcc', 'pg_driver', 'timed')
diset('tpcc', 'pg_rampup', 0)
diset('tpcc', 'pg_duration', 0.05)
jobs('profileid', 7)
switchmode()
switchmode('Primary')
steprun()
customscript(`+strconv.Quote(custom)+`)
print("CUSTOM", vurun())
loadscript()
metstart()
tcstart()
for z in [1, 2]:
    vuset('vu', z)
    vuset('logtotemp', 1)
    vucreate()
    metstatus()
    tcstatus()
    jobid = vurun()
    print("RUN", jobid, "COMPLETE", vucomplete())
    vudestroy()
tcstop()
metstop()
vuset('vu', 'vcpu')
print('vuconf')
vucreate()
jobid = tclpy.eval('vurun')
print("TCLPY", jobid)
vudestroy()
with open(os.path.join(os.environ['TMP'], 'pg_tprocc'), 'w') as f:
    f.write(jobid)

# The result, as HammerDB 6's generic_tprocc_result.py reads it.
redirect = r'''
proc stdout {switch {file ""}} {
    if {$switch eq "off" && ![llength [info commands real_puts]]} {
        rename puts real_puts
        proc puts {args} [string map [list @FILE@ [list $file]] {
            if {[llength $args] == 1} {
                set fd [open @FILE@ a]
                real_puts $fd [lindex $args 0]
                close $fd
            } else {
                real_puts {*}$args
            }
        }]
    } elseif {$switch eq "on" && [llength [info commands real_puts]]} {
        rename puts {}
        rename real_puts puts
    }
}
'''
with open(os.path.join(os.environ['TMP'], 'pg_tprocc')) as f:
    jid = f.readline().split('=')[1].strip()
outfile = os.path.join(os.environ['TMP'], 'pg_tprocc_%s.out' % jid)
tclpy.eval(redirect)
tclpy.eval('stdout off ' + outfile)
tclpy.eval('puts "TRANSACTION RESPONSE TIMES"')
jobs(jid, 'timing')
tclpy.eval('puts "HAMMERDB RESULT"')
job(jid, 'result')
tclpy.eval('stdout on')
print("=== captured")
print(open(outfile).read())
print("=== end")
print("TEST COMPLETE")
`)
	notices := slices.Clone(commandNotices)
	notices = slices.DeleteFunc(notices, func(s string) bool { return strings.HasPrefix(s, "CUSTOM") })
	wantLines(t, "python profile", out, append(notices,
		`BUILD Schema Build jobid=\d+`,
		`CUSTOM Benchmark Run \(No jobid\)`,
		`RUN Benchmark Run jobid=\d+ COMPLETE True`,
		`Log Output = 1`,
		`Virtual Users = `+strconv.Itoa(runtime.NumCPU()),
	)...)
	before, rest, ok := strings.Cut(out, "=== captured\n")
	captured, _, _ := strings.Cut(rest, "=== end\n")
	if !ok || strings.Contains(before, "NEWORD") || strings.Contains(before, "HAMMERDB RESULT") {
		t.Fatalf("jobs output was not redirected by the renamed puts:\n%s", out)
	}
	timing, result, ok := strings.Cut(strings.TrimPrefix(captured, "TRANSACTION RESPONSE TIMES\n"), "HAMMERDB RESULT\n")
	var tm map[string]map[string]string
	var res []string
	if !ok || json.Unmarshal([]byte(timing), &tm) != nil || json.Unmarshal([]byte(result), &res) != nil {
		t.Fatalf("captured file:\n%s", captured)
	}
	if tm["NEWORD"]["calls"] == "" || len(res) != 4 || res[2] != strconv.Itoa(runtime.NumCPU())+" Active Virtual Users configured" ||
		!strings.HasPrefix(res[3], "TEST RESULT : System achieved ") {
		t.Errorf("captured timing %v, result %q", tm["NEWORD"], res)
	}
	if n := e.completedRuns(); n != 3 {
		t.Errorf("%d completed runs stored, want 3", n)
	}
	if m := regexp.MustCompile(`(?m)^TCLPY Benchmark Run jobid=(\d+)$`).FindStringSubmatch(out); m == nil || m[1] != res[0] {
		t.Errorf("the captured result is not tclpy.eval('vurun')'s job %v: %q", m, res)
	}
}

// A build or run that fails prints its errors and the script carries on, as
// in HammerDB; the failed run is a job, whose id vurun returns.
func TestCLIFailuresCarryOn(t *testing.T) {
	needTclsh(t)
	testdb.Command(t, "python3", "python3")
	t.Parallel()
	e := newEnv(t)
	// A port nothing listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	tcl := `dbset db pg
diset connection pg_host 127.0.0.1
diset connection pg_port ` + port + `
puts "BUILD <[buildschema]>"
puts "CHECK <[checkschema]>"
vuset vu 2
puts "RUN <[vurun]>"
vustatus
puts "COMPLETE [vucomplete]"
vudestroy
librarycheck
puts END
`
	py := `dbset('db', 'pg')
diset('connection', 'pg_host', '127.0.0.1')
diset('connection', 'pg_port', ` + port + `)
print("BUILD <%s>" % buildschema())
print("CHECK <%s>" % checkschema())
vuset('vu', 2)
print("RUN <%s>" % vurun())
vustatus()
print("COMPLETE", vucomplete())
vudestroy()
librarycheck()
print("END")
`
	for _, s := range []struct{ name, src, complete string }{{"fail.tcl", tcl, "true"}, {"fail.py", py, "True"}} {
		out := e.runScript(s.name, s.src)
		wantLines(t, s.name, out,
			`BUILD <Schema Build (jobid=\d+|\(No jobid\))>`,
			`CHECK <Schema Check (jobid=\d+|\(No jobid\))>`,
			`2 Virtual Users Created`,
			`RUN <Benchmark Run jobid=\d+>`,
			`1 = FINISH FAILED`, `2 = FINISH FAILED`,
			`COMPLETE `+s.complete,
			`END`)
		if n := len(regexp.MustCompile(`(?m)^Error: `).FindAllString(out, -1)); n < 4 {
			t.Errorf("%s: %d Error lines, want one at least per failed command:\n%s", s.name, n, out)
		}
		if strings.Contains(out, "--force") {
			t.Errorf("%s: advice a script cannot follow:\n%s", s.name, out)
		}
	}
	failed := 0
	for _, j := range e.jobs() {
		if j["kind"] == "run" && j["status"] == "failed" {
			failed++
		}
	}
	if failed != 2 {
		t.Errorf("%d failed runs stored, want one per script", failed)
	}
}

// help lists every HammerDB command, the same in Tcl and Python, each one a
// command of both front ends with its own help.
func TestCLIHelpListsEveryCommand(t *testing.T) {
	needTclsh(t)
	testdb.Command(t, "python3", "python3")
	t.Parallel()
	e := newEnv(t)
	tclOut := e.runScript("help.tcl", `help
puts "=== each"
foreach line [split [info commands] " "] { set have($line) 1 }
foreach name {`+strings.Join(hammerdb6Commands, " ")+`} {
    if {![info exists have($name)]} { puts "MISSING $name" }
}
foreach {name usage what} $::sledge::help { help $name }
help jobs
`)
	pyOut := e.runScript("help.py", `help()
print("=== each")
for name in `+"'"+strings.Join(hammerdb6Commands, " ")+"'"+`.split():
    if not callable(globals().get(name)):
        print("MISSING", name)
import sledge.hammerdb as h
for name, _, _ in h.HELP:
    help(name)
help('jobs')
`)
	index := regexp.MustCompile(`(?m)^  (\w+) +(.*)$`)
	var tclIndex, pyIndex []string
	for _, m := range index.FindAllStringSubmatch(tclOut, -1) {
		tclIndex = append(tclIndex, m[1]+" "+m[2])
	}
	for _, m := range index.FindAllStringSubmatch(pyOut, -1) {
		pyIndex = append(pyIndex, m[1]+" "+m[2])
	}
	if !slices.Equal(tclIndex, pyIndex) {
		t.Errorf("help differs:\nTcl:    %q\nPython: %q", tclIndex, pyIndex)
	}
	for _, out := range []string{tclOut, pyOut} {
		if strings.Contains(out, "MISSING") {
			t.Errorf("commands missing:\n%s", out)
		}
		for _, name := range hammerdb6Commands {
			if name == "job" {
				continue // an alias of jobs
			}
			if !slices.ContainsFunc(tclIndex, func(s string) bool { return strings.HasPrefix(s, name+" ") }) {
				t.Errorf("help does not list %s", name)
			}
			if name != "jobs" && !strings.Contains(out, "\n"+name+" - Usage: "+name) {
				t.Errorf("no help for %s:\n%s", name, out)
			}
		}
		if !strings.Contains(out, `JOBID may be vurun`) {
			t.Errorf("no help jobs:\n%s", out)
		}
	}
}

// wsstart starts `sledge serve` on the web service port, wsstatus sees it,
// wsstop stops it; a port nothing serves is reported as not running.
func TestCLIWebServiceCommands(t *testing.T) {
	needTclsh(t)
	testdb.Command(t, "python3", "python3")
	t.Parallel()
	e := newEnv(t)
	for _, lang := range []string{"tcl", "py"} {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
		l.Close()
		src := "wsport " + port + "\nwsstatus\nwsstart\nwsstatus\nwsstop\nwsstatus\nwsport abc\nwsport\n"
		if lang == "py" {
			src = "wsport(" + port + ")\nwsstatus()\nwsstart()\nwsstatus()\nwsstop()\nwsstatus()\nwsport('abc')\nwsport()\n"
		}
		out := e.runScript("ws."+lang, src)
		// Whatever happens, no server outlives the test.
		if m := regexp.MustCompile(`pid (\d+)`).FindStringSubmatch(out); m != nil {
			pid, _ := strconv.Atoi(m[1])
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
		}
		wantLines(t, lang, out,
			`Setting Web Service port to `+port,
			`Web Service not running: .+`,
			`Starting Sledge web service \(sledge serve\) on http://127\.0\.0\.1:`+port+`, pid \d+, output in .+`,
			`Web Service running: http://127\.0\.0\.1:`+port,
			`Stopping Web Service on port `+port+` \(sledge serve, pid \d+\)`,
			`Error: Web Service port should be an integer`,
			`Web Service Port set to `+port)
		if n := strings.Count(out, "Web Service not running: "); n != 2 {
			t.Errorf("%s: %d not-running answers, want 2 (before wsstart, after wsstop):\n%s", lang, n, out)
		}
	}
}

// vuset takes HammerDB's values and answers bad ones with HammerDB's
// messages; the script carries on.
func TestCLIVusetValues(t *testing.T) {
	needTclsh(t)
	testdb.Command(t, "python3", "python3")
	t.Parallel()
	e := newEnv(t)
	tcl := `vuset vu vcpu
vuset logtotemp 1
vuset unique true
vuset timestamps off
vuset delay 0
vuset showoutput 2
vuset iterations 0
vuset vu many
vuset nobypass 1
print vuconf
puts END
`
	py := `vuset('vu', 'vcpu')
vuset('logtotemp', 1)
vuset('unique', True)
vuset('timestamps', 'off')
vuset('delay', 0)
vuset('showoutput', 2)
vuset('iterations', 0)
vuset('vu', 'many')
vuset('nobypass', 1)
print('vuconf')
print('END')
`
	for _, s := range []struct{ name, src string }{{"vuset.tcl", tcl}, {"vuset.py", py}} {
		out := e.runScript(s.name, s.src)
		if !strings.HasSuffix(out, `Show Output must be 0 or 1
setting to value: 1
Iterations must be 1 or greater
setting to value: 1
The number of virtual users must be an integer
setting to value: 1
Error: invalid option
Usage: vuset [vu|delay|repeat|iterations|showoutput|logtotemp|unique|nobuff|timestamps] value
Virtual Users = 1
User Delay(ms) = 0
Repeat Delay(ms) = 500
Iterations = 1
Show Output = 1
Log Output = 1
Unique Log Name = 1
No Log Buffer = 0
Log Timestamps = 0
END
`) {
			t.Errorf("%s:\n%s", s.name, out)
		}
	}
	// vcpu: one virtual user per CPU, before "many" reset it.
	for i, src := range []string{"vuset vu vcpu\nprint vuconf\n", "vuset('vu', 'vcpu')\nprint('vuconf')\n"} {
		name := []string{"vcpu.tcl", "vcpu.py"}[i]
		if out := e.runScript(name, src); !strings.HasPrefix(out, "Virtual Users = "+strconv.Itoa(runtime.NumCPU())+"\n") {
			t.Errorf("%s: want %d virtual users:\n%s", name, runtime.NumCPU(), out)
		}
	}
}
