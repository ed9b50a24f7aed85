package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
)

// reread writes f as a file and reads it back, as an import of a file does.
func reread(t *testing.T, f *ExportFile, compress bool) *ExportFile {
	t.Helper()
	var b bytes.Buffer
	if err := WriteExport(&b, f, compress); err != nil {
		t.Fatal(err)
	}
	if compress && (b.Len() < 2 || b.Bytes()[0] != 0x1f) {
		t.Fatal("a compressed export is not gzip")
	}
	out, err := ReadExport(&b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// schemaTables lists the repository's tables from its catalogue.
func schemaTables(t *testing.T, r *Repo) []string {
	t.Helper()
	q := "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%' ORDER BY name"
	if r.d == postgresDialect {
		q = "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name"
	}
	rows, err := r.db.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestExportCoversEverySchemaTable fails when a table of the schema is
// neither exported nor named as not job data (notJobData): a new table
// must be added to childTables (which Delete empties and Export writes).
func TestExportCoversEverySchemaTable(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		r := b.open(t)
		tables := schemaTables(t, r)
		if len(tables) < 30 {
			t.Fatalf("only %d tables in the schema: %v", len(tables), tables)
		}
		for _, tbl := range tables {
			if !slices.Contains(exportTables(), tbl) && !slices.Contains(notJobData, tbl) {
				t.Errorf("table %s is neither exported (add it to childTables) nor listed in notJobData", tbl)
			}
		}
		for _, tbl := range append(exportTables(), notJobData...) {
			if !slices.Contains(tables, tbl) && !(tbl == "sledge_schema" && b.name == "sqlite") { // PRAGMA user_version in SQLite
				t.Errorf("%s is exported or listed but is no table of the schema", tbl)
			}
		}
	})
}

// comparable returns an exported job's tables without what differs between
// repositories by design: the job's id (and every job_id) and the run id of
// a group (made unique on import).
func comparableTables(ej ExportedJob) []ExportedTable {
	var out []ExportedTable
	for _, et := range ej.Tables {
		c := ExportedTable{Name: et.Name, Columns: et.Columns, Types: et.Types}
		for _, row := range et.Rows {
			row = slices.Clone(row)
			for i, col := range et.Columns {
				if col == "job_id" || (et.Name == "job" && col == "id") || (et.Name == "run_group" && col == "run_id") {
					row[i] = nil
				}
				// Numbers compare as JSON writes them (a file's are
				// json.Number, a fresh export's Go numbers).
				if row[i] != nil && et.Types[i] != colText && et.Types[i] != colBlob {
					row[i] = fmt.Sprint(row[i])
				}
			}
			c.Rows = append(c.Rows, row)
		}
		out = append(out, c)
	}
	return out
}

func TestExportImportRoundTrip(t *testing.T) {
	t.Parallel()
	for _, src := range backends {
		for _, dst := range backends {
			t.Run(src.name+"-to-"+dst.name, func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				from, to := src.open(t), dst.open(t)
				id := fillEveryTable(t, from)
				if err := from.Finish(ctx, id, metrics.StatusCompleted, ""); err != nil {
					t.Fatal(err)
				}
				exportedAt := time.Date(2026, 11, 28, 1, 2, 3, 0, time.UTC)
				f, err := from.Export(ctx, []int64{id}, "1.2.3", exportedAt)
				if err != nil {
					t.Fatal(err)
				}
				if f.Format != ExportFormat || f.Version != ExportVersion || f.SchemaVersion != SchemaVersion || f.SledgeVersion != "1.2.3" {
					t.Errorf("header = %s %d schema %d sledge %s", f.Format, f.Version, f.SchemaVersion, f.SledgeVersion)
				}
				srcRows := jobRows(t, from, id)
				if n := len(f.Jobs[0].Tables); n != len(exportTables()) {
					t.Errorf("the export holds %d tables of the job, want %d (every table has rows)", n, len(exportTables()))
				}
				// Through a file (gzip-compressed for PostgreSQL), or as
				// Export made it.
				in := f
				if dst.name == "postgres" || src.name == "postgres" {
					in = reread(t, f, dst.name == "postgres")
				}
				im, err := to.Import(ctx, in, time.Now())
				if err != nil {
					t.Fatal(err)
				}
				if len(im) != 1 || im[0].From != id {
					t.Fatalf("imported %+v", im)
				}
				got := jobRows(t, to, im[0].ID)
				for tbl, n := range srcRows {
					if tbl == "job_origin" {
						continue
					}
					if got[tbl] != n {
						t.Errorf("%s: %d rows imported, want %d", tbl, got[tbl], n)
					}
				}
				if got["job_origin"] != 1 {
					t.Errorf("job_origin: %d rows, want 1", got["job_origin"])
				}
				// Exported again from the second repository, the job is
				// the same, row for row, value for value.
				again, err := to.Export(ctx, []int64{im[0].ID}, "1.2.3", time.Now())
				if err != nil {
					t.Fatal(err)
				}
				want, have := comparableTables(reread(t, f, false).Jobs[0]), comparableTables(reread(t, again, false).Jobs[0])
				if !reflect.DeepEqual(want, have) {
					for i := range min(len(want), len(have)) {
						if !reflect.DeepEqual(want[i], have[i]) {
							t.Errorf("table %s differs after the round trip:\nexported %v\nimported %v", want[i].Name, want[i].Rows, have[i].Rows)
						}
					}
					t.Fatalf("%d tables exported, %d after the round trip", len(want), len(have))
				}
				// The imported job says where it came from, and a second
				// export keeps the first origin.
				j, err := to.Get(ctx, im[0].ID)
				if err != nil {
					t.Fatal(err)
				}
				o := j.Origin
				if o == nil || o.ID != id || o.Host != from.host || o.SledgeVersion != "1.2.3" || !o.ExportedAt.Equal(exportedAt) || o.Repository != from.originName() {
					t.Fatalf("origin = %+v", o)
				}
				if again.Jobs[0].Origin == nil || again.Jobs[0].Origin.ID != id {
					t.Errorf("a re-export names origin %+v, want the first (job %d)", again.Jobs[0].Origin, id)
				}
				if strings.Contains(o.Repository, "/") && src.name == "sqlite" {
					t.Errorf("origin repository %q names a directory", o.Repository)
				}
				// The group's run id is no longer the original one: no
				// agent joins an imported job.
				if g, ok, err := to.GroupOfJob(ctx, im[0].ID); err != nil || !ok || !strings.HasPrefix(g.RunID, fmt.Sprintf("imported/%d/run-", im[0].ID)) {
					t.Errorf("group of the imported job: %+v %v %v", g, ok, err)
				}
				// Loaded through the typed paths, the results are equal.
				a, err := from.RunResult(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				b, err := to.RunResult(ctx, im[0].ID)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(a, b) {
					t.Errorf("run result differs:\n%+v\n%+v", a, b)
				}
			})
		}
	}
}

func TestImportedJobsAreReadOnly(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		id := fillEveryTable(t, r)
		if err := r.Finish(ctx, id, metrics.StatusCompleted, ""); err != nil {
			t.Fatal(err)
		}
		f, err := r.Export(ctx, []int64{id}, "dev", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		im, err := r.Import(ctx, reread(t, f, false), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		imp := im[0].ID
		before := jobRows(t, r, imp)
		for name, write := range map[string]func() error{
			"AppendOutput":      func() error { return r.AppendOutput(ctx, imp, "more") },
			"AppendOutputLines": func() error { return r.AppendOutputLines(ctx, imp, []OutputLine{{Line: "more"}}) },
			"Finish":            func() error { return r.Finish(ctx, imp, metrics.StatusFailed, "x") },
			"SetDBVersion":      func() error { return r.SetDBVersion(ctx, imp, "99") },
			"AddConfig":         func() error { return r.AddConfig(ctx, imp, map[string]string{"note": "x"}) },
			"SetSystem":         func() error { return r.SetSystem(ctx, imp, map[string]string{"cpus": "64"}) },
			"SaveRunResult":     func() error { return r.SaveRunResult(ctx, imp, sampleRunResult()) },
			"AddInterval":       func() error { return r.AddInterval(ctx, imp, metrics.Interval{Seq: 9}) },
			"MarkIntervalsMissing": func() error {
				return r.MarkIntervalsMissing(ctx, imp, []MissingInterval{{Seq: 7, Reason: "x"}})
			},
			"SaveAnalyticResult": func() error { return r.SaveAnalyticResult(ctx, imp, sampleAnalyticResult()) },
			"SaveCheck":          func() error { return r.SaveCheck(ctx, imp, []CheckItem{{Name: "d"}}) },
		} {
			err := write()
			var ie *ImportedError
			if !errors.As(err, &ie) || ie.ID != imp || !strings.Contains(err.Error(), "read-only") {
				t.Errorf("%s on an imported job: %v, want an ImportedError", name, err)
			}
		}
		if after := jobRows(t, r, imp); !reflect.DeepEqual(before, after) {
			t.Errorf("rows changed: %v → %v", before, after)
		}
		// The job it was exported from stays writable.
		if err := r.AppendOutput(ctx, id, "more"); err != nil {
			t.Errorf("the local job: %v", err)
		}
		// Importing it again is refused, naming the job imported before.
		_, err = r.Import(ctx, reread(t, f, false), time.Now())
		var dup *DuplicateError
		if !errors.As(err, &dup) || dup.ID != imp || !strings.Contains(err.Error(), "already imported") {
			t.Errorf("second import: %v", err)
		}
		// An export of a running job is refused.
		running := mustCreate(t, r, Job{Kind: KindRun}, nil)
		if _, err := r.Export(ctx, []int64{running}, "dev", time.Now()); err == nil || !strings.Contains(err.Error(), "still running") {
			t.Errorf("export of a running job: %v", err)
		}
		if _, err := r.Export(ctx, []int64{running + 100}, "dev", time.Now()); !errors.Is(err, ErrNotFound) {
			t.Errorf("export of a missing job: %v", err)
		}
		// Deleting it is allowed.
		if err := r.Delete(ctx, imp); err != nil {
			t.Fatalf("delete an imported job: %v", err)
		}
	})
}

func TestReadExportRefuses(t *testing.T) {
	t.Parallel()
	doc := func(mod func(m map[string]any)) string {
		m := map[string]any{"format": ExportFormat, "version": ExportVersion, "schema_version": SchemaVersion,
			"exported_at": "2026-11-28T00:00:00Z", "host": "h", "jobs": []any{}}
		mod(m)
		b, _ := json.Marshal(m)
		return string(b)
	}
	for _, c := range []struct {
		name, in, want string
	}{
		{"not json", "hello", "not a sledge jobs export"},
		{"other format", doc(func(m map[string]any) { m["format"] = "k6" }), `format "k6": not a sledge jobs export`},
		{"future version", doc(func(m map[string]any) { m["version"] = ExportVersion + 1 }),
			fmt.Sprintf("file version %d is newer than this sledge reads (%d): upgrade sledge", ExportVersion+1, ExportVersion)},
		{"no version", doc(func(m map[string]any) { delete(m, "version") }), "bad file version 0"},
		{"newer schema", doc(func(m map[string]any) { m["schema_version"] = SchemaVersion + 1 }), "newer than this sledge knows"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadExport(strings.NewReader(c.in))
			if !errors.Is(err, ErrNotExport) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}

func TestImportRefusesUnknownTablesAndColumns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, _ := openTemp(t)
	id := mustCreate(t, r, Job{Kind: KindRun}, map[string]string{"vu": "1"})
	if err := r.Finish(ctx, id, metrics.StatusCompleted, ""); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		mod  func(ej *ExportedJob)
		want string
	}{
		{"table", func(ej *ExportedJob) {
			ej.Tables = append(ej.Tables, ExportedTable{Name: "job_future", Columns: []string{"job_id"}, Types: []string{"int"}})
		}, "table job_future is not a table of this sledge's jobs"},
		{"column", func(ej *ExportedJob) {
			ej.Tables[0].Columns = append(ej.Tables[0].Columns, "mood")
			ej.Tables[0].Types = append(ej.Tables[0].Types, "text")
			ej.Tables[0].Rows[0] = append(ej.Tables[0].Rows[0], "happy")
		}, "column job.mood is not a column"},
		{"no job row", func(ej *ExportedJob) { ej.Tables = ej.Tables[1:] }, "first table is not its job row"},
		{"bad value", func(ej *ExportedJob) { ej.Tables[0].Rows[0][slices.Index(ej.Tables[0].Columns, "pid")] = "many" }, "job.pid: want an integer"},
	} {
		f, err := r.Export(ctx, []int64{id}, "dev", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		f = reread(t, f, false)
		c.mod(&f.Jobs[0])
		before, _ := r.List(ctx, ListFilter{})
		if _, err := r.Import(ctx, f, time.Now()); !errors.Is(err, ErrNotExport) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		if after, _ := r.List(ctx, ListFilter{}); len(after) != len(before) {
			t.Errorf("%s: a refused import left %d jobs, had %d", c.name, len(after), len(before))
		}
	}
}

// TestExportHoldsNoPassword: an export redacts again what it reads, so that
// a password stored by an older Sledge (written here past the redaction of
// the write paths) does not travel.
func TestExportHoldsNoPassword(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		r := b.open(t)
		const secret = "s3cretPW"
		id := mustCreate(t, r, Job{Kind: KindRun}, map[string]string{"vu": "1"})
		if err := r.Finish(ctx, id, metrics.StatusFailed, "x"); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{
			"UPDATE job SET target = 'postgres://bench:" + secret + "@db:5432/tpcc', error = 'host=db password=" + secret + "' WHERE id = ?",
			"INSERT INTO job_config (job_id, key, value) VALUES (?, 'db_password', '" + secret + "')",
			"INSERT INTO job_config (job_id, key, value) VALUES (?, 'db', 'postgresql://db/tpcc?user=u&password=" + secret + "')",
			"INSERT INTO job_output (job_id, seq, at, line) VALUES (?, 1, '2026-11-28T00:00:00.000000000Z', 'connecting to postgres://u:" + secret + "@db/x')",
		} {
			if _, err := r.db.ExecContext(ctx, q, id); err != nil {
				t.Fatal(err)
			}
		}
		f, err := r.Export(ctx, []int64{id}, "dev", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := WriteExport(&out, f, false); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.String(), secret) {
			t.Errorf("the export holds the password:\n%s", out.String())
		}
		if !strings.Contains(out.String(), "postgres://bench:xxxxx@db:5432/tpcc") {
			t.Errorf("the target did not travel redacted:\n%s", out.String())
		}
		if strings.Contains(f.Repository, "@") || strings.Contains(f.Repository, "?") {
			t.Errorf("repository %q names a user or parameters", f.Repository)
		}
	})
}
