package app

import (
	"bytes"
	"context"
	"io"
	"math"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/observe"
	"github.com/sledge-bench/sledge/internal/report"
)

// windowHog is a console that keeps a CPU hog spinning while a run's
// window is measured, from the engine's "measuring for" to the run's
// result, and passes what it is written on to w. One hog is enough to be
// judged (a bound of a quarter core), and at the default priority it gets
// its share even when the test binary's own goroutines busy every core
// (which count as Sledge's, not others'); a niced one would not. Outside
// the windows (a job's set-up and end, a gate's steps between trials) it
// is stopped (SIGSTOP): spinning there it judged nothing and only took the
// CPU of the suite's other tests, for the whole of a test that lasts
// minutes on a busy machine.
type windowHog struct {
	t    *testing.T
	w    io.Writer
	mu   sync.Mutex
	line []byte
	hog  *exec.Cmd
}

func newWindowHog(t *testing.T, w io.Writer) *windowHog {
	h := &windowHog{t: t, w: w}
	t.Cleanup(func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.hog != nil {
			_ = h.hog.Process.Kill()
			_ = h.hog.Wait()
		}
	})
	return h
}

func (h *windowHog) Write(p []byte) (int, error) {
	h.mu.Lock()
	h.line = append(h.line, p...)
	for {
		i := bytes.IndexByte(h.line, '\n')
		if i < 0 {
			break
		}
		switch l := string(h.line[:i]); {
		case strings.Contains(l, "measuring for "):
			h.spin(true)
		case strings.Contains(l, " result (job "):
			h.spin(false)
		}
		h.line = h.line[i+1:]
	}
	h.mu.Unlock()
	return h.w.Write(p)
}

// spin starts the hog or lets it go on (on), or stops it.
func (h *windowHog) spin(on bool) {
	switch {
	case on && h.hog == nil:
		hog := exec.Command("sh", "-c", "while :; do :; done")
		if err := hog.Start(); err != nil {
			h.t.Errorf("the CPU hog: %v", err)
			return
		}
		h.hog = hog
	case on:
		_ = h.hog.Process.Signal(syscall.SIGCONT)
	case h.hog != nil:
		_ = h.hog.Process.Signal(syscall.SIGSTOP)
	}
}

// othersWarned reports whether ws hold the warning of other processes.
func othersWarned(ws []string) bool {
	for _, w := range ws {
		if strings.HasPrefix(w, observe.NoiseWarningPrefix+"other processes used ") && strings.Contains(w, "the client machine was shared") {
			return true
		}
	}
	return false
}

// TestNoisyRunSQLite: a run on the embedded SQLite while a CPU hog the
// test started spins on the client is flagged: the result warns that other
// processes used the machine, the warning is stored, the printed block
// shows the others' CPU, and JobNoise answers from what was stored. (A
// quiet run is the fake trees' business, TestHostNoise: this machine is
// never quiet.)
func TestNoisyRunSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("runs on SQLite")
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no Linux /proc here:", err)
	}
	parallel(t)
	svc, repo := newService(t)
	ctx := context.Background()
	target := tpccSQLite(t, "c.db")

	run := config.New(config.KindRun)
	run.DB, run.VU = target, 1
	run.Rampup, run.Duration, run.Interval = 0, config.Duration(2*time.Second), config.Duration(time.Second)
	var out bytes.Buffer
	o, err := svc.Run(ctx, Request{Spec: run, Console: newWindowHog(t, &out)})
	if err != nil || o.Run == nil {
		t.Fatalf("run: %+v %v\n%s", o, err, out.String())
	}
	const others = observe.NoiseWarningPrefix + "other processes used "
	flagged := othersWarned
	if !flagged(o.Run.Warnings) {
		t.Errorf("warnings %q: want one of other processes\n%s", o.Run.Warnings, out.String())
	}
	for _, want := range []string{"warning: " + others, "cores), self ", "machine        NOISY: other processes"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	stored, err := repo.RunResult(ctx, o.ID)
	if err != nil || stored == nil || !flagged(stored.Warnings) {
		t.Errorf("stored result %v, %v: want the warning stored", stored, err)
	}
	n, err := JobNoise(ctx, repo, o.ID)
	if err != nil || n == nil {
		t.Fatalf("JobNoise = %v, %v", n, err)
	}
	if !n.Noisy() || n.Cores(n.OthersPct) <= observe.NoiseOthersCores || !(n.SelfPct > 0) {
		t.Errorf("JobNoise: noisy %v, others %.2f cores, self %.1f%%: want noisy, others above the bound, self measured",
			n.Noisy(), n.Cores(n.OthersPct), n.SelfPct)
	}
}

// TestNoisyGroupRunPostgres: in a run of agents, the agent that observes
// judges its own host and the merged result keeps its warning; the local
// PostgreSQL server's processes are found by its port, so that their CPU
// is the server's, not the others'.
func TestNoisyGroupRunPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("runs on PostgreSQL")
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no Linux /proc here:", err)
	}
	parallel(t)
	url := tpccPostgres(t)
	svc, repo := faultService(t)
	spec := runSpec(url, 0, 2*time.Second)
	spec.Segment, spec.RunID = "0:1", "noisy"
	con := newConsole()
	con.also = newWindowHog(t, io.Discard)
	f := runJob(t, svc, repo, spec, con)
	if !othersWarned(f.res.Warnings) {
		t.Errorf("merged warnings %q: want the observing agent's warning of other processes\n%s", f.res.Warnings, f.output)
	}
	n, err := JobNoise(context.Background(), repo, f.o.ID)
	if err != nil || n == nil {
		t.Fatalf("JobNoise = %v, %v", n, err)
	}
	if math.IsNaN(n.ServerPct) || math.IsNaN(n.OthersPct) {
		t.Errorf("server %.1f%%, others %.1f%%: want the local server found and the others measured\n%s", n.ServerPct, n.OthersPct, f.output)
	}
}

// TestGateRefusesNoisyTrials: a gate whose trials ran beside a CPU hog
// gives no verdict — it fails and names the noisy trials — unless it is
// allowed to (AllowNoisy), when it judges them as any other.
func TestGateRefusesNoisyTrials(t *testing.T) {
	if testing.Short() {
		t.Skip("runs on SQLite")
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no Linux /proc here:", err)
	}
	parallel(t)
	svc, _ := newService(t)
	ctx := context.Background()
	run := config.New(config.KindRun)
	run.DB, run.VU = tpccSQLite(t, "g.db"), 1
	run.Rampup, run.Duration, run.Interval = 0, config.Duration(time.Second), config.Duration(time.Second)
	hog := newWindowHog(t, io.Discard)
	for _, allow := range []bool{false, true} {
		g, outs, err := svc.Gate(ctx, GateRequest{Request: Request{Console: hog}, A: run, B: run, Trials: 2, Seed: 7, AllowNoisy: allow})
		if err != nil || len(outs) != 4 {
			t.Fatalf("gate: %d trials, %v", len(outs), err)
		}
		var text bytes.Buffer
		if err := report.GateText(&text, g); err != nil {
			t.Fatal(err)
		}
		if len(g.Noisy) == 0 || !strings.Contains(text.String(), "noisy trial: job ") {
			t.Fatalf("no trial judged noisy beside a CPU hog:\n%s", text.String())
		}
		refused := strings.Contains(text.String(), "no verdict: ")
		if g.Passed() != allow || refused == allow {
			t.Errorf("allow-noisy %v: passed %v, refused %v\n%s", allow, g.Passed(), refused, text.String())
		}
	}
}
