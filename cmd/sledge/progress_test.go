package main

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// progressText is the text progress line, as a script would match it: the
// elapsed time in whole seconds, right-aligned, for any length of run.
var progressText = regexp.MustCompile(`^\[ *\d+s\] (rampup|measure) +TPM +[\d,]+  NOPM +[\d,]+  new_order p95 +[\d.]+ ms  errors \d+$`)

// TestProgress runs on the embedded SQLite default with each way of
// printing: text progress lines on stdout; --progress json, one JSON object
// per interval on stderr and no progress line on stdout; and --format json
// --progress-file, the job's summary alone on stdout as one JSON object,
// the intervals as JSON lines in the file, the text on stderr.
func TestProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	t.Parallel()
	e := newEnv(t)
	e.tpcc() // the embedded default, as a first run leaves it
	run := func(extra ...string) (stdout, stderr string) {
		t.Helper()
		gs := e.state()
		out, err := runSledge(t.Context(), gs, append([]string{"run", "--vu", "2", "--rampup", "1s", "--duration", "3s", "--interval", "1s"}, extra...)...)
		if err != nil {
			t.Fatalf("run %v: %v\n%s\n%s", extra, err, out, testStderr(gs))
		}
		return out, testStderr(gs)
	}
	count := func(text string) (texts, objects []string) {
		for _, line := range strings.Split(text, "\n") {
			switch {
			case strings.HasPrefix(line, "{"):
				objects = append(objects, line)
			case progressText.MatchString(line):
				texts = append(texts, line)
			}
		}
		return texts, objects
	}

	out, errOut := run("--progress", "text")
	texts, objects := count(out)
	if len(texts) < 3 || len(objects) != 0 || !strings.Contains(out, "TPROC-C result") || strings.Contains(errOut, "{") {
		t.Errorf("--progress text: %d text lines, %d JSON on stdout:\n%s\nstderr:\n%s", len(texts), len(objects), out, errOut)
	}

	out, errOut = run("--progress", "json")
	texts, objects = count(out)
	if len(texts) != 0 || len(objects) != 0 || !strings.Contains(out, "TPROC-C result") || !strings.Contains(out, "\n  TPM ") {
		t.Errorf("--progress json: stdout has %d text and %d JSON progress lines, or no text result:\n%s", len(texts), len(objects), out)
	}
	texts, objects = count(errOut)
	if len(objects) < 3 || len(texts) != 0 {
		t.Errorf("--progress json: stderr has %d JSON and %d text progress lines:\n%s", len(objects), len(texts), errOut)
	}
	checkProgressObjects(t, objects)

	file := filepath.Join(t.TempDir(), "progress.jsonl")
	out, errOut = run("--format", "json", "--progress-file", file)
	var summary struct {
		Job    map[string]any `json:"job"`
		Result map[string]any `json:"result"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&summary); err != nil || dec.More() || summary.Job["status"] != "completed" || summary.Job["kind"] != "run" {
		t.Errorf("--format json: stdout is not the job's summary alone (%v):\n%s", err, out)
	}
	if nopm, ok := summary.Result["nopm"].(float64); !ok || nopm <= 0 {
		t.Errorf("--format json: result %v", summary.Result)
	}
	if texts, _ := count(errOut); len(texts) < 3 || !strings.Contains(errOut, "TPROC-C result") {
		t.Errorf("--format json: the text lines are not on stderr:\n%s", errOut)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) < 3 {
		t.Errorf("--progress-file: %d lines:\n%s", len(lines), b)
	}
	checkProgressObjects(t, lines)

	// --format json for a check too: its conditions in the summary.
	gs := e.state()
	out, err = runSledge(t.Context(), gs, "check", "--format", "json")
	var check struct {
		Job   map[string]any   `json:"job"`
		Check []map[string]any `json:"check"`
	}
	if err != nil || json.Unmarshal([]byte(out), &check) != nil || check.Job["kind"] != "check" || len(check.Check) == 0 ||
		!strings.Contains(testStderr(gs), "all conditions hold") {
		t.Errorf("check --format json: %v\n%s\nstderr:\n%s", err, out, testStderr(gs))
	}
}

// checkProgressObjects checks JSON progress lines: each an interval object
// with its fields, times to the millisecond.
func checkProgressObjects(t *testing.T, lines []string) {
	t.Helper()
	for _, line := range lines {
		var iv map[string]any
		if err := json.Unmarshal([]byte(line), &iv); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		for _, k := range []string{"seq", "elapsed_s", "length_s", "phase", "tpm", "nopm", "errors", "transactions", "vus"} {
			if _, ok := iv[k]; !ok {
				t.Errorf("%q: no %q", line, k)
			}
		}
		for _, k := range []string{"elapsed_s", "length_s"} {
			if v, _ := iv[k].(float64); math.Abs(v*1000-math.Round(v*1000)) > 1e-6 {
				t.Errorf("%q: %s %v is not in milliseconds", line, k, v)
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

// TestFormatRejectsBadValue: an unknown --format of run, build or check
// fails before any job.
func TestFormatRejectsBadValue(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, cmd := range []string{"run", "build", "check"} {
		out, err := e.run(cmd, "--format", "xml")
		if err == nil || !strings.Contains(err.Error(), `--format: "xml": want text or json`) || out != "" {
			t.Errorf("%s --format xml: error %v, output %q", cmd, err, out)
		}
	}
	if _, err := e.run("run", "--repeat", "2", "--format", "json"); err == nil || !strings.Contains(err.Error(), "--repeat: not with") {
		t.Errorf("--repeat 2 --format json: %v", err)
	}
	if n := len(e.jobs()); n != 0 {
		t.Errorf("%d jobs recorded", n)
	}
}
