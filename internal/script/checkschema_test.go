package script

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/postgres"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/testdb"
	"github.com/sledge-bench/sledge/internal/workload/tproch"
)

// checkschema with dbset bm TPROC-H checks the TPROC-H schema as `sledge
// check --workload tproch` does, in HammerDB's shape: the check's table of
// conditions as Vuser 1's output, then the SLEDGE-JOB line.
func TestDoCheckschemaTPROCH(t *testing.T) {
	if testing.Short() {
		t.Skip("builds TPROC-H on PostgreSQL")
	}
	t.Parallel()
	raw := testdb.PostgresFrom(t, "tproch sf0.01", func(ctx context.Context, url string) error {
		tg, err := db.ParseTarget(url)
		if err != nil {
			return err
		}
		_, err = tproch.Build(ctx, postgres.Driver{}, tg, tproch.BuildOptions{SF: 0.01, Workers: 2})
		return err
	})
	svc, _ := newService(t)
	ctx := context.Background()
	st := hammerState(t, raw, "pg", "pg_", "unused")
	st.BM = "TPROC-H"
	u := strings.TrimPrefix(raw, "postgres://")
	userPass, rest, _ := strings.Cut(u, "@")
	user, pass, _ := strings.Cut(userPass, ":")
	_, dbase, _ := strings.Cut(rest, "/")
	dbase, _, _ = strings.Cut(dbase, "?")
	st.Dicts["tpch"] = map[string]string{"pg_tpch_user": user, "pg_tpch_pass": pass, "pg_tpch_dbase": dbase}

	var out bytes.Buffer
	if err := Do(ctx, &out, svc, Env{}, "checkschema", st); err != nil {
		t.Fatalf("checkschema: %v\n%s", err, out.String())
	}
	m := jobLineRE.FindStringSubmatch(out.String())
	if m == nil || m[2] != metrics.StatusCompleted || !strings.Contains(out.String(), "Vuser 1:TPROC-H check of ") ||
		!strings.Contains(out.String(), "Vuser 1:all conditions hold") || !strings.Contains(out.String(), "stored answers are for scale factor 1") ||
		strings.Contains(out.String(), "Error:") {
		t.Errorf("checkschema of a clean TPROC-H build:\n%s", out.String())
	}

	// checkschema of TPROC-C on it finds no TPROC-C schema and says which
	// benchmark to choose, in HammerDB's terms.
	tpcc := *st
	tpcc.BM = "TPROC-C"
	tpcc.Dicts = map[string]map[string]string{"connection": st.Dicts["connection"],
		"tpcc": {"pg_user": user, "pg_pass": pass, "pg_dbase": dbase}}
	out.Reset()
	err := Do(ctx, &out, svc, Env{}, "checkschema", &tpcc)
	if err == nil || !strings.Contains(out.String(), "Error: check: no TPROC-C schema found in database") ||
		!strings.Contains(out.String(), "the database holds a TPROC-H schema: dbset bm TPROC-H") {
		t.Errorf("checkschema of TPROC-C on TPROC-H: %v\n%s", err, out.String())
	}

	// Rows missing from one table fail that table's count, and the script
	// is told as it is of a failed TPROC-C check.
	tg, err := db.ParseTarget(raw)
	if err != nil {
		t.Fatal(err)
	}
	c, err := postgres.Driver{}.Connect(ctx, tg, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Exec(ctx, "DELETE FROM supplier WHERE s_suppkey = 1")
	c.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	err = Do(ctx, &out, svc, Env{}, "checkschema", st)
	t.Logf("checkschema after a delete: %v\n%s", err, out.String())
	if !strings.Contains(out.String(), "rows supplier") || !strings.Contains(out.String(), "FAIL (1 violations)") ||
		!strings.Contains(out.String(), "1 conditions failed") || !jobLineRE.MatchString(out.String()) {
		t.Errorf("checkschema after a delete: %v\n%s", err, out.String())
	}
}
