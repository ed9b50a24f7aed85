package main

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
)

// progressText is the text progress line, as a script would match it: the
// elapsed time in whole seconds, right-aligned, for any length of run.
var progressText = regexp.MustCompile(`^\[ *\d+s\] (rampup|measure) +TPM +[\d,]+  NOPM +[\d,]+  new_order p95 +[\d.]+ ms  errors \d+$`)

// TestProgress runs on the embedded SQLite default with each --progress:
// text prints the progress lines, json one JSON object per interval in
// their place; the other lines (the result) are text either way.
func TestProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	t.Parallel()
	for _, mode := range []string{"text", "json"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.tpcc() // the embedded default, as a first run leaves it
			out := e.ok("run", "--vu", "2", "--rampup", "1s", "--duration", "3s", "--interval", "1s", "--progress", mode)
			if !strings.Contains(out, "TPROC-C result") || !strings.Contains(out, "\n  TPM ") {
				t.Errorf("no text result:\n%s", out)
			}
			var texts, objects []string
			for _, line := range strings.Split(out, "\n") {
				switch {
				case strings.HasPrefix(line, "{"):
					objects = append(objects, line)
				case progressText.MatchString(line):
					texts = append(texts, line)
				}
			}
			want, other := texts, objects
			if mode == "json" {
				want, other = objects, texts
			}
			if len(want) < 3 || len(other) != 0 {
				t.Fatalf("%d %s progress lines, %d of the other kind:\n%s", len(want), mode, len(other), out)
			}
			if mode == "text" {
				return
			}
			for _, line := range objects {
				var iv map[string]any
				if err := json.Unmarshal([]byte(line), &iv); err != nil {
					t.Fatalf("%q: %v", line, err)
				}
				for _, k := range []string{"elapsed_s", "phase", "tpm", "nopm", "errors", "transactions"} {
					if _, ok := iv[k]; !ok {
						t.Errorf("%q: no %q", line, k)
					}
				}
				if p := iv["phase"]; p != "rampup" && p != "measure" {
					t.Errorf("%q: phase %v", line, p)
				}
				txs, _ := iv["transactions"].(map[string]any)
				if len(txs) == 0 {
					t.Errorf("%q: no transactions", line)
				}
				for name, tx := range txs {
					fields, _ := tx.(map[string]any)
					for _, k := range []string{"count", "errors", "p50_ms", "p95_ms", "p99_ms", "max_ms"} {
						if _, ok := fields[k].(float64); !ok {
							t.Errorf("%q: %s has no number %q", line, name, k)
						}
					}
				}
			}
		})
	}
}

// TestProgressRejectsBadValue: an unknown --progress fails before any job,
// naming the flag and its values, with a non-zero exit.
func TestProgressRejectsBadValue(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	out, err := e.run("run", "--progress", "xml")
	if err == nil || !strings.Contains(err.Error(), `--progress: "xml": want text or json`) {
		t.Fatalf("error %v, output %q", err, out)
	}
	var exit interface{ ExitCode() int }
	if errors.As(err, &exit) && exit.ExitCode() == 0 {
		t.Errorf("exit status 0")
	}
	if out != "" {
		t.Errorf("output %q: no job should have started", out)
	}
	if n := len(e.jobs()); n != 0 {
		t.Errorf("%d jobs recorded", n)
	}
}
