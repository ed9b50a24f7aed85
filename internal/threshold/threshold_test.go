package threshold

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/metrics/metricstest"
)

func TestParse(t *testing.T) {
	t.Parallel()
	good := []struct {
		in   string
		want Threshold
	}{
		{"nopm>=40000", Threshold{Metric: "nopm", Op: ">=", Limit: 40000}},
		{" p99(new_order) < 50ms ", Threshold{Metric: "p99", Name: "new_order", Op: "<", Limit: 50, Unit: "ms"}},
		{"errors<1%", Threshold{Metric: "errors", Op: "<", Limit: 1, Unit: "%"}},
		{"errors(deadlock)==0", Threshold{Metric: "errors", Name: "deadlock", Op: "==", Limit: 0}},
		{"P999<=2.5s", Threshold{Metric: "p999", Op: "<=", Limit: 2.5, Unit: "s"}},
		{"mean(payment)<800us", Threshold{Metric: "mean", Name: "payment", Op: "<", Limit: 800, Unit: "us"}},
		{"max<900µs", Threshold{Metric: "max", Op: "<", Limit: 900, Unit: "us"}},
		{"tps>10.5", Threshold{Metric: "tps", Op: ">", Limit: 10.5}},
		{"geomean<3s", Threshold{Metric: "geomean", Op: "<", Limit: 3, Unit: "s"}},
		{"throughput_time<=90000ms", Threshold{Metric: "throughput_time", Op: "<=", Limit: 90000, Unit: "ms"}},
	}
	for _, c := range good {
		got, err := Parse(c.in)
		c.want.Text = strings.TrimSpace(c.in)
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	bad := []struct{ in, want string }{
		{"", "empty threshold"},
		{"nopm 40000", "has no comparison"},
		{"nopm=>40000", `"=" is not a comparison`},
		{"nopm!=1", `"=" is not a comparison`},
		{"latency<5ms", `unknown metric "latency": want one of nopm, tpm`},
		{"<5", "names no metric"},
		{"p99(new_order<5ms", "no closing parenthesis"},
		{"p99()<5ms", "empty parentheses"},
		{"nopm(new_order)>1", "nopm takes no name"},
		{"nopm>=", "has no value"},
		{"nopm>=lots", "has no value"},
		{"nopm>=1.2.3", `"1.2.3" is not a number`},
		{"nopm>=40000ms", "plain number, without a unit"},
		{"p99<50", "a latency needs a unit"},
		{"p99<50min", "a latency needs a unit"},
		{"geomean<3", "a time needs a unit"},
		{"errors<1s", "errors are a count"},
		{"tpm>-5", "must not be negative"},
	}
	for _, c := range bad {
		_, err := Parse(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q): error %v, want one containing %q", c.in, err, c.want)
		}
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	oltp := Scope{Title: "TPROC-C", TxNames: []string{"new_order", "payment"}}
	analytic := Scope{Title: "TPROC-H", Analytic: true}
	cases := []struct {
		in    string
		scope Scope
		want  string // "" for none
	}{
		{"p99(payment)<5ms", oltp, ""},
		{"errors(payment)<1%", oltp, ""},
		{"errors(serialization)<1%", oltp, ""},
		{"p99(neworder)<5ms", oltp, `"neworder" is not a TPROC-C transaction type: want new_order, payment`},
		{"errors(oops)<1", oltp, `neither a TPROC-C transaction type (new_order, payment) nor an error class (serialization, deadlock`},
		{"geomean<1s", oltp, "geomean is not measured by TPROC-C runs: want one of nopm, tpm, tps, p50"},
		{"nopm>1", analytic, "nopm is not measured by TPROC-H runs: want one of errors, geomean, power_time"},
		{"errors(deadlock)<1", analytic, "takes no name"},
		{"composite>100", analytic, ""},
	}
	for _, c := range cases {
		th, err := Parse(c.in)
		if err != nil {
			t.Fatal(err)
		}
		errs := Check([]Threshold{th}, c.scope)
		switch {
		case c.want == "" && len(errs) > 0:
			t.Errorf("Check(%q) = %v, want none", c.in, errs)
		case c.want != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error(), c.want)):
			t.Errorf("Check(%q) = %v, want one containing %q", c.in, errs, c.want)
		}
	}
}

func TestJudgeRun(t *testing.T) {
	t.Parallel()
	// new_order: 100 transactions of 1..100 ms; payment: 100 of 200 ms.
	no := make([]int64, 100)
	for i := range no {
		no[i] = int64(i+1) * 1000
	}
	pay := make([]int64, 100)
	for i := range pay {
		pay[i] = 200_000
	}
	res := &metrics.RunResult{Measured: time.Minute, NOPM: 41000, TPM: 90000, Errors: 4,
		Tx: []metrics.TxSummary{
			{Name: "new_order", Count: 95, RolledBack: 1, Errors: map[string]int64{"deadlock": 3, "serialization": 1}, Histogram: metricstest.Histogram(t, no...)},
			{Name: "payment", Count: 100, Errors: map[string]int64{}, Histogram: metricstest.Histogram(t, pay...)},
			{Name: "delivery", Count: 0, Errors: map[string]int64{}},
		}}
	cases := []struct {
		in    string
		pass  bool
		value float64 // NaN: no value
	}{
		{"nopm>=40000", true, 41000},
		{"nopm>=42000", false, 41000},
		{"tpm==90000", true, 90000},
		{"tps>1500", false, 1500},
		{"p99(new_order)<50ms", false, 99},
		{"p50(new_order)<=51ms", true, 50},
		{"p90(new_order)<=0.091s", true, 0.09},
		{"max(new_order)<101000us", true, 100000},
		{"mean(payment)>=200ms", true, 200},
		{"p50<100ms", false, 100}, // all types: 1..100 and 100×200 → median 100
		{"p999>150ms", true, 200},
		{"errors<5", true, 4},
		{"errors<1%", false, 2},                 // 4 of 200 attempted
		{"errors(deadlock)<=3", true, 3},        // a class
		{"errors(new_order)<=4%", true, 4},      // 4 of 100 new_order
		{"errors(payment)==0%", true, 0},        // none
		{"p99(delivery)<1s", false, math.NaN()}, // none completed
	}
	for _, c := range cases {
		th, err := Parse(c.in)
		if err != nil {
			t.Fatal(err)
		}
		v := JudgeRun([]Threshold{th}, res)[0]
		switch {
		case math.IsNaN(c.value) && (v.HasValue || v.Note == "" || v.Pass):
			t.Errorf("%s: %+v, want no value, a note and a failure", c.in, v)
		case !math.IsNaN(c.value) && (!v.HasValue || math.Abs(v.Value-c.value) > c.value*0.002 || v.Pass != c.pass):
			t.Errorf("%s: value %g (has %v), pass %v; want %g, %v", c.in, v.Value, v.HasValue, v.Pass, c.value, c.pass)
		}
	}
	vs := JudgeRun([]Threshold{mustParse(t, "nopm>1")}, &metrics.RunResult{})
	if vs[0].Pass || vs[0].Note != "nothing was measured" {
		t.Errorf("a run that measured nothing: %+v", vs[0])
	}
}

func TestJudgeAnalytic(t *testing.T) {
	t.Parallel()
	res := &metrics.AnalyticResult{GeomeanS: 1.5, PowerSeconds: 40, Power: 2000, Throughput: math.NaN(), Composite: math.NaN(),
		Queries: []metrics.AnalyticQuery{{Query: 1}, {Query: 2, Error: "boom"}, {Query: 3}, {Query: 4}}}
	cases := []struct {
		in    string
		pass  bool
		value float64
	}{
		{"geomean<2s", true, 1.5},
		{"geomean<1000ms", false, 1500},
		{"power_time<=40s", true, 40},
		{"power>=2500", false, 2000},
		{"errors==0", false, 1},
		{"errors<=25%", true, 25},
		{"throughput>1", false, math.NaN()},
		{"composite>1", false, math.NaN()},
	}
	for _, c := range cases {
		v := JudgeAnalytic([]Threshold{mustParse(t, c.in)}, res)[0]
		switch {
		case math.IsNaN(c.value) && (v.HasValue || v.Note == "" || v.Pass):
			t.Errorf("%s: %+v, want no value, a note and a failure", c.in, v)
		case !math.IsNaN(c.value) && (!v.HasValue || v.Value != c.value || v.Pass != c.pass):
			t.Errorf("%s: value %g (has %v), pass %v; want %g, %v", c.in, v.Value, v.HasValue, v.Pass, c.value, c.pass)
		}
	}
}

func mustParse(t *testing.T, s string) Threshold {
	t.Helper()
	th, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return th
}

func TestParseRelative(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in     string
		metric string
		name   string
		op     string
		pct    float64
		unit   string
	}{
		{"nopm<-3%", "nopm", "", "<", -3, ""},
		{" p95(new_order) > +10% ", "p95", "new_order", ">", 10, "ms"},
		{"TPM<=-0.5 %", "tpm", "", "<=", -0.5, ""},
		{"errors(deadlock)>=50%", "errors", "deadlock", ">=", 50, ""},
		{"geomean>5%", "geomean", "", ">", 5, "s"},
	} {
		r, err := ParseRelative(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if r.Metric != c.metric || r.Name != c.name || r.Op != c.op || r.Percent != c.pct || r.Unit() != c.unit {
			t.Errorf("%q: got %+v (unit %q)", c.in, r, r.Unit())
		}
	}
	for _, c := range []struct{ in, want string }{
		{"", "empty bound"},
		{"nopm", "no comparison"},
		{"nopm==3%", "not =="},
		{"nopm<-3", "in percent of A"},
		{"nopm<3ms", "in percent of A"},
		{"nopm<x%", "not a number"},
		{"nopm<-100%", "not possible"},
		{"bogus<-3%", "unknown metric"},
		{"nopm(new_order)<-3%", "takes no name"},
		{"p95(new_order<+10%", "no closing parenthesis"},
	} {
		_, err := ParseRelative(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one saying %q", c.in, err, c.want)
		}
	}
}

func TestRelativeExceeded(t *testing.T) {
	t.Parallel()
	drop, _ := ParseRelative("nopm<-3%")
	rise, _ := ParseRelative("p95>=+10%")
	for _, c := range []struct {
		r      Relative
		change float64
		want   bool
	}{
		{drop, -5, true}, {drop, -3, false}, {drop, 2, false},
		{rise, 10, true}, {rise, 9.9, false}, {rise, -20, false},
	} {
		if got := c.r.Exceeded(c.change); got != c.want {
			t.Errorf("%s at %+v%%: %v, want %v", c.r.Text, c.change, got, c.want)
		}
	}
}
