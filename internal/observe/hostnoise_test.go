package observe

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// procStatLine is a /proc/PID/stat line with the fields the observer reads
// (ppid, utime, stime, starttime) set, and a command name with a space and
// a parenthesis that a naive split would stumble on.
func procStatLine(pid, ppid int, utime, stime, start uint64) string {
	return fmt.Sprintf("%d (my (cmd)) S %d %d %d 0 -1 4194304 10 0 0 0 %d %d 0 0 20 0 1 0 %d 1000 100 18446744073709551615\n",
		pid, ppid, pid, pid, utime, stime, start)
}

// noiseInterval is one 5 s interval of a 2-CPU fake host (1000 ticks):
// the ticks stolen, used by this process, the server's processes and the
// others, and each CPU's frequency at its end in kHz (none: no cpufreq).
type noiseInterval struct {
	steal, self, server, others uint64
	freq                        []int
}

// fakeNoiseHost is a /proc and /sys tree whose counters move by one
// noiseInterval at each step. The server, when there is one, listens on
// port 5432 (pid 100, with a child 101 and a grandchild 102); pid 200 is
// another process.
type fakeNoiseHost struct {
	proc, sys string
	// cumulative ticks
	user, steal, idle, self, server uint64
	withServer, serverHidden        bool
}

func newFakeNoiseHost(t *testing.T, withServer bool) *fakeNoiseHost {
	t.Helper()
	dir := t.TempDir()
	h := &fakeNoiseHost{proc: filepath.Join(dir, "proc"), sys: filepath.Join(dir, "sys"), withServer: withServer}
	writeProc(t, h.proc, procBefore) // meminfo, net/dev, diskstats, …
	write(t, filepath.Join(h.proc, "net/tcp"), "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"+
		"   0: 0100007F:1538 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 777 1 0000000000000000 100 0 0 10 0\n"+
		"   1: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 888 1 0000000000000000 100 0 0 10 0\n"+
		"   2: 0100007F:D431 0100007F:1538 01 00000000:00000000 00:00000000 00000000  1000        0 999 1 0000000000000000 100 0 0 10 0\n")
	if withServer {
		for _, fd := range []struct{ pid, fd, inode int }{{100, 3, 777}, {101, 9, 999}, {200, 4, 888}} {
			p := filepath.Join(h.proc, fmt.Sprint(fd.pid), "fd", fmt.Sprint(fd.fd))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(fmt.Sprintf("socket:[%d]", fd.inode), p); err != nil {
				t.Fatal(err)
			}
		}
	}
	h.step(t, noiseInterval{freq: []int{2000000, 2000000}})
	return h
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// step moves the counters by iv.
func (h *fakeNoiseHost) step(t *testing.T, iv noiseInterval) {
	t.Helper()
	busy := iv.self + iv.server + iv.others
	if !h.withServer {
		busy -= iv.server
	}
	h.user += busy
	h.steal += iv.steal
	h.idle += 1000 - busy - iv.steal
	h.self += iv.self
	h.server += iv.server
	write(t, filepath.Join(h.proc, "stat"), fmt.Sprintf("cpu  %d 0 0 %d 0 0 0 %d 0 0\ncpu0 0 0 0 0 0 0 0 0 0 0\ncpu1 0 0 0 0 0 0 0 0 0 0\n", h.user, h.idle, h.steal))
	write(t, filepath.Join(h.proc, "self/stat"), procStatLine(300, 1, h.self/2, h.self-h.self/2, 500))
	write(t, filepath.Join(h.proc, "200/stat"), procStatLine(200, 1, 0, 0, 50))
	if h.withServer {
		// The server's ticks: a quarter in the postmaster, a quarter in a
		// backend, half in the backend's child.
		q := h.server / 4
		write(t, filepath.Join(h.proc, "100/stat"), procStatLine(100, 1, q, 0, 10))
		write(t, filepath.Join(h.proc, "101/stat"), procStatLine(101, 100, 0, q, 20))
		write(t, filepath.Join(h.proc, "102/stat"), procStatLine(102, 101, h.server-2*q, 0, 30))
	}
	for i, khz := range iv.freq {
		write(t, filepath.Join(h.sys, fmt.Sprintf("devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", i)), fmt.Sprintf("%d\n", khz))
	}
}

// TestHostNoise runs the host observer over fake trees and judges the
// window: a quiet one gives no warning, each kind of noise its own; the
// server's processes are not counted as others'.
func TestHostNoise(t *testing.T) {
	t.Parallel()
	quiet := noiseInterval{self: 300, others: 10, freq: []int{2000000, 2000000}}
	repeat := func(iv noiseInterval, n int) []noiseInterval {
		out := make([]noiseInterval, n)
		for i := range out {
			out[i] = iv
		}
		return out
	}
	with := func(iv noiseInterval, f func(*noiseInterval)) noiseInterval { f(&iv); return iv }
	for _, tc := range []struct {
		name      string
		server    LocalServer
		noFreq    bool
		intervals []noiseInterval
		want      []string // substrings, one per warning, in order
		// figures over the window: others and self in % of the host's CPU,
		// server's (NaN: not measured), frequency spread
		others, self, serverPct, spread float64
		note                            string
	}{
		{name: "quiet", intervals: repeat(quiet, 4), others: 1, self: 30, serverPct: math.NaN(), spread: 0},
		{name: "steal on average", intervals: repeat(with(quiet, func(iv *noiseInterval) { iv.steal = 80 }), 4),
			want: []string{"CPU steal was 8.0% of the client host's CPU on average over the measured window (bound 5%)"}, others: 1, self: 30, serverPct: math.NaN(), spread: 0},
		{name: "steal in one interval",
			intervals: []noiseInterval{quiet, quiet, with(quiet, func(iv *noiseInterval) { iv.steal = 250 }), quiet, quiet, quiet, quiet},
			want:      []string{"CPU steal reached 25.0% of the client host's CPU in the interval ending at 15 s (bound 20% in any interval)"},
			others:    1, self: 30, serverPct: math.NaN(), spread: 0},
		{name: "others", intervals: repeat(with(quiet, func(iv *noiseInterval) { iv.others = 700 }), 4),
			want:   []string{"other processes used 1.40 cores on average during the measured window (70.0% of the client host's CPU; bound 0.25 cores): the client machine was shared"},
			others: 70, self: 30, serverPct: math.NaN(), spread: 0},
		{name: "frequency", intervals: []noiseInterval{quiet, with(quiet, func(iv *noiseInterval) { iv.freq = []int{2400000, 2400000} }), quiet},
			want:   []string{"the CPU frequency varied by 20% between intervals (mean 2000 to 2400 MHz; bound 10%)"},
			others: 1, self: 30, serverPct: math.NaN(), spread: 20},
		{name: "frequency within a cut is not a change", intervals: repeat(with(quiet, func(iv *noiseInterval) { iv.freq = []int{1000000, 3000000} }), 3),
			others: 1, self: 30, serverPct: math.NaN(), spread: 0},
		{name: "no cpufreq", noFreq: true, intervals: repeat(with(quiet, func(iv *noiseInterval) { iv.freq = nil }), 3),
			others: 1, self: 30, serverPct: math.NaN(), spread: math.NaN(), note: "CPU frequency not available"},
		{name: "server excluded", server: LocalServer{Port: 5432},
			intervals: repeat(with(quiet, func(iv *noiseInterval) { iv.server = 600 }), 4), others: 1, self: 30, serverPct: 60, spread: 0},
		{name: "server on another port is others", server: LocalServer{Port: 8080},
			intervals: repeat(with(quiet, func(iv *noiseInterval) { iv.server = 600 }), 4),
			want:      []string{"other processes used 1.22 cores"}, others: 61, self: 30, serverPct: 0, spread: 0},
		{name: "server not found", server: LocalServer{Port: 6000},
			intervals: repeat(with(quiet, func(iv *noiseInterval) { iv.server = 600 }), 4),
			others:    math.NaN(), self: 30, serverPct: math.NaN(), spread: 0, note: "no socket listens on port 6000 here"},
		{name: "server over a Unix socket", server: LocalServer{Unknown: "the server is reached over a Unix socket"},
			intervals: repeat(with(quiet, func(iv *noiseInterval) { iv.server = 600 }), 4),
			others:    math.NaN(), self: 30, serverPct: math.NaN(), spread: 0, note: "reached over a Unix socket"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// The server's processes exist whenever a server is named (the
			// "another port" case: a server this run does not talk to).
			h := newFakeNoiseHost(t, tc.server.Port != 0 || tc.server.Unknown != "")
			if tc.noFreq {
				if err := os.RemoveAll(h.sys); err != nil {
					t.Fatal(err)
				}
			}
			o := NewHost("client host", HostOptions{ProcRoot: h.proc, SysRoot: h.sys, Server: tc.server})
			st, err := o.Start(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer o.Close()
			notes := strings.Join(st.Notes, "\n")
			if tc.note == "" && notes != "" {
				t.Errorf("notes %q, want none", notes)
			} else if !strings.Contains(notes, tc.note) {
				t.Errorf("notes %q, want %q", notes, tc.note)
			}
			var window []Snapshot
			for i, iv := range tc.intervals {
				h.step(t, iv)
				window = append(window, o.Cut(time.Duration(i+1)*5*time.Second))
			}
			n := JudgeHost("client host", window)
			if len(n.Warnings) != len(tc.want) {
				t.Fatalf("warnings %q, want %d: %q", n.Warnings, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(n.Warnings[i], NoiseWarningPrefix) || !strings.Contains(n.Warnings[i], w) {
					t.Errorf("warning %q, want %q", n.Warnings[i], w)
				}
			}
			if n.Noisy() != (len(tc.want) > 0) {
				t.Errorf("Noisy() = %v", n.Noisy())
			}
			for _, f := range []struct {
				name      string
				got, want float64
			}{{"others", n.OthersPct, tc.others}, {"self", n.SelfPct, tc.self}, {"server", n.ServerPct, tc.serverPct}, {"frequency spread", n.FreqSpreadPct(), tc.spread}} {
				if math.IsNaN(f.want) != math.IsNaN(f.got) || math.Abs(f.got-f.want) > 1e-9 {
					t.Errorf("%s = %v, want %v", f.name, f.got, f.want)
				}
			}
			if tc.noFreq {
				for _, s := range window {
					for _, c := range s.Counters {
						if strings.HasPrefix(c.Name, "freq_") {
							t.Errorf("counter %s without cpufreq", c.Name)
						}
					}
				}
			}
		})
	}
}

// TestHostNoiseServerRestarted: a server that restarted (its listening
// process is another one) is found again, and its new processes' CPU is
// counted from their start.
func TestHostNoiseServerRestarted(t *testing.T) {
	t.Parallel()
	h := newFakeNoiseHost(t, true)
	o := NewHost("client host", HostOptions{ProcRoot: h.proc, SysRoot: h.sys, Server: LocalServer{Port: 5432}})
	if _, err := o.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	iv := noiseInterval{self: 100, server: 400, freq: []int{2000000, 2000000}}
	h.step(t, iv)
	o.Cut(5 * time.Second)
	// The restarted server: pid 400 owns the socket now, its child 401
	// used 100 ticks of which all fall in this interval.
	for _, pid := range []string{"100", "101", "102"} {
		if err := os.RemoveAll(filepath.Join(h.proc, pid)); err != nil {
			t.Fatal(err)
		}
	}
	h.withServer = false
	h.step(t, noiseInterval{self: 100, others: 100, freq: []int{2000000, 2000000}})
	write(t, filepath.Join(h.proc, "400/stat"), procStatLine(400, 1, 0, 0, 900))
	write(t, filepath.Join(h.proc, "401/stat"), procStatLine(401, 400, 60, 40, 901))
	if err := os.MkdirAll(filepath.Join(h.proc, "400/fd"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("socket:[777]", filepath.Join(h.proc, "400/fd/5")); err != nil {
		t.Fatal(err)
	}
	got := counterMap(t, o.Cut(10*time.Second).Counters)
	if v := got[SourceOSCPU+"/server_pct"].Value; v != 10 {
		t.Errorf("server_pct = %v, want 10", v)
	}
	if v, ok := got[SourceOSCPU+"/others_pct"]; !ok || v.Value != 0 {
		t.Errorf("others_pct = %v (%v), want 0", v.Value, ok)
	}
}
