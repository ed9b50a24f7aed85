package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAgentServesOSMetrics: sledge agent --os-metrics serves this host's
// figures at the address it prints, and Ctrl-C stops it with status 0 (a
// stopped agent has done what it was asked).
func TestAgentServesOSMetrics(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skip("no Linux /proc here")
	}
	for _, tc := range []struct {
		listen string
		warns  bool // the beyond-loopback warning
	}{
		{"127.0.0.1:0", false},
		{"0.0.0.0:0", true},
	} {
		t.Run(tc.listen, func(t *testing.T) {
			t.Parallel()
			p := newEnv(t).start("agent", "--os-metrics", "--listen", tc.listen)
			p.waitFor(t, `listening on http://\S+/metrics`)
			url := regexp.MustCompile(`listening on (http://\S+/metrics)`).FindStringSubmatch(p.output())[1]
			url = strings.Replace(url, "0.0.0.0", "127.0.0.1", 1)
			resp, err := http.Get(url)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET %s: %s\n%s", url, resp.Status, body)
			}
			for _, want := range []string{`node_cpu_seconds_total{cpu="0",mode="user"}`, "node_memory_MemTotal_bytes ", "node_uname_info{"} {
				if !strings.Contains(string(body), want) {
					t.Errorf("GET %s has no %s:\n%.2000s", url, want, body)
				}
			}
			if warned := strings.Contains(p.output(), "anyone who can reach"); warned != tc.warns {
				t.Errorf("warned about readers beyond loopback: %v, want %v:\n%s", warned, tc.warns, p.output())
			}
			if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			if code := p.exitCode(t); code != 0 {
				t.Fatalf("agent stopped by Ctrl-C exited %d, want 0:\n%s", code, p.output())
			}
			if !strings.Contains(p.output(), "sledge agent: stopped") {
				t.Errorf("no word of stopping:\n%s", p.output())
			}
		})
	}
}

// TestAgentRefuses: no kind of figures named, no /proc to read, a bad
// address: it says why and exits 1 before listening.
func TestAgentRefuses(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	noProc := filepath.Join(t.TempDir(), "proc")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"agent"}, "say what to serve: --os-metrics"},
		{[]string{"agent", "--os-metrics", "--listen", "127.0.0.1:0", "--proc", noProc}, "OS metrics need Linux /proc"},
		{[]string{"agent", "--os-metrics", "--listen", "no-port"}, `--listen "no-port"`},
	} {
		if tc.want == `--listen "no-port"` {
			if _, err := os.Stat("/proc/stat"); err != nil {
				continue // the /proc check comes first
			}
		}
		out, err := e.process("", tc.args...)
		if code := exitCodeOf(t, err); code != 1 || !strings.Contains(out, tc.want) || strings.Contains(out, "listening on") {
			t.Errorf("sledge %s: exit %d, want 1 saying %q:\n%s", strings.Join(tc.args, " "), code, tc.want, out)
		}
	}
}
