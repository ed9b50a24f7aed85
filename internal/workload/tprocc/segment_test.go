package tprocc

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/sqlite"
	"github.com/sledge-bench/sledge/internal/engine"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/workload"
)

func parts(t *testing.T, n int) []config.Segment {
	t.Helper()
	segs := make([]config.Segment, n)
	for i := range segs {
		var err error
		if segs[i], err = config.ParseSegment(fmt.Sprintf("%d/%d", i, n)); err != nil {
			t.Fatal(err)
		}
	}
	return segs
}

// TestSegmentPlacement: the segments of a run home every VU of the run
// exactly once, each on its own warehouses (while it has any), spread there
// as the whole run spreads its VUs over all; the whole run is homed as
// before segments existed.
func TestSegmentPlacement(t *testing.T) {
	for _, w := range []int{1, 2, 3, 4, 5, 7, 10} {
		for _, vus := range []int{1, 3, 4, 9, 10, 20, 37, 10 * w} {
			// The whole run: home vu%W+1, Stock-Level district (vu/W)%10+1.
			for _, whole := range []config.Segment{config.Whole(), mustSegment(t, "0/1"), mustSegment(t, "0:1")} {
				p := newPlacement(whole, vus, w)
				for vu := range vus {
					if h, d := p.home(vu); h != vu%w+1 || d != (vu/w)%10+1 {
						t.Fatalf("whole run, W=%d: VU %d homed at (%d, %d), want (%d, %d)", w, vu, h, d, vu%w+1, (vu/w)%10+1)
					}
				}
			}
			for n := 1; n <= 5; n++ {
				type pair struct{ w, d int }
				owner := make([]int, vus) // segment+1 of each VU
				pairs := map[pair]int{}
				for i, seg := range parts(t, n) {
					first, count := seg.Share(vus)
					p := newPlacement(seg, vus, w)
					wFirst, wCount := seg.Share(w)
					if wCount > 0 && (!p.own || p.wFirst != wFirst || p.wCount != wCount) {
						t.Fatalf("W=%d %s: placement %+v, want warehouses %d+%d", w, seg, p, wFirst, wCount)
					}
					if wCount == 0 && (p.own || p.wFirst != 0 || p.wCount != w) {
						t.Fatalf("W=%d %s: placement %+v, want all warehouses (none of its own)", w, seg, p)
					}
					for local := range count {
						vu := first + local
						if owner[vu] != 0 {
							t.Fatalf("W=%d VUs=%d n=%d: VU %d run by segments %d and %d", w, vus, n, vu, owner[vu]-1, i)
						}
						owner[vu] = i + 1
						h, d := p.home(vu)
						if d < 1 || d > 10 {
							t.Fatalf("district %d", d)
						}
						if wCount > 0 {
							if h <= wFirst || h > wFirst+wCount {
								t.Fatalf("W=%d VUs=%d %s: VU %d homed at %d, outside its warehouses %d..%d", w, vus, seg, vu, h, wFirst+1, wFirst+wCount)
							}
							// Spread within the range by the local index.
							if h != wFirst+local%wCount+1 || d != (local/wCount)%10+1 {
								t.Fatalf("W=%d %s: VU %d (local %d) at (%d, %d)", w, seg, vu, local, h, d)
							}
						} else if h != vu%w+1 || d != (vu/w)%10+1 {
							t.Fatalf("W=%d %s without warehouses: VU %d at (%d, %d), want the whole run's rule", w, seg, vu, h, d)
						}
						pairs[pair{h, d}]++
					}
				}
				for vu, o := range owner {
					if o == 0 {
						t.Fatalf("W=%d VUs=%d n=%d: VU %d run by no segment", w, vus, n, vu)
					}
				}
				// Ten VUs per warehouse over segments that split the
				// warehouses evenly: every (warehouse, district) pair has
				// exactly one terminal, as in a whole run.
				if vus == 10*w && w%n == 0 {
					if len(pairs) != 10*w {
						t.Errorf("W=%d n=%d: %d (warehouse, district) pairs of %d", w, n, len(pairs), 10*w)
					}
					for pr, c := range pairs {
						if c != 1 {
							t.Errorf("W=%d n=%d: pair %v has %d terminals", w, n, pr, c)
						}
					}
				}
			}
		}
	}
}

func mustSegment(t *testing.T, s string) config.Segment {
	t.Helper()
	seg, err := config.ParseSegment(s)
	if err != nil {
		t.Fatal(err)
	}
	return seg
}

// TestSegmentBuildPartsFor: the processes' loads partition the warehouses
// and exactly one loads ITEM.
func TestSegmentBuildPartsFor(t *testing.T) {
	for w := 1; w <= 12; w++ {
		for n := 1; n <= 6; n++ {
			next, items := 1, 0
			for _, seg := range parts(t, n) {
				first, count := BuildPartsFor(seg, w)
				if first != next || count < 0 {
					t.Fatalf("W=%d %s: loads %d+%d, want from %d", w, seg, first, count, next)
				}
				o := BuildOptions{Warehouses: w, Workers: 4, Part: PartLoad, LoadFirst: first, LoadCount: count}
				if err := o.validate(); err != nil {
					t.Fatalf("W=%d %s: %v", w, seg, err)
				}
				if _, _, item := o.loadRange(); item {
					items++
				}
				if o.Workers < 1 || o.Workers > max(count, 1) {
					t.Errorf("W=%d %s: %d workers for %d warehouses", w, seg, o.Workers, count)
				}
				next = first + count
			}
			if next != w+1 || items != 1 {
				t.Fatalf("W=%d n=%d: loads end before %d, %d load ITEM", w, n, next, items)
			}
		}
	}
	if f, c := BuildPartsFor(config.Whole(), 5); f != 1 || c != 5 {
		t.Errorf("whole: %d+%d", f, c)
	}
	for _, o := range []BuildOptions{
		{Warehouses: 3, Workers: 1, Part: PartLoad, LoadFirst: 0, LoadCount: 1},
		{Warehouses: 3, Workers: 1, Part: PartLoad, LoadFirst: 3, LoadCount: 2},
		{Warehouses: 3, Workers: 1, Part: PartLoad, LoadFirst: 1, LoadCount: -1},
		{Warehouses: 3, Workers: 1, Part: "index"},
	} {
		if err := o.validate(); err == nil {
			t.Errorf("%+v validates", o)
		}
	}
}

// tableSums are aggregates of the generated data that do not depend on
// the load's timestamps.
var tableSums = []string{
	"SELECT count(*) FROM item", "SELECT sum(i_price) FROM item",
	"SELECT sum(s_quantity) FROM stock", "SELECT sum(c_balance) + sum(c_ytd_payment) FROM customer",
	"SELECT sum(ol_amount) FROM order_line", "SELECT sum(o_ol_cnt) FROM orders",
	"SELECT sum(d_next_o_id) FROM district", "SELECT sum(w_ytd) FROM warehouse",
	"SELECT count(*) FROM new_order", "SELECT sum(h_amount) FROM history",
}

func sums(t *testing.T, c db.Conn) []string {
	t.Helper()
	out := make([]string, len(tableSums))
	for i, q := range tableSums {
		var v float64
		if err := c.QueryRow(context.Background(), q).Scan(&v); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		out[i] = fmt.Sprintf("%.2f", v)
	}
	return out
}

// TestSegmentBuildParts: schema, the loads of two processes' segments and
// finish build the same database as a whole build: the same rows (counts
// and content) and every consistency condition passes.
func TestSegmentBuildParts(t *testing.T) {
	if testing.Short() {
		t.Skip("loads warehouses twice")
	}
	t.Parallel()
	ctx := context.Background()
	drv := sqlite.Driver{}
	const w, seed = 2, 5 // two parts of one warehouse each

	whole := built(t, db.SQLite, w, seed) // as a whole build leaves it (shared with TestSegmentRunSQLite)
	wc := connect(t, drv, whole)
	want, err := Check(ctx, wc, db.SQLite, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	requireAllPass(t, want)

	split := sqliteTarget(t)
	base := BuildOptions{Warehouses: w, Workers: 2, Seed: seed}
	step := func(o BuildOptions) BuildReport {
		t.Helper()
		rep, err := Build(ctx, drv, split, o)
		if err != nil {
			t.Fatalf("part %q %d+%d: %v", o.Part, o.LoadFirst, o.LoadCount, err)
		}
		return rep
	}
	o := base
	o.Part = PartSchema
	if rep := step(o); rep.Rows != 0 {
		t.Errorf("the schema part loaded %d rows", rep.Rows)
	}
	// Before the loads, the finish part finds an unfinished build (it does
	// not know whether the loads are done: that is the coordinator's).
	sc := connect(t, drv, split)
	if _, err := ReadMeta(ctx, sc); err == nil {
		t.Error("the schema part's database reads as built")
	}
	loaded := map[string]int64{}
	for _, seg := range parts(t, 2) {
		o := base
		o.Part = PartLoad
		o.LoadFirst, o.LoadCount = BuildPartsFor(seg, w)
		rep := step(o)
		for k, n := range rep.Tables {
			loaded[k] += n
		}
		if n := rep.Tables["item"]; (o.LoadFirst == 1) != (n > 0) {
			t.Errorf("segment %s (warehouses %d+%d) loaded %d items", seg, o.LoadFirst, o.LoadCount, n)
		}
	}
	checkReportCounts(t, BuildReport{Tables: loaded, Rows: sumRows(loaded)}, seed, w)
	o = base
	o.Part = PartFinish
	step(o)

	got, err := Check(ctx, sc, db.SQLite, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	requireAllPass(t, got)
	if fmt.Sprint(got.Tables) != fmt.Sprint(want.Tables) {
		t.Errorf("tables %v, want %v", got.Tables, want.Tables)
	}
	if g, wn := sums(t, sc), sums(t, wc); strings.Join(g, ",") != strings.Join(wn, ",") {
		t.Errorf("data differ from the whole build's:\n%v\n%v", g, wn)
	}
	if got.Meta.Warehouses != w || got.Meta.Seed != seed || got.Meta.CLoad != want.Meta.CLoad {
		t.Errorf("meta %+v, want %+v", got.Meta, want.Meta)
	}
	// The indexes of the whole build exist too.
	var idx, wantIdx int
	q := "SELECT count(*) FROM sqlite_master WHERE type = 'index'"
	if err := sc.QueryRow(ctx, q).Scan(&idx); err != nil {
		t.Fatal(err)
	}
	if err := wc.QueryRow(ctx, q).Scan(&wantIdx); err != nil {
		t.Fatal(err)
	}
	if idx != wantIdx {
		t.Errorf("%d indexes, the whole build has %d", idx, wantIdx)
	}

	// The parts refuse what does not follow.
	o = base
	o.Part = PartFinish
	if _, err := Build(ctx, drv, split, o); err == nil || !strings.Contains(err.Error(), "not loading") {
		t.Errorf("finish on a finished build: %v", err)
	}
	o.Part, o.LoadFirst, o.LoadCount = PartLoad, 1, 1
	if _, err := Build(ctx, drv, sqliteTarget(t), o); err == nil || !strings.Contains(err.Error(), "schema part comes first") {
		t.Errorf("load without a schema: %v", err)
	}
	other := sqliteTarget(t)
	o = base
	o.Part = PartSchema
	if _, err := Build(ctx, drv, other, o); err != nil {
		t.Fatal(err)
	}
	o.Part, o.Warehouses, o.LoadFirst, o.LoadCount = PartLoad, 3, 1, 2
	if _, err := Build(ctx, drv, other, o); err == nil || !strings.Contains(err.Error(), `warehouses "2"`) {
		t.Errorf("load of another build's size: %v", err)
	}
	o.Part, o.Warehouses = PartSchema, w
	if _, err := Build(ctx, drv, other, o); err == nil {
		t.Error("a second schema part without force builds")
	}
}

func sumRows(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// TestSegmentRunSQLite: an agent's run through the workload's PrepareRun —
// as the job service makes it — homes its VUs, numbered as in the whole
// run, on its own warehouses, records its segment and run id, and says so;
// one without a warehouse of its own notes it.
func TestSegmentRunSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs")
	}
	t.Parallel()
	ctx := context.Background()
	drv := sqlite.Driver{}
	tg := built(t, db.SQLite, 2, 5) // TestSegmentBuildParts' whole build
	env := workload.Env{Driver: drv, Target: tg, Logf: t.Logf, Progress: func(workload.Progress) {}}
	for _, c := range []struct {
		segment  string
		homes    []int // of the agent's VUs, in order
		describe string
		note     string
	}{
		{"1/2", []int{2, 2}, "segment 1/2: VUs 3-4 homed on warehouse 2", ""},
		{"0/2", []int{1, 1}, "segment 0/2: VUs 1-2 homed on warehouse 1", ""},
		{"2/3", []int{2, 2}, "segment 2/3: VUs 3-4 homed on warehouse 2", ""},
		{"0/3", []int{1}, "segment 0/3: VU 1;", "segment 0/3 gets no warehouse of its own (2 warehouses)"},
		{"", []int{1, 2, 1, 2}, "2 warehouses, 4 VUs, mode sql", ""},
	} {
		s := config.New(config.KindRun)
		s.VU, s.Mode, s.Seed, s.Segment = 4, "sql", 3, c.segment
		if c.segment != "" {
			s.RunID = "seg-test"
		}
		plan, err := s.Parse()
		if err != nil {
			t.Fatalf("%q: %v", c.segment, err)
		}
		prep, err := Workload{}.PrepareRun(ctx, env, plan)
		if err != nil {
			t.Fatal(err)
		}
		run := prep.(*oltpRun)
		first, count := plan.Segment.Share(s.VU)
		if count != len(c.homes) {
			t.Fatalf("%q: %d VUs, want %d", c.segment, count, len(c.homes))
		}
		if d := run.Describe() + ";"; !strings.Contains(d, c.describe) {
			t.Errorf("%q: described %q, want %q in it", c.segment, d, c.describe)
		}
		notes := strings.Join(run.Notes(), "\n")
		if c.note != "" && !strings.Contains(notes, c.note) || c.note == "" && strings.Contains(notes, "no warehouse") {
			t.Errorf("%q: notes %q", c.segment, notes)
		}
		kv := run.Settings()
		if c.segment != "" && (kv["segment"] != c.segment || kv["run_id"] != "seg-test") || c.segment == "" && (kv["segment"] != "" || kv["run_id"] != "") {
			t.Errorf("%q: settings segment %q run id %q", c.segment, kv["segment"], kv["run_id"])
		}
		out := &logOutput{t: t}
		res, err := engine.Run(ctx, run, engine.Config{VUs: count, FirstVU: first, Iterations: 20, Interval: 200 * time.Millisecond, MaxRetries: 5, StallAfter: runStallAfter,
			Partial: !plan.Segment.IsWhole()}, out)
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != metrics.StatusCompleted || res.Commits == 0 {
			t.Fatalf("%q: status %s, %d commits", c.segment, res.Status, res.Commits)
		}
		run.mu.Lock()
		homes := map[int]bool{}
		for _, term := range run.terminals {
			homes[term.gen.home] = true
		}
		run.mu.Unlock()
		for _, h := range c.homes {
			if !homes[h] {
				t.Errorf("%q: no VU homed at warehouse %d (%v)", c.segment, h, homes)
			}
		}
		if len(homes) != len(dedupe(c.homes)) {
			t.Errorf("%q: VUs homed at %v, want %v", c.segment, homes, c.homes)
		}
		if err := run.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// A random home is drawn within the segment's warehouses.
	s := config.New(config.KindRun)
	s.VU, s.Mode, s.Segment, s.RunID, s.RandomHome = 20, "sql", "1/2", "r", true
	plan := s.MustParse()
	prep, err := Workload{}.PrepareRun(ctx, env, plan)
	if err != nil {
		t.Fatal(err)
	}
	defer prep.Close(ctx)
	first, count := plan.Segment.Share(s.VU)
	for vu := first; vu < first+count; vu++ {
		w, err := prep.NewWorker(ctx, vu)
		if err != nil {
			t.Fatal(err)
		}
		if h := w.(*worker).gen.home; h != 2 {
			t.Errorf("random home of VU %d: %d, outside segment 1/2's warehouse 2", vu, h)
		}
		w.Close(ctx)
	}
}

func dedupe(xs []int) map[int]bool {
	m := map[int]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return m
}
