package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/observe"
)

// fakeNodeExporter serves a node_exporter page whose counters grow by the
// same amounts at every scrape: each interval, 2 CPUs spend 0.6 s user,
// 0.2 s system and 1.2 s idle (30/10/60 %).
func fakeNodeExporter(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var scrapes atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := float64(scrapes.Add(1))
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		fmt.Fprint(w, "# TYPE node_uname_info gauge\n"+
			`node_uname_info{nodename="db1",release="6.1.0-test",sysname="Linux"} 1`+"\n"+
			"# TYPE node_cpu_seconds_total counter\n")
		for cpu := range 2 {
			fmt.Fprintf(w, "node_cpu_seconds_total{cpu=\"%d\",mode=\"user\"} %g\n", cpu, 0.3*n)
			fmt.Fprintf(w, "node_cpu_seconds_total{cpu=\"%d\",mode=\"system\"} %g\n", cpu, 0.1*n)
			fmt.Fprintf(w, "node_cpu_seconds_total{cpu=\"%d\",mode=\"idle\"} %g\n", cpu, 0.6*n)
		}
		fmt.Fprint(w, "# TYPE node_memory_MemTotal_bytes gauge\nnode_memory_MemTotal_bytes 8e+09\n"+
			"# TYPE node_memory_MemAvailable_bytes gauge\nnode_memory_MemAvailable_bytes 6e+09\n")
	}))
	t.Cleanup(srv.Close)
	return srv, &scrapes
}

// TestRunScrapedDatabaseHost: a run with a scrape URL stores the
// exporter's host as the "database host", with the same OS counters as
// the local host's, and names this host the "client host" only, even
// though the (embedded) database runs here.
func TestRunScrapedDatabaseHost(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on SQLite")
	}
	parallel(t)
	exp, scrapes := fakeNodeExporter(t)
	svc, repo := newService(t)
	ctx := context.Background()
	target := tpccSQLite(t, "s.db")
	sp := config.New(config.KindRun)
	sp.DB, sp.VU, sp.Scrape = target, 1, exp.URL+"/metrics"
	sp.Rampup, sp.Duration, sp.Interval = 0, config.Duration(1500*time.Millisecond), config.Duration(500*time.Millisecond)
	var out bytes.Buffer
	o, err := svc.Run(ctx, Request{Spec: sp, Console: &out})
	if err != nil || o.Status != metrics.StatusCompleted {
		t.Fatalf("run: %+v %v\n%s", o, err, out.String())
	}
	got, err := repo.Observations(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ob := range got {
		names = append(names, ob.Name)
	}
	if strings.Join(names, ",") != "database host,client host" {
		t.Fatalf("observers %q, want the database host then the client host\n%s", names, out.String())
	}
	dbHost := got[0]
	if dbHost.Start.Server != "db1 (Linux 6.1.0-test)" {
		t.Errorf("database host's server = %q", dbHost.Start.Server)
	}
	if len(dbHost.Intervals) == 0 {
		t.Fatal("no interval stored for the database host")
	}
	for i, s := range dbHost.Intervals {
		if s.Gap != "" && !strings.Contains(s.Gap, observe.SourceOSNet) {
			t.Errorf("interval %d: gap %q", i, s.Gap)
		}
		cs := map[string]float64{}
		for _, c := range s.Counters {
			cs[c.Source+"/"+c.Name] = c.Value
		}
		for name, want := range map[string]float64{
			"os.cpu/user_pct": 30, "os.cpu/sys_pct": 10, "os.cpu/idle_pct": 60, "os.cpu/cpus": 2,
			"os.mem/total": 8e9, "os.mem/used": 2e9,
		} {
			if v, ok := cs[name]; !ok || v < want-1e-6 || v > want+1e-6 {
				t.Errorf("interval %d: %s = %v (present %v), want %v", i, name, v, ok, want)
			}
		}
	}
	if dbHost.Cost.Queries != int(scrapes.Load()) || dbHost.Cost.Queries != len(dbHost.Intervals)+1 {
		t.Errorf("cost %d queries, %d scrapes served, %d intervals", dbHost.Cost.Queries, scrapes.Load(), len(dbHost.Intervals))
	}
}

// TestRunObserversScrape: a scrape URL adds the database host's observer
// and makes the local one the client host, loopback target or not.
func TestRunObserversScrape(t *testing.T) {
	parallel(t)
	for _, tc := range []struct {
		dsn, scrape string
		want        string
	}{
		{"postgres://u@127.0.0.1/x", "", "PostgreSQL,client and database host"},
		{"postgres://u@127.0.0.1/x", "http://db1:9100/metrics", "PostgreSQL,database host,client host"},
		{"mysql://u@db1:3306/x", "http://db1:9100/metrics", "MySQL,database host,client host"},
		{"sqlite:/tmp/x.db", "http://db1:9100/metrics", "database host,client host"},
		{"sqlite:/tmp/x.db", "", "client and database host"},
	} {
		tg, err := db.ParseTarget(tc.dsn)
		if err != nil {
			t.Fatal(err)
		}
		sp := config.New(config.KindRun)
		sp.Scrape = tc.scrape
		var names []string
		for _, ob := range RunObservers(tg, sp) {
			n := ob.Name()
			for _, kind := range []string{"PostgreSQL", "MySQL"} {
				if strings.Contains(n, kind) || strings.Contains(n, "MariaDB") && kind == "MySQL" {
					n = kind
				}
			}
			names = append(names, n)
		}
		if got := strings.Join(names, ","); got != tc.want {
			t.Errorf("%s scrape %q: observers %s, want %s", tc.dsn, tc.scrape, got, tc.want)
		}
	}
}

// TestTargetPolicyRefusesScrape: a server that limits its targets fetches
// no exporter URL named in a request (it would reach whatever its network
// reaches): a *PolicyError naming scrape, before any job, file or
// connection — whatever the db. With AllowAny it is admitted.
func TestTargetPolicyRefusesScrape(t *testing.T) {
	parallel(t)
	addr, accepted := acceptCounter(t)
	svc, repo, _ := policyService(t, map[string]string{"pg": "postgres://u:pw@" + addr + "/x"}, false)
	for _, dbName := range []string{"pg", "", "sqlite:bench.db"} {
		for _, kind := range []string{config.KindRun, config.KindCheck} {
			spec := config.New(kind)
			spec.DB, spec.Scrape = dbName, "http://u:s3cret@"+addr+"/metrics"
			_, err := svc.Start(context.Background(), Request{Spec: spec})
			var pe *PolicyError
			if !errors.As(err, &pe) || pe.Field() != "scrape" {
				t.Errorf("%s on %q: %v, want a PolicyError about scrape", kind, dbName, err)
				continue
			}
			if strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "scrape") {
				t.Errorf("error %q: want it to name scrape, not the password", err)
			}
		}
	}
	if n := jobCount(t, repo); n != 0 {
		t.Errorf("%d jobs recorded for a refused scrape", n)
	}
	time.Sleep(100 * time.Millisecond)
	if n := accepted.Load(); n != 0 {
		t.Errorf("%d connections to %s for a refused scrape", n, addr)
	}
	p := &TargetPolicy{AllowAny: true}
	if err := p.admitScrape("http://db1:9100/metrics"); err != nil {
		t.Errorf("allow any: %v", err)
	}
}
