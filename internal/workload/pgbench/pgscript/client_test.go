package pgscript

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fakeConn records queries and answers them from a table.
type fakeConn struct {
	queries []Query
	results map[string][]Result // by SQL text
	fail    map[string]error    // by SQL text
	inTx    bool
}

func (f *fakeConn) Exec(_ context.Context, q *Query) ([]Result, error) {
	f.queries = append(f.queries, *q)
	switch strings.TrimSuffix(q.SQL, ";") {
	case "BEGIN":
		f.inTx = true
	case "ROLLBACK", "END":
		f.inTx = false
	}
	if err := f.fail[q.SQL]; err != nil {
		return nil, err
	}
	if !q.Rows {
		return nil, nil
	}
	return f.results[q.SQL], nil
}

func (f *fakeConn) InTransaction() bool { return f.inTx }

func (f *fakeConn) sqls() []string {
	var out []string
	for _, q := range f.queries {
		out = append(out, q.SQL)
	}
	return out
}

func newClient(t *testing.T, src string, cfg Config) *Client {
	t.Helper()
	s, err := Parse("t.sql", src)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Scripts = []Weighted{{Script: s, Weight: 1}}
	if cfg.Clients == 0 {
		cfg.Clients = 1
	}
	setup, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return setup.Clients()[0]
}

func TestRunModes(t *testing.T) {
	t.Parallel()
	src := "\\set a 5\n\\set d 0.5\nSELECT :a, ':d', :a::text, :nosuch;\n"
	cases := []struct {
		mode   QueryMode
		sql    string
		params []string
		name   string
	}{
		{Simple, "SELECT 5, '0.5', 5::text, :nosuch;", nil, ""},
		{Extended, "SELECT $1, '$2', $3::text, $4;", []string{"5", "0.5", "5", "<NULL>"}, ""},
		{Prepared, "SELECT $1, '$2', $3::text, $4;", []string{"5", "0.5", "5", "<NULL>"}, "P_0_2"},
	}
	for _, tc := range cases {
		t.Run(tc.mode.String(), func(t *testing.T) {
			t.Parallel()
			c := newClient(t, src, Config{Mode: tc.mode})
			conn := &fakeConn{}
			out, err := c.Run(context.Background(), conn, 0)
			if err != nil {
				t.Fatal(err)
			}
			q := conn.queries[0]
			var params []string
			for _, p := range q.Params {
				if p == nil {
					params = append(params, "<NULL>")
				} else {
					params = append(params, string(p))
				}
			}
			if q.SQL != tc.sql || !reflect.DeepEqual(params, tc.params) || q.Name != tc.name || q.Mode != tc.mode {
				t.Errorf("query %+v (params %q), want %q %q %q", q, params, tc.sql, tc.params, tc.name)
			}
			for i, d := range out.Latency {
				if d < 0 {
					t.Errorf("command %d has no latency", i)
				}
			}
		})
	}
}

func TestRunGsetAset(t *testing.T) {
	t.Parallel()
	src := "SELECT 1 AS a, 2 AS b \\gset\nSELECT x \\gset p_\nSELECT y \\; SELECT z \\aset q_\nSELECT :a :b :p_c :q_y :q_z;"
	c := newClient(t, src, Config{})
	conn := &fakeConn{results: map[string][]Result{
		"SELECT 1 AS a, 2 AS b":  {{Columns: []string{"a", "b"}, Rows: 1, Last: []string{"1", "2"}}},
		"SELECT x":               {{Columns: []string{"c"}, Rows: 1, Last: []string{""}}},
		"SELECT y ; SELECT z":    {{Columns: []string{"y"}, Rows: 3, Last: []string{"yy"}}, {Columns: []string{"z"}, Rows: 0}},
		"SELECT 1 AS none WHERE": nil,
	}}
	if _, err := c.Run(context.Background(), conn, 0); err != nil {
		t.Fatal(err)
	}
	if got, want := conn.queries[3].SQL, "SELECT 1 2  yy :q_z;"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}

	for _, rows := range []int{0, 2} {
		c := newClient(t, "SELECT v \\gset", Config{})
		conn := &fakeConn{results: map[string][]Result{"SELECT v": {{Columns: []string{"v"}, Rows: rows, Last: []string{"1"}}}}}
		_, err := c.Run(context.Background(), conn, 0)
		var ce *CommandError
		if !errors.As(err, &ce) || ce.SQL || !strings.Contains(err.Error(), "expected one row") || ce.Line != 1 {
			t.Errorf("%d rows: error %v, want a script error: expected one row", rows, err)
		}
	}
}

func TestRunIf(t *testing.T) {
	t.Parallel()
	src := `\if :x = 1
SELECT 'one';
\elif :x = 2
SELECT 'two';
\if :x > 0
SELECT 'nested';
\endif
\elif :x = 3
SELECT 'three';
\else
SELECT 'other';
\endif
SELECT 'after';`
	cases := map[string][]string{
		"1": {"SELECT 'one';", "SELECT 'after';"},
		"2": {"SELECT 'two';", "SELECT 'nested';", "SELECT 'after';"},
		"3": {"SELECT 'three';", "SELECT 'after';"},
		"9": {"SELECT 'other';", "SELECT 'after';"},
	}
	for x, want := range cases {
		c := newClient(t, src, Config{Defines: []Define{{"x", x}}})
		conn := &fakeConn{}
		out, err := c.Run(context.Background(), conn, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := conn.sqls(); !reflect.DeepEqual(got, want) {
			t.Errorf("x=%s ran %q, want %q", x, got, want)
		}
		if x == "1" && (out.Latency[3] != -1 || out.Latency[1] < 0) {
			t.Errorf("x=1: latencies %v: the skipped commands have -1", out.Latency)
		}
	}
}

type sqlStateErr struct{ state string }

func (e *sqlStateErr) Error() string    { return "ERROR " + e.state }
func (e *sqlStateErr) SQLState() string { return e.state }

// TestRunRetry: after a serialization failure the block is rolled back,
// the driver's error is kept, and Rewind replays the same draws.
func TestRunRetry(t *testing.T) {
	t.Parallel()
	src := "\\set v random(1, 1000000000)\nBEGIN;\nUPDATE t SET v = :v;\nEND;"
	c := newClient(t, src, Config{Seed: 3})
	conn := &fakeConn{}
	failing := &failOnce{fakeConn: conn}
	_, err := c.Run(context.Background(), failing, 0)
	var se interface{ SQLState() string }
	if !errors.As(err, &se) || se.SQLState() != "40001" {
		t.Fatalf("error %v, want the driver's 40001", err)
	}
	var ce *CommandError
	if !errors.As(err, &ce) || !ce.SQL || ce.Line != 3 {
		t.Fatalf("error %#v, want an SQL command error on line 3", err)
	}
	sqls := conn.sqls()
	if sqls[len(sqls)-1] != "ROLLBACK" {
		t.Fatalf("ran %q: the failed block is not rolled back", sqls)
	}
	first := sqls[1]
	c.Rewind()
	if _, err := c.Run(context.Background(), failing, 0); err != nil {
		t.Fatal(err)
	}
	sqls = conn.sqls()
	if retry := sqls[len(sqls)-2]; retry != first {
		t.Errorf("retry ran %q, the first try %q: Rewind does not replay the draws", retry, first)
	}
	if _, err := c.Run(context.Background(), failing, 0); err != nil {
		t.Fatal(err)
	}
	sqls = conn.sqls()
	if next := sqls[len(sqls)-2]; next == first {
		t.Errorf("the next transaction drew the same value %q", next)
	}
}

// failOnce fails the first UPDATE with a serialization failure.
type failOnce struct {
	*fakeConn
	failed bool
}

func (f *failOnce) Exec(ctx context.Context, q *Query) ([]Result, error) {
	r, err := f.fakeConn.Exec(ctx, q)
	if strings.HasPrefix(q.SQL, "UPDATE") && !f.failed {
		f.failed = true
		return nil, &sqlStateErr{"40001"}
	}
	return r, err
}

func TestRunScriptErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		src  string
		mode QueryMode
		want string
		line int
	}{
		{"\\set x 1\n\\set y :x / 0", Simple, "t.sql:2: \\set y :x / 0: division by zero", 2},
		{"\\set y :nosuch + 1", Simple, `undefined variable "nosuch"`, 1},
		{"\\shell true", Simple, "shell commands are not allowed", 1},
		{"\\setshell v echo 1", Simple, "shell commands are not allowed", 1},
		{"\\sleep :nosuch", Simple, `undefined variable "nosuch"`, 1},
		{"\\set s 'x'", Simple, "", 0}, // a parse error, see below
		{"\\startpipeline\nSELECT 1;\n\\endpipeline", Simple, "cannot use pipeline mode with the simple query protocol", 1},
		{"\\startpipeline\n\\startpipeline", Extended, "already in pipeline mode", 2},
		{"\\endpipeline", Extended, "not in pipeline mode", 1},
		{"\\syncpipeline", Extended, "not in pipeline mode", 1},
		{"\\startpipeline\nSELECT 1 AS a \\gset", Extended, "\\gset and \\aset are not allowed in pipeline mode", 2},
		{"\\startpipeline\nSELECT 1;", Extended, "end of script reached with pipeline open", 2},
	}
	for _, tc := range cases {
		if tc.line == 0 {
			if _, err := Parse("t.sql", tc.src); err == nil {
				t.Errorf("%q parsed", tc.src)
			}
			continue
		}
		c := newClient(t, tc.src, Config{Mode: tc.mode})
		_, err := c.Run(context.Background(), &fakeConn{}, 0)
		var ce *CommandError
		if !errors.As(err, &ce) || ce.SQL || ce.Line != tc.line || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want a script error on line %d: %s", tc.src, err, tc.line, tc.want)
		}
	}
	if !errors.Is(func() error {
		c := newClient(t, "\\shell true", Config{})
		_, err := c.Run(context.Background(), &fakeConn{}, 0)
		return err
	}(), ErrShellNotAllowed) {
		t.Error("a refused shell command is not ErrShellNotAllowed")
	}
}

func TestRunPipeline(t *testing.T) {
	t.Parallel()
	c := newClient(t, "\\startpipeline\nSELECT 1;\n\\syncpipeline\nSELECT 2;\n\\endpipeline\nSELECT 3;", Config{Mode: Extended})
	conn := &fakeConn{}
	if _, err := c.Run(context.Background(), conn, 0); err != nil {
		t.Fatal(err)
	}
	if got, want := conn.sqls(), []string{"SELECT 1;", "SELECT 2;", "SELECT 3;"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ran %q, want %q", got, want)
	}
}

func TestDebug(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	c := newClient(t, "\\set a debug(1)\n\\set b debug(2.5)\n\\set c debug(NULL)\n\\set d debug(1 = 1)", Config{Debug: &buf})
	if _, err := c.Run(context.Background(), &fakeConn{}, 0); err != nil {
		t.Fatal(err)
	}
	want := "debug(script=0,command=1): int 1\ndebug(script=0,command=2): double 2.5\n" +
		"debug(script=0,command=3): null\ndebug(script=0,command=4): boolean true\n"
	if buf.String() != want {
		t.Errorf("debug output\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestSleepDuration(t *testing.T) {
	t.Parallel()
	vs := NewVars()
	_ = vs.SetText("n", "250")
	_ = vs.SetText("z", "0")
	_ = vs.SetText("bad", "x")
	_ = vs.SetText("sp", " 0")
	cases := []struct {
		args []string
		want time.Duration
		err  string
	}{
		{[]string{"2"}, 2 * time.Second, ""},
		{[]string{"10", "ms"}, 10 * time.Millisecond, ""},
		{[]string{"10", "US"}, 10 * time.Microsecond, ""},
		{[]string{"3", "s"}, 3 * time.Second, ""},
		{[]string{":n", "ms"}, 250 * time.Millisecond, ""},
		{[]string{":z"}, 0, ""},
		{[]string{"-5"}, -5 * time.Second, ""},
		{[]string{":bad"}, 0, `invalid sleep time "x"`},
		{[]string{":sp"}, 0, `invalid sleep time " 0"`},
		{[]string{":nosuch"}, 0, "undefined variable"},
	}
	for _, tc := range cases {
		d, err := sleepDuration(vs, tc.args)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, %v; want error %q", tc.args, d, err, tc.err)
			}
			continue
		}
		if err != nil || d != tc.want {
			t.Errorf("%q: %v, %v; want %v", tc.args, d, err, tc.want)
		}
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	s, _ := Parse("t.sql", "SELECT 1;")
	one := []Weighted{{Script: s, Weight: 1}}
	setup, err := New(Config{Scripts: one, Clients: 3, Seed: 5, Scale: 7,
		Defines: []Define{{"client_id", "x"}, {"mine", "1.5"}}})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range setup.Clients() {
		get := func(n string) string { v, _ := c.Vars().Text(n); return v }
		if get("client_id") != "x" || get("scale") != "7" || get("mine") != "1.5" || get("random_seed") != "5" || get("default_seed") == "" {
			t.Errorf("client %d: variables %v", i, c.Vars().Names())
		}
		if get("default_seed") != func() string { v, _ := setup.Clients()[0].Vars().Text("default_seed"); return v }() {
			t.Error("clients have different default seeds")
		}
	}
	if setup, err := New(Config{Scripts: one, Clients: 2, Threads: 3}); err != nil || len(setup.Threads()) != 2 {
		t.Errorf("3 threads for 2 clients: %v; want 2 threads, as pgbench", err)
	}
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Clients: 1}, "no script"},
		{Config{Scripts: one}, "number of clients"},
		{Config{Scripts: one, Clients: 2, Threads: -1}, "number of threads"},
		{Config{Scripts: []Weighted{{s, 0}}, Clients: 1}, "total script weight must not be zero"},
		{Config{Scripts: []Weighted{{s, 0}, {s, 0}}, Clients: 1}, "total script weight must not be zero"},
		{Config{Scripts: []Weighted{{s, -1}}, Clients: 1}, "out of range"},
		{Config{Scripts: one, Clients: 1, Defines: []Define{{"1x", "1"}}}, "invalid variable name"},
	} {
		if _, err := New(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v): error %v, want %q", tc.cfg, err, tc.want)
		}
	}
}

func TestChoose(t *testing.T) {
	t.Parallel()
	s, _ := Parse("t.sql", "SELECT 1;")
	setup, err := New(Config{Scripts: []Weighted{{s, 3}, {s, 0}, {s, 1}}, Clients: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var n [3]int
	for i := 0; i < 4000; i++ {
		n[setup.Clients()[i%2].Choose()]++
	}
	if n[1] != 0 || n[0] < 2*n[2] || n[0] > 4*n[2] {
		t.Errorf("choices %v for weights 3, 0, 1", n)
	}
}

// fakePipeliner records the batches of a pipeline.
type fakePipeliner struct {
	fakeConn
	batches [][]string
}

func (f *fakePipeliner) ExecPipeline(_ context.Context, qs []Query) error {
	var b []string
	for _, q := range qs {
		b = append(b, q.SQL)
	}
	f.batches = append(f.batches, b)
	return nil
}

func TestRunPipelineBatches(t *testing.T) {
	t.Parallel()
	c := newClient(t, "\\startpipeline\nSELECT 1;\n\\set x 2\nSELECT :x;\n\\syncpipeline\nSELECT 3;\n\\endpipeline\nSELECT 4;", Config{Mode: Extended})
	conn := &fakePipeliner{}
	out, err := c.Run(context.Background(), conn, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"SELECT 1;", "SELECT $1;"}, {"SELECT 3;"}}
	if !reflect.DeepEqual(conn.batches, want) || !reflect.DeepEqual(conn.sqls(), []string{"SELECT 4;"}) {
		t.Errorf("batches %q then %q, want %q then SELECT 4", conn.batches, conn.sqls(), want)
	}
	if out.Latency[6] < 0 {
		t.Error("\\endpipeline has no latency")
	}
}
