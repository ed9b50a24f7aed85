package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestProfileBadInput: bad --vu lists and flags are refused before any job,
// with a message naming the flag.
func TestProfileBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{}, "--vu: give the VU counts"},
		{[]string{"--vu", ""}, "--vu: give the VU counts"},
		{[]string{"--vu", "1,x"}, `"x" is not a whole number`},
		{[]string{"--vu", "1,,2"}, `"" is not a whole number`},
		{[]string{"--vu", "2,1"}, "strictly ascending"},
		{[]string{"--vu", "1,2,2"}, "strictly ascending"},
		{[]string{"--vu", "0,1"}, "want 1 to 10000"},
		{[]string{"--vu", "1,10001"}, "want 1 to 10000"},
		{[]string{"--vu", "1,2", "--repeat", "0"}, "--repeat: must be between"},
		{[]string{"--vu", "1,2", "--stages", "1s:1"}, "--stages: a profile sets the VUs"},
		{[]string{"--vu", "1,2", "--repeat", "101"}, "--repeat: must be between 1 and 100"},
		{[]string{"--vu", "1,2", "--rate", "10"}, "--rate: a profile varies closed-loop VUs"},
		{[]string{"--vu", "1,2", "--terminals", "20"}, "--terminals: a profile varies closed-loop VUs"},
		{[]string{"--vu", "1,2", "--connections", "4"}, "--connections: a profile varies closed-loop VUs"},
		{[]string{"--vu", "1,2", "--duration", "-1s"}, "--duration"},
	} {
		out, err := e.run(append([]string{"profile"}, c.args...)...)
		if err == nil || !strings.Contains(out+err.Error(), c.want) {
			t.Errorf("profile %q: %v\n%s; want an error with %q", c.args, err, out, c.want)
		}
	}
	if out, err := e.run("profile", "show", "12"); err == nil {
		t.Errorf("profile show of a missing repository or job: %s", out)
	}
	out := e.ok("profile", "--help")
	for _, want := range []string{"--vu", "--repeat", "--html", "--duration", "--between", "--db", "knee", "half the linear gain"} {
		if !strings.Contains(out, want) {
			t.Errorf("profile --help lacks %q", want)
		}
	}
	if regexp.MustCompile(`(?m)^\s+--vu int`).MatchString(out) {
		t.Error("profile --help has run's --vu int")
	}
}

// TestProfileAndCompare runs two tiny profiles on SQLite (1 and 2 VUs, two
// trials each, 1 s windows), checks the table, the HTML report and JSON, lists them and
// compares them (and two of their jobs, as jobs diff does).
func TestProfileAndCompare(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on SQLite")
	}
	t.Parallel()
	e := newEnv(t)
	e.tpcc() // the embedded default, as a first run leaves it
	// A job that is no profile's: job 1.
	if out := e.ok("check"); !strings.Contains(out, "all conditions hold") {
		t.Fatalf("check:\n%s", out)
	}
	dir := t.TempDir()
	html := filepath.Join(dir, "profile.html")
	// 1 s windows: what is checked is the profiles' table, reports, listing
	// and comparison, which eight windows of one interval each give as
	// well as longer ones (each unpaced: they take all the CPU they get).
	run := []string{"profile", "--vu", "1,2", "--repeat", "2", "--rampup", "0s", "--duration", "1s", "--interval", "1s"}
	out := e.ok(append(run, "--html", html)...)
	t.Log("\n" + out)
	for _, want := range []string{"Profile step 1 of 2: 1 VU, trial 1 of 2", "Profile step 2 of 2: 2 VUs, trial 2 of 2",
		"VUs  jobs", "NOPM/VU", "of linear", " ± ", "knee: ", "wrote " + html} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q", want)
		}
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", `id="chart-nopm"`, `id="chart-p95"`, "New-Order p95 against VUs", "<table"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the HTML lacks %q", want)
		}
	}
	if strings.Contains(string(page), "<script") {
		t.Error("the HTML has a script")
	}

	var list []map[string]any
	if err := json.Unmarshal([]byte(e.ok("profile", "list", "--format", "json")), &list); err != nil || len(list) != 1 {
		t.Fatalf("profile list: %v %v", list, err)
	}
	first := list[0]["id"].(string)
	steps := list[0]["steps"].([]any)
	if len(steps) != 2 || steps[0].(map[string]any)["trials"] != 2.0 || steps[1].(map[string]any)["vus"] != 2.0 {
		t.Errorf("profile %s: %v", first, steps)
	}
	member := steps[1].(map[string]any)["jobs"].([]any)[1].(string)
	show := e.ok("profile", "show", member) // any job of the profile shows it
	if !strings.Contains(show, "Profile "+first) {
		t.Errorf("profile show %s:\n%s", member, show)
	}
	// The check is no profile.
	if out, err := e.run("profile", "show", "1"); err == nil || !strings.Contains(out+err.Error(), "not part of a profile") {
		t.Errorf("profile show of the build: %v %s", err, out)
	}

	e.ok(run...)
	list = nil
	if err := json.Unmarshal([]byte(e.ok("profile", "list", "--format", "json")), &list); err != nil || len(list) != 2 {
		t.Fatalf("profile list: %v %v", list, err)
	}
	second := list[0]["id"].(string)
	text := e.ok("profile", "list")
	if !strings.Contains(text, "PROFILE") || !strings.Contains(text, "1,2") {
		t.Errorf("profile list:\n%s", text)
	}

	cmpHTML := filepath.Join(dir, "compare.html")
	cmp := e.ok("compare", first, second, "--html", cmpHTML)
	t.Log("\n" + cmp)
	for _, want := range []string{"Profile " + first + " (A) vs profile " + second + " (B)", "B/A", "of the trials (Welch's t-test at 5%, 2 and 2 trials)"} {
		if !strings.Contains(cmp, want) {
			t.Errorf("compare lacks %q", want)
		}
	}
	// The settings lead (the seeds, drawn for each profile, differ).
	if m := regexp.MustCompile(`(?m)^Settings that differ \(\d+ of \d+\)\n  setting +A +B\n(?:  .*\n)*  seed +\d+ +\d+\n`).FindStringIndex(cmp); m == nil || m[0] > strings.Index(cmp, "B/A") {
		t.Errorf("compare does not lead with the settings that differ:\n%s", cmp)
	}
	page, err = os.ReadFile(cmpHTML)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"A: profile " + first, "B: profile " + second, `id="chart-nopm"`, "#e8590c"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the compare HTML lacks %q", want)
		}
	}
	// Two jobs that are not both profiles: jobs diff.
	diff := e.ok("compare", first, member)
	want := e.ok("jobs", "diff", first, member)
	if diff != want {
		t.Errorf("compare of two jobs differs from jobs diff:\n%s\nwant\n%s", diff, want)
	}
	if _, err := e.run("compare", first, member, "--html", cmpHTML); err == nil {
		t.Error("compare --html of a job that is no profile was accepted")
	}
	for _, bad := range [][]string{{"compare", first, "9999"}, {"compare", first, "x"}, {"compare", first}} {
		if out, err := e.run(bad...); err == nil {
			t.Errorf("%v was accepted: %s", bad, out)
		}
	}
}
