package tproch

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/duckdb"
	"github.com/sledge-bench/sledge/internal/db/mysql"
	"github.com/sledge-bench/sledge/internal/db/postgres"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/testdb"
)

// Integration tests on the three engines: build SF 0.01, run the power test
// (with the refresh functions), and check that the 22 queries return the
// same answers everywhere.

func TestMain(m *testing.M) { testdb.Main(m) }

type engine struct {
	name string
	drv  db.Driver
	tg   func(t *testing.T) db.Target
}

func engines() []engine {
	return []engine{
		{"duckdb", duckdb.Driver{}, func(t *testing.T) db.Target {
			return db.Target{Kind: db.DuckDB, DSN: filepath.Join(t.TempDir(), "h.duckdb")}
		}},
		{"postgres", postgres.Driver{}, func(t *testing.T) db.Target { return parse(t, testdb.Postgres(t)) }},
		{"mariadb", mysql.Driver{}, func(t *testing.T) db.Target { return parse(t, testdb.MariaDB(t)) }},
	}
}

func parse(t *testing.T, url string) db.Target {
	t.Helper()
	tg, err := db.ParseTarget(url)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

const testSF = 0.01

// answers runs every query with the validation parameters and returns its
// rows, normalised so that engines can be compared: numbers rounded to
// cents, text without CHAR padding, dates as YYYY-MM-DD; rows sorted (ties
// in ORDER BY may come in any order).
func answers(t *testing.T, ctx context.Context, c db.Conn, dialect string) [22][]string {
	t.Helper()
	tmpl, err := LoadQueries(dialect)
	if err != nil {
		t.Fatal(err)
	}
	var out [22][]string
	for q := 1; q <= 22; q++ {
		text, err := Substitute(tmpl[q-1], ValidationParams(q))
		if err != nil {
			t.Fatal(err)
		}
		rows, err := c.Query(ctx, text)
		if err != nil {
			t.Fatalf("%s Q%d: %v", dialect, q, err)
		}
		out[q-1], err = ReadAnswer(rows)
		rows.Close()
		if err != nil {
			t.Fatalf("%s Q%d: %v", dialect, q, err)
		}
	}
	return out
}

func TestBuildPowerAndAnswersOnThreeEngines(t *testing.T) {
	if testing.Short() {
		t.Skip("builds SF 0.01 on three engines")
	}
	t.Parallel()
	ctx := context.Background()
	var ref [22][]string
	refName := ""
	for _, e := range engines() {
		t.Run(e.name, func(t *testing.T) {
			tg := e.tg(t)
			rep, err := Build(ctx, e.drv, tg, BuildOptions{SF: testSF, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			g, _ := NewGenerator(testSF)
			for _, tb := range Tables() {
				if tb == TableLineitem {
					continue // an estimate in Rows
				}
				if rep.Tables[tb.String()] != g.Rows(tb) {
					t.Errorf("%s: loaded %d rows, want %d", tb, rep.Tables[tb.String()], g.Rows(tb))
				}
			}
			if _, err := Build(ctx, e.drv, tg, BuildOptions{SF: testSF, Workers: 1}); err == nil {
				t.Error("a second build over the schema was accepted")
			}
			c, err := e.drv.Connect(ctx, tg, db.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close(ctx)
			dl, _ := dialect(e.drv.Kind())
			got := answers(t, ctx, c, dl)
			for q := range got {
				if len(got[q]) == 0 && q+1 != 20 {
					t.Errorf("Q%d returned no rows", q+1)
				}
			}
			if refName == "" {
				ref, refName = got, e.name
			} else {
				for q := range got {
					if strings.Join(got[q], "\n") != strings.Join(ref[q], "\n") {
						t.Errorf("Q%d differs between %s and %s:\n%s: %q\n%s: %q", q+1, refName, e.name,
							refName, head(ref[q]), e.name, head(got[q]))
					}
				}
			}

			// The power test with the refresh functions, twice: the
			// database evolves (update sets 1, then 2), nothing collides.
			for run := 1; run <= 2; run++ {
				res, err := Run(ctx, e.drv, tg, RunOptions{Refresh: true, Seed: 1})
				if err != nil {
					t.Fatalf("run %d: %v", run, err)
				}
				if res.Status != metrics.StatusCompleted || math.IsNaN(res.Power) || math.IsNaN(res.GeomeanS) {
					t.Fatalf("run %d: status %s, power %v, geomean %v, warnings %v", run, res.Status, res.Power, res.GeomeanS, res.Warnings)
				}
				if len(res.Queries) != 22 || len(res.Refreshes) != 2 || res.Refreshes[0].Set != run {
					t.Fatalf("run %d: %d queries, refreshes %+v", run, len(res.Queries), res.Refreshes)
				}
				for _, f := range res.Refreshes {
					if f.Rows == 0 || f.Error != "" {
						t.Errorf("run %d: %s: %d rows, %q", run, f.Function, f.Rows, f.Error)
					}
				}
			}
			var orders int64
			if err := c.QueryRow(ctx, "SELECT count(*) FROM orders").Scan(&orders); err != nil || orders != g.Rows(TableOrders) {
				t.Errorf("after two refresh pairs: %d orders (%v), want %d: RF1 and RF2 must balance", orders, err, g.Rows(TableOrders))
			}
			if err := Drop(ctx, c, e.drv.Kind()); err != nil {
				t.Fatal(err)
			}
			if ok, err := SchemaExists(ctx, c, e.drv.Kind()); err != nil || ok {
				t.Errorf("after drop: exists %v, %v", ok, err)
			}
		})
	}
}

func head(rows []string) []string {
	if len(rows) > 5 {
		return rows[:5]
	}
	return rows
}

func TestThroughputTestOnDuckDB(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tg := db.Target{Kind: db.DuckDB, DSN: filepath.Join(t.TempDir(), "h.duckdb")}
	if _, err := Build(ctx, duckdb.Driver{}, tg, BuildOptions{SF: testSF, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	// Each stream reports each query as it starts, then as it ends, before
	// its next query starts.
	var mu sync.Mutex
	events := map[int][]string{}
	event := func(what string) func(metrics.AnalyticQuery) {
		return func(q metrics.AnalyticQuery) {
			mu.Lock()
			defer mu.Unlock()
			events[q.Stream] = append(events[q.Stream], fmt.Sprintf("%s %d@%d", what, q.Query, q.Position))
		}
	}
	res, err := Run(ctx, duckdb.Driver{}, tg, RunOptions{Streams: 2, Refresh: true, Seed: 7, Query: event("end"), QueryStart: event("start")})
	if err != nil {
		t.Fatal(err)
	}
	for stream := range 3 {
		var want []string
		for pos, q := range StreamOrder(stream) {
			want = append(want, fmt.Sprintf("start %d@%d", q, pos+1), fmt.Sprintf("end %d@%d", q, pos+1))
		}
		if !slices.Equal(events[stream], want) {
			t.Errorf("stream %d reported %v, want %v", stream, events[stream], want)
		}
	}
	perStream := map[int]int{}
	for _, q := range res.Queries {
		perStream[q.Stream]++
		if q.Error != "" {
			t.Errorf("stream %d Q%d: %s", q.Stream, q.Query, q.Error)
		}
	}
	if perStream[0] != 22 || perStream[1] != 22 || perStream[2] != 22 {
		t.Errorf("queries per stream %v", perStream)
	}
	// Power test: RF1 and RF2 of set 1; refresh stream: two pairs, sets 2 and 3.
	var sets []string
	for _, f := range res.Refreshes {
		sets = append(sets, fmt.Sprintf("%d:%s%d", f.Stream, f.Function, f.Set))
	}
	if got := strings.Join(sets, " "); got != "0:RF11 0:RF21 3:RF12 3:RF22 3:RF13 3:RF23" {
		t.Errorf("refresh functions %s", got)
	}
	if math.IsNaN(res.Power) || math.IsNaN(res.Throughput) || math.IsNaN(res.Composite) || res.TsS <= 0 {
		t.Errorf("metrics: power %v throughput %v composite %v Ts %v", res.Power, res.Throughput, res.Composite, res.TsS)
	}
	if want := math.Round(math.Sqrt(res.Power*res.Throughput)*10) / 10; res.Composite != want {
		t.Errorf("composite %v, want √(power × throughput) = %v", res.Composite, want)
	}
}

func TestComputeMetrics(t *testing.T) {
	t.Parallel()
	res := &metrics.AnalyticResult{SF: 10, Streams: 3, QuerySets: 1, ThroughputSeconds: 999.991}
	for q := 1; q <= 22; q++ {
		res.Queries = append(res.Queries, metrics.AnalyticQuery{Stream: 0, Query: q, Seconds: 10})
	}
	res.Refreshes = []metrics.AnalyticRefresh{{Stream: 0, Function: "RF1", Seconds: 10, Rows: 10}, {Stream: 0, Function: "RF2", Seconds: 10, Rows: 10}}
	computeMetrics(res)
	// The reference sheet's worked example: SF 10, all intervals 10 s → power
	// 3,600.0; 3 streams in Ts = 1,000 s → throughput 2,376.0; composite 2,924.7.
	if res.Power != 3600 || res.TsS != 1000 || res.Throughput != 2376 || res.Composite != 2924.7 || math.Abs(res.GeomeanS-10) > 1e-9 {
		t.Errorf("power %v, Ts %v, throughput %v, composite %v, geomean %v", res.Power, res.TsS, res.Throughput, res.Composite, res.GeomeanS)
	}
	// Clamp: with one query 2,000× slower, the fast ones count as max/1000.
	res = &metrics.AnalyticResult{SF: 1}
	for q := 1; q <= 22; q++ {
		s := 0.01
		if q == 1 {
			s = 20
		}
		res.Queries = append(res.Queries, metrics.AnalyticQuery{Stream: 0, Query: q, Seconds: s})
	}
	res.Refreshes = []metrics.AnalyticRefresh{{Stream: 0, Function: "RF1", Seconds: 1, Rows: 10}, {Stream: 0, Function: "RF2", Seconds: 1, Rows: 10}}
	computeMetrics(res)
	want := math.Round(3600/math.Exp((math.Log(20)+21*math.Log(0.02))/24)*10) / 10
	if res.Power != want {
		t.Errorf("clamped power %v, want %v", res.Power, want)
	}
	// A failed query: no metrics, and a warning.
	res.Queries[3].Error = "boom"
	computeMetrics(res)
	if !math.IsNaN(res.Power) || !math.IsNaN(res.GeomeanS) || len(res.Warnings) == 0 {
		t.Errorf("failed query: power %v geomean %v warnings %v", res.Power, res.GeomeanS, res.Warnings)
	}
	if RoundInterval(0.004) != 0.01 || RoundInterval(1.234) != 1.23 || RoundInterval(1.235) != 1.24 {
		t.Error("interval rounding")
	}
}

// TestValidationSF1DuckDB builds SF 1 and runs the power test with the
// validation parameters: every answer must match the stored answer set.
// The build's rows are also dbgen's exactly (counts, Q1's counts and Q6's
// revenue, to the cent): the generator's SF 1 figures, checked on the one
// SF 1 generation of the package rather than on one of their own.
func TestValidationSF1DuckDB(t *testing.T) {
	if testing.Short() {
		t.Skip("builds SF 1")
	}
	t.Parallel()
	ctx := context.Background()
	tg := db.Target{Kind: db.DuckDB, DSN: filepath.Join(t.TempDir(), "sf1.duckdb")}
	rep, err := Build(ctx, duckdb.Driver{}, tg, BuildOptions{SF: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Tables["lineitem"] != 6001215 || rep.Rows != 8661245 {
		t.Errorf("SF 1: %d lineitem rows, %d in all; want 6,001,215 and 8,661,245", rep.Tables["lineitem"], rep.Rows)
	}
	// dbgen's orders and customers, and its lineitem count, which the
	// generator also computes without generating the rows.
	if rep.Tables["orders"] != 1500000 || rep.Tables["customer"] != 150000 {
		t.Errorf("SF 1: %d orders, %d customers; want 1,500,000 and 150,000", rep.Tables["orders"], rep.Tables["customer"])
	}
	if n := mustGen(t, 1).ExactLineitemRows(); n != 6001215 {
		t.Errorf("ExactLineitemRows = %d, want 6001215", n)
	}
	c, err := duckdb.Driver{}.Connect(ctx, tg, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The generated lines give the published SF 1 answers exactly, not
	// within the validation's tolerances (a sum as large as Q6's within
	// 100): Q1's counts and Q6's revenue (123141078.23, rounded), from the
	// exact decimals (in 1/10000) of the loaded rows.
	q1 := map[string]int64{}
	rows, err := c.Query(ctx, "SELECT l_returnflag || l_linestatus, count(*) FROM lineitem WHERE l_shipdate <= DATE '1998-09-02' GROUP BY 1")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k string
		var n int64
		if err := rows.Scan(&k, &n); err != nil {
			t.Fatal(err)
		}
		q1[k] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if want := map[string]int64{"AF": 1478493, "NF": 38854, "NO": 2920374, "RF": 1478870}; fmt.Sprint(q1) != fmt.Sprint(want) {
		t.Errorf("Q1 counts %v, want %v", q1, want)
	}
	var q6 int64
	if err := c.QueryRow(ctx, `SELECT CAST(sum(l_extendedprice * l_discount) * 10000 AS BIGINT) FROM lineitem
		WHERE l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01' AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24`).Scan(&q6); err != nil {
		t.Fatal(err)
	} else if (q6+50)/100 != 12314107823 {
		t.Errorf("Q6 revenue = %d/10000, want 123141078.23", q6)
	}
	// The check compares its sample of answers at SF 1, and they match.
	chk, err := Check(ctx, c, db.DuckDB)
	c.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, cond := range chk.Conditions {
		if cond.Name == "answers" && (!cond.Passed || cond.Skipped) || !cond.Skipped && !cond.Passed {
			t.Errorf("check at SF 1: %+v", cond)
		}
	}
	res, err := Run(ctx, duckdb.Driver{}, tg, RunOptions{Validate: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range res.Queries {
		if q.Check != "ok" {
			t.Errorf("Q%d: %s", q.Query, q.Check)
		}
	}
	if res.Validated != "passed" {
		t.Errorf("validation %q", res.Validated)
	}
	t.Logf("SF 1 on DuckDB: built in %s, power-test geometric mean %.3f s", rep.Duration, res.GeomeanS)
}

func TestMinStreams(t *testing.T) {
	t.Parallel()
	for sf, want := range map[float64]int{0.01: 2, 1: 2, 10: 3, 30: 4, 100: 5, 300: 6, 1000: 7, 3000: 8, 10000: 9, 30000: 10, 100000: 11} {
		if got := MinStreams(sf); got != want {
			t.Errorf("MinStreams(%g) = %d, want %d", sf, got, want)
		}
	}
}

// TestComputeMetricsIdleRefresh: a refresh function that changed no rows
// (the update sets are empty below MinRefreshSF) leaves out the power and
// composite figures, and a warning says why; the throughput figure does not
// use the refresh times and stays.
func TestComputeMetricsIdleRefresh(t *testing.T) {
	t.Parallel()
	// MinRefreshSF is where the update sets stop being empty.
	for _, sf := range []float64{MinRefreshSF - 0.001, MinRefreshSF} {
		if n := mustGen(t, sf).RefreshRows(); (n > 0) != (sf >= MinRefreshSF) {
			t.Errorf("SF %g: %d orders per update set, MinRefreshSF %g", sf, n, MinRefreshSF)
		}
	}
	for _, tc := range []struct {
		name          string
		sf            float64
		power, stream int64 // rows of the power test's and the refresh stream's refresh functions
		wantPower     bool
		want          []string // in the warnings, in order
	}{
		{"rows", 0.01, 10, 10, true, nil},
		{"empty update sets", 0.001, 0, 0, false, []string{
			"RF1 and RF2 changed no rows (at scale factor 0.001 the update sets are empty: the refresh functions act from scale factor 0.007): no power or composite metric",
			"the throughput test's refresh stream: RF1 and RF2 changed no rows (at scale factor 0.001"}},
		{"just below", 0.006, 0, 0, false, []string{"at scale factor 0.006 the update sets are empty"}},
		{"nothing left to delete", 1, 10, 0, true, []string{"the throughput test's refresh stream: RF1 and RF2 changed no rows"}},
		{"power RF2 idle", 1, 0, 10, false, []string{"RF1 and RF2 changed no rows: no power or composite metric"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := &metrics.AnalyticResult{SF: tc.sf, Streams: 2, QuerySets: 1, ThroughputSeconds: 100, Refresh: true}
			for q := 1; q <= 22; q++ {
				res.Queries = append(res.Queries, metrics.AnalyticQuery{Stream: 0, Query: q, Seconds: 1})
			}
			for s := 1; s <= 2; s++ {
				for q := 1; q <= 22; q++ {
					res.Queries = append(res.Queries, metrics.AnalyticQuery{Stream: s, Query: q, Seconds: 1})
				}
			}
			for _, f := range []string{"RF1", "RF2"} {
				res.Refreshes = append(res.Refreshes, metrics.AnalyticRefresh{Stream: 0, Set: 1, Function: f, Seconds: 0.001, Rows: tc.power})
			}
			for set := 2; set <= 3; set++ {
				for _, f := range []string{"RF1", "RF2"} {
					res.Refreshes = append(res.Refreshes, metrics.AnalyticRefresh{Stream: 3, Set: set, Function: f, Seconds: 0.001, Rows: tc.stream})
				}
			}
			computeMetrics(res)
			if math.IsNaN(res.Power) == tc.wantPower || math.IsNaN(res.Composite) == tc.wantPower {
				t.Errorf("power %v, composite %v; want figures: %v", res.Power, res.Composite, tc.wantPower)
			}
			if math.IsNaN(res.Throughput) || math.IsNaN(res.GeomeanS) {
				t.Errorf("throughput %v, geomean %v: they do not use the refresh functions", res.Throughput, res.GeomeanS)
			}
			got := strings.Join(res.Warnings, "\n")
			if len(tc.want) == 0 && got != "" {
				t.Errorf("warnings %q, want none", got)
			}
			rest := got
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("warnings %q lack %q", got, w)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}
