package script

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// A job's output as HammerDB shows a job's virtual users: on the console
// every line of the job's own output is virtual user 1's ("Vuser 1:…", VU 1
// being HammerDB's monitor), framed by each virtual user's status lines
// ("Vuser 2:RUNNING" … "Vuser 2:FINISHED SUCCESS", "ALL VIRTUAL USERS
// COMPLETE"); with vuset logtotemp 1 the same lines go to HammerDB's log
// file in the temporary directory. The jobs repository keeps the lines
// without prefixes, as HammerDB's job output does (jobs ID 1).

// vusers is how many virtual users HammerDB runs for the job s describes: a
// timed TPROC-C run's VUs (a staged run's largest stage's: steprun's
// primary and replicas together) plus its monitor; a test-driver
// (iteration) run's VUs; TPROC-H's query streams (the power test's and the
// throughput test's); a build's loading VUs plus a monitor when there are
// several (HammerDB builds no more warehouses at once than there are); one
// for the other actions.
func vusers(s config.Spec) int {
	switch s.Kind {
	case config.KindRun:
		switch {
		case s.Workload == "tproch":
			// The power test and, with streams, the throughput test's
			// streams after it: each is a VU (streamVU).
			return s.Streams + 1
		case s.Iterations > 0:
			return max(1, s.VU)
		}
		n := s.VU
		if s.LoadModel() == config.LoadClosed { // a staged run's VUs: its largest stage's (steprun)
			// (Stages as the job recorded them: what a run stored was valid.)
			if stages, err := config.ParseStages(s.Stages); err == nil {
				for _, st := range stages {
					n = max(n, int(st.Target))
				}
			}
		}
		return max(1, n) + 1
	case config.KindBuild:
		n := s.Workers
		if s.Workload != "tproch" {
			n = min(n, s.Warehouses)
		}
		if n > 1 {
			return n + 1
		}
	}
	return 1
}

// finished is HammerDB's status of a virtual user whose job ended with
// status.
func finished(status string) string {
	switch status {
	case metrics.StatusCompleted, metrics.StatusDegraded:
		return "FINISHED SUCCESS"
	case metrics.StatusInterrupted:
		return "FINISHED INTERRUPTED"
	}
	return "FINISHED FAILED"
}

// vuserOutput is the job's console (an io.Writer the job service writes
// whole lines to): each line is shown as VU 1's, after the RUNNING lines of
// every virtual user when the first one comes, and logged to log.
type vuserOutput struct {
	mu      sync.Mutex
	w       io.Writer
	show    bool // show the job's own lines (vuset showoutput)
	vusers  int
	log     *hammerLog // nil without logtotemp
	buf     []byte
	started bool
}

func newVuserOutput(w io.Writer, vusers int, show bool, log *hammerLog) *vuserOutput {
	return &vuserOutput{w: w, show: show, vusers: max(1, vusers), log: log}
}

func (v *vuserOutput) Write(p []byte) (int, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.buf = append(v.buf, p...)
	for {
		i := bytes.IndexByte(v.buf, '\n')
		if i < 0 {
			break
		}
		v.emit(string(v.buf[:i]), v.show)
		v.buf = v.buf[i+1:]
	}
	return len(p), nil
}

// line shows one more line of VU 1, whatever vuset showoutput says
// (HammerDB's result lines).
func (v *vuserOutput) line(text string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.emit(text, true)
}

func (v *vuserOutput) emit(text string, show bool) { v.emitVU(1, text, show) }

// vuLine shows one line of virtual user vu: always when result is set
// (HammerDB's result lines), else as vuset showoutput says.
func (v *vuserOutput) vuLine(vu int, text string, result bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.emitVU(vu, text, result || v.show)
}

func (v *vuserOutput) emitVU(vu int, text string, show bool) {
	text = strings.TrimRight(text, "\r")
	v.start()
	if show {
		fmt.Fprintf(v.w, "Vuser %d:%s\n", vu, text)
	}
	v.log.line(vu, text)
}

// failure shows why the job failed as HammerDB shows a virtual user's
// error, before the FINISHED lines: "Error in Virtual User 1: MESSAGE".
// It reports whether it did: a job that showed no virtual users (it said
// nothing) shows its error as other failures do.
func (v *vuserOutput) failure(msg string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.started {
		return false
	}
	fmt.Fprintf(v.w, "Error in Virtual User 1: %s\n", msg)
	v.log.line(1, "Error in Virtual User 1: "+msg)
	return true
}

// streamConsole shows a TPROC-H run's queries as they run, each stream as
// the virtual user HammerDB runs it on (streamVU) prints it: "Executing
// Query N (P of 22)" when a query starts, its end ("query N completed in S
// seconds") when it ends, and when a query set has ended its "Completed N
// query set(s) in S seconds" and "Geometric mean of query times returning
// rows (N) is …" lines. jobs ID N writes a stored run's lines with the same functions
// (jobRows), so the console and the jobs repository agree.
type streamConsole struct {
	out  *vuserOutput
	mu   sync.Mutex
	open map[[2]int][]metrics.AnalyticQuery // the queries of unfinished sets, by stream and set
}

// setSize is the queries in a query set.
const setSize = 22

func newStreamConsole(out *vuserOutput) *streamConsole {
	return &streamConsole{out: out, open: map[[2]int][]metrics.AnalyticQuery{}}
}

// started shows one query that starts; streams call it concurrently.
func (c *streamConsole) started(q metrics.AnalyticQuery) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.out.vuLine(streamVU(q.Stream), executingLine(q), false)
}

// query shows one query that has ended; streams call it concurrently.
func (c *streamConsole) query(q metrics.AnalyticQuery) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.out.vuLine(streamVU(q.Stream), endLine(q), false)
	k := [2]int{q.Stream, max(q.Set, 1)}
	c.open[k] = append(c.open[k], q)
	if q.Position >= setSize {
		c.end(k)
	}
}

// end shows the end of a query set.
func (c *streamConsole) end(k [2]int) {
	for _, st := range analyticStreams(&metrics.AnalyticResult{Queries: c.open[k]}) {
		for _, set := range st.sets {
			for _, l := range set.endLines() {
				c.out.vuLine(streamVU(st.stream), l, true)
			}
		}
	}
	delete(c.open, k)
}

// flush ends the sets a failed or interrupted run left unfinished, as
// HammerDB's virtual user does when it leaves its query loop early. A nil
// console has none.
func (c *streamConsole) flush() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	keys := make([][2]int, 0, len(c.open))
	for k := range c.open {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]int) int { return cmp.Or(a[0]-b[0], a[1]-b[1]) })
	for _, k := range keys {
		c.end(k)
	}
}

func (v *vuserOutput) start() {
	if v.started {
		return
	}
	v.started = true
	for k := 1; k <= v.vusers; k++ {
		fmt.Fprintf(v.w, "Vuser %d:RUNNING\n", k)
	}
}

// finish shows what is left of an unfinished line, then, if the job said
// anything, every virtual user's end for the job's status and HammerDB's
// closing line.
func (v *vuserOutput) finish(status string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.buf) > 0 {
		v.emit(string(v.buf), v.show)
		v.buf = nil
	}
	if !v.started {
		return
	}
	end := finished(status)
	for k := 1; k <= v.vusers; k++ {
		fmt.Fprintf(v.w, "Vuser %d:%s\n", k, end)
	}
	fmt.Fprintln(v.w, "ALL VIRTUAL USERS COMPLETE")
}

// hammerLog is HammerDB's log of virtual user output (vuset logtotemp 1):
// hammerdb.log in the temporary directory, or hammerdb_GUID.log with vuset
// unique 1, opened for appending, with a header, then one "Vuser N:LINE"
// per line, each after a "Timestamp N @ DATE" line with vuset timestamps 1.
type hammerLog struct {
	f          *os.File
	path       string
	timestamps bool
	now        func() time.Time
	err        error // the first write error; later lines are not tried
}

// tclClock is the layout of Tcl's `clock format [clock seconds]`, which
// HammerDB's log uses for its dates.
const tclClock = "Mon Jan 02 15:04:05 MST 2006"

// logSeparator follows the log's header line.
const logSeparator = "+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-"

// openHammerLog opens the log in dir and writes its header.
func openHammerLog(dir string, unique, timestamps bool, now func() time.Time) (*hammerLog, error) {
	name := "hammerdb.log"
	if unique {
		name = "hammerdb_" + logGUID(now()) + ".log"
	}
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("could not open tempfile %s: %w", path, err)
	}
	l := &hammerLog{f: f, path: path, timestamps: timestamps, now: now}
	l.write("Hammerdb Log @ " + now().Format(tclClock) + "\n" + logSeparator + "\n")
	if l.err != nil {
		f.Close()
		return nil, l.err
	}
	return l, nil
}

// line logs one line of virtual user vu. A nil log logs nothing.
func (l *hammerLog) line(vu int, text string) {
	if l == nil {
		return
	}
	var b strings.Builder
	if l.timestamps {
		fmt.Fprintf(&b, "Timestamp %d @ %s\n", vu, l.now().Format(tclClock))
	}
	fmt.Fprintf(&b, "Vuser %d:%s\n", vu, text)
	l.write(b.String())
}

func (l *hammerLog) write(s string) {
	if l.err != nil {
		return
	}
	if _, err := l.f.WriteString(s); err != nil {
		l.err = fmt.Errorf("write %s: %w", l.path, err)
	}
}

// Close closes the file and reports the first write error. A nil log is
// fine.
func (l *hammerLog) Close() error {
	if l == nil {
		return nil
	}
	if err := l.f.Close(); err != nil && l.err == nil {
		l.err = fmt.Errorf("close %s: %w", l.path, err)
	}
	return l.err
}

// logGUID is a unique log name's id in the shape of HammerDB's: 24
// upper-case hexadecimal digits, the first eight the time in seconds.
func logGUID(t time.Time) string {
	var r [8]byte
	_, _ = rand.Read(r[:])
	return strings.ToUpper(fmt.Sprintf("%08x%s", uint32(t.Unix()), hex.EncodeToString(r[:])))
}

// tempDir is the directory HammerDB writes its logs to: on Unix the first
// writable directory of $TMP, $TMPDIR, $TEMP and /tmp; on Windows of
// $TEMP, $TMP, $TMPDIR, C:/TEMP and C:/; else the current directory; ""
// when none is writable (HammerDB then logs nothing).
func tempDir(goos string, getenv func(string) string) string {
	var candidates []string
	if goos == "windows" {
		candidates = []string{getenv("TEMP"), getenv("TMP"), getenv("TMPDIR"), "C:/TEMP", "C:/"}
	} else {
		candidates = []string{getenv("TMP"), getenv("TMPDIR"), getenv("TEMP"), "/tmp"}
	}
	for _, d := range append(candidates, ".") {
		if d != "" && writableDir(d) {
			return d
		}
	}
	return ""
}

// writableDir says whether dir is a directory a file can be created in.
func writableDir(dir string) bool {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return false
	}
	f, err := os.CreateTemp(dir, ".sledge-probe-*")
	if err != nil {
		return false
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return true
}

// openLog opens HammerDB's log when vuset logtotemp asks for it and says
// where it goes, as HammerDB does ("Logging activated to /tmp/hammerdb.log");
// nil without logtotemp or when it cannot be opened (said on w: the action
// runs without it).
func (h *hammer) openLog(w io.Writer) *hammerLog {
	if !truthy(h.vu("logtotemp")) {
		return nil
	}
	dir := tempDir(runtime.GOOS, h.env.get)
	if dir == "" {
		fmt.Fprintln(w, "Could not create Logfile")
		return nil
	}
	l, err := openHammerLog(dir, truthy(h.vu("unique")), truthy(h.vu("timestamps")), time.Now)
	if err != nil {
		fmt.Fprintf(w, "Error: %v\n", err)
		return nil
	}
	fmt.Fprintf(w, "Logging activated to %s\n", l.path)
	return l
}
