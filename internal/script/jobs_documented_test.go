package script_test

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/script"
)

// HammerDB's documented jobs answers (../shared/reference/hammerdb-jobs.md,
// HammerDB's CLI documentation), transcribed by hand: the golden files
// above are Sledge's own output, so this test holds them to the published
// examples — the same keys in the same order, every value a string, the
// same sentences — whatever the fixture's numbers.
var documented = struct {
	timingFields []string // HammerDB's summary row, in order (p75/p25 are Sledge's additions in between)
	transactions []string
	result       []*regexp.Regexp
	tcountLabel  *regexp.Regexp
	statusEnd    string
}{
	timingFields: []string{"elapsed_ms", "calls", "min_ms", "avg_ms", "max_ms", "total_ms", "p99_ms", "p95_ms", "p50_ms", "sd", "ratio_pct"},
	transactions: []string{"NEWORD", "PAYMENT", "DELIVERY", "OSTAT", "SLEV"},
	result: []*regexp.Regexp{
		regexp.MustCompile(`^\S+$`), // the job id
		regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$`),
		regexp.MustCompile(`^\d+ Active Virtual Users configured$`),
		regexp.MustCompile(`^TEST RESULT : System achieved \d+ NOPM from \d+ (PostgreSQL|MariaDB|MySQL) TPM$`),
	},
	tcountLabel: regexp.MustCompile(`^(PostgreSQL|MariaDB|MySQL) tpm$`),
	statusEnd:   "ALL VIRTUAL USERS COMPLETE",
}

func TestJobsMatchDocumentedExamples(t *testing.T) {
	t.Parallel()
	g := newGolden(t)
	run := strconv.FormatInt(g.f.Run, 10)
	answer := func(args ...string) string {
		return g.jobs(t, g.repo, script.FormatJSON, append([]string{run}, args...)...).Printed
	}

	// timing: {"NEWORD": {"elapsed_ms": "…", …}, …}, all strings.
	var timing map[string]map[string]any
	raw := answer("timing")
	if err := json.Unmarshal([]byte(raw), &timing); err != nil {
		t.Fatalf("timing: %v\n%s", err, raw)
	}
	for _, tx := range documented.transactions {
		row, ok := timing[tx]
		if !ok {
			t.Errorf("timing has no %s: %s", tx, raw)
			continue
		}
		for k, v := range row {
			if _, isString := v.(string); !isString {
				t.Errorf("timing %s %s = %v: not a string", tx, k, v)
			}
		}
	}
	// The documented fields appear in the documented order in each row.
	for _, block := range strings.Split(raw, "},") {
		last := -1
		for _, f := range documented.timingFields {
			i := strings.Index(block, `"`+f+`": "`)
			if i < 0 || i < last {
				t.Errorf("timing field %s missing or out of HammerDB's order:\n%s", f, block)
			}
			last = i
		}
	}

	// result: [id, timestamp, "N Active Virtual Users configured", "TEST RESULT : …"].
	var result []any
	if err := json.Unmarshal([]byte(answer("result")), &result); err != nil {
		t.Fatal(err)
	}
	if len(result) != len(documented.result) {
		t.Fatalf("result: %v", result)
	}
	for i, re := range documented.result {
		if s, ok := result[i].(string); !ok || !re.MatchString(s) {
			t.Errorf("result[%d] = %v, want %s", i, result[i], re)
		}
	}

	// tcount: {"<db> tpm": {"0": "<time>", "<tpm>": "<time>", …}}.
	var tcount map[string]map[string]any
	if err := json.Unmarshal([]byte(answer("tcount")), &tcount); err != nil {
		t.Fatal(err)
	}
	if len(tcount) != 1 {
		t.Fatalf("tcount: %v", tcount)
	}
	for label, samples := range tcount {
		if !documented.tcountLabel.MatchString(label) {
			t.Errorf("tcount label %q", label)
		}
		if _, ok := samples["0"]; !ok {
			t.Errorf("tcount: no \"0\" sample at the start: %v", samples)
		}
		for tpm, at := range samples {
			s, _ := at.(string)
			if _, err := strconv.Atoi(tpm); err != nil || !documented.result[1].MatchString(s) {
				t.Errorf("tcount sample %q: %v (want TPM → time)", tpm, at)
			}
		}
	}

	// status: flat pairs of strings, VU 0's lines, ending with HammerDB's.
	var status []any
	if err := json.Unmarshal([]byte(answer("status")), &status); err != nil {
		t.Fatal(err)
	}
	if len(status)%2 != 0 || status[len(status)-1] != documented.statusEnd {
		t.Errorf("status: %v", status)
	}
	for i := 0; i < len(status); i += 2 {
		if status[i] != "0" {
			t.Errorf("status pair %d names VU %v, want \"0\"", i/2, status[i])
		}
	}

	// db and bm: one-item lists of the name; timestamp: {"ID": "time"}.
	for what, re := range map[string]*regexp.Regexp{"db": regexp.MustCompile(`^\["(PostgreSQL|MariaDB|MySQL)"\]\n$`),
		"bm": regexp.MustCompile(`^\["TPROC-C"\]\n$`), "timestamp": regexp.MustCompile(`^\{"` + run + `": "\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"\}\n$`)} {
		if got := answer(what); !re.MatchString(got) {
			t.Errorf("%s: %q, want %s", what, got, re)
		}
	}

	// dict: {"connection": {…}, "tpcc": {…}}, every value a string.
	var dict map[string]map[string]any
	if err := json.Unmarshal([]byte(answer("dict")), &dict); err != nil {
		t.Fatal(err)
	}
	if len(dict["connection"]) == 0 || len(dict["tpcc"]) == 0 {
		t.Errorf("dict: %v", dict)
	}
}
