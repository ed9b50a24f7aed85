package chbench

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/workload"
	"github.com/sledge-bench/sledge/internal/workload/tprocc"
)

// addedTables are CH-benCHmark's own tables, in load order.
var addedTables = []string{"region", "nation", "supplier"}

// The build's record is a key of TPROC-C's sledge_meta: "chbench" is
// "loading" while the added tables are made and "ready" once they are, so
// that a TPROC-C build is told from a CH-benCHmark one, and an unfinished
// one from a finished one.
const (
	metaKey      = "chbench"
	stateLoading = "loading"
	stateReady   = "ready"
)

// BuildOptions configure a build: TPROC-C's (warehouses, workers, seed,
// force …), whose schema and data come first, then the added tables.
type BuildOptions struct {
	tprocc.BuildOptions
}

// BuildReport is TPROC-C's with the added tables' rows counted in.
type BuildReport = tprocc.BuildReport

// Build builds TPROC-C with o (tprocc.Build, at its bulk speed) and adds
// SUPPLIER, NATION and REGION, drawn from the same seed. With Force an
// existing schema goes first, the added tables too; without it, a database
// that holds either is refused. Only a whole build is possible (o.Part
// empty): the added tables are made once, after the load.
func Build(ctx context.Context, drv db.Driver, t db.Target, o BuildOptions) (BuildReport, error) {
	start := time.Now()
	if o.Part != tprocc.PartWhole {
		return BuildReport{}, errors.New("a CH-benCHmark build is made by one process: it has no parts")
	}
	c, err := drv.Connect(ctx, t, db.Options{Bulk: true, AppName: "sledge build"})
	if err != nil {
		return BuildReport{}, err
	}
	defer c.Close(context.WithoutCancel(ctx))
	kind := drv.Kind()
	if _, err := dialect(kind); err != nil {
		return BuildReport{}, err
	}
	n, err := workload.CountTables(ctx, c, kind, addedTables)
	if err != nil {
		return BuildReport{}, err
	}
	if n > 0 {
		if !o.Force {
			return BuildReport{}, &workload.SchemaError{Err: workload.ErrSchemaExists, Workload: Name,
				Msg: "database already holds CH-benCHmark's tables (" + strings.Join(addedTables, ", ") + ")"}
		}
		if err := dropAdded(ctx, c, kind); err != nil {
			return BuildReport{}, err
		}
	}
	rep, err := tprocc.Build(ctx, drv, t, o.BuildOptions)
	if err != nil {
		return rep, err
	}
	if err := addTables(ctx, c, kind, o.Seed, &rep); err != nil {
		return rep, err
	}
	rep.Duration = time.Since(start)
	return rep, nil
}

// addTables creates and loads the added tables on c, gathers their
// statistics and marks the build ready.
func addTables(ctx context.Context, c db.Conn, kind db.Kind, seed uint64, rep *BuildReport) error {
	if _, err := c.Exec(ctx, `INSERT INTO sledge_meta ("key", value) VALUES ('`+metaKey+`', '`+stateLoading+`')`); err != nil {
		return fmt.Errorf("record the CH-benCHmark build in sledge_meta: %w", err)
	}
	schema, err := statements(kind, "schema")
	if err != nil {
		return err
	}
	for _, s := range schema {
		if _, err := c.Exec(ctx, s.SQL); err != nil {
			return fmt.Errorf("create table %s: %w", s.Name, err)
		}
	}
	for _, tb := range []struct {
		name string
		rows []row
	}{{"region", regionRows(seed)}, {"nation", nationRows(seed)}, {"supplier", supplierRows(seed)}} {
		if err := insertRows(ctx, c, tb.name, tb.rows); err != nil {
			return err
		}
		rep.Tables[tb.name] = int64(len(tb.rows))
		rep.Rows += int64(len(tb.rows))
	}
	for _, tb := range addedTables {
		q := "VACUUM (FREEZE, ANALYZE) " + tb
		switch kind {
		case db.MySQL:
			q = "ANALYZE TABLE " + tb
		case db.SQLite:
			q = "ANALYZE " + tb
		}
		if _, err := c.Exec(ctx, q); err != nil {
			return fmt.Errorf("analyze %s: %w", tb, err)
		}
	}
	if _, err := c.Exec(ctx, `UPDATE sledge_meta SET value = '`+stateReady+`' WHERE "key" = '`+metaKey+`'`); err != nil {
		return fmt.Errorf("mark the CH-benCHmark build finished in sledge_meta: %w", err)
	}
	return nil
}

// insertBatch is how many rows one INSERT carries: the added tables are
// small (10,067 rows), so multi-row INSERTs of literals are as fast as a
// stream and run the same on every database.
const insertBatch = 500

func insertRows(ctx context.Context, c db.Conn, table string, rows []row) error {
	for len(rows) > 0 {
		n := min(insertBatch, len(rows))
		var b strings.Builder
		b.WriteString("INSERT INTO " + table + " VALUES ")
		for i, r := range rows[:n] {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(" + strings.Join(r, ", ") + ")")
		}
		if _, err := c.Exec(ctx, b.String()); err != nil {
			return fmt.Errorf("load %s: %w", table, err)
		}
		rows = rows[n:]
	}
	return nil
}

// dropAdded drops the added tables.
func dropAdded(ctx context.Context, c db.Conn, kind db.Kind) error {
	stmts, err := statements(kind, "drop")
	if err != nil {
		return err
	}
	for _, s := range stmts {
		if _, err := c.Exec(ctx, s.SQL); err != nil {
			return fmt.Errorf("drop %s: %w", s.Name, err)
		}
	}
	return nil
}

// Drop removes everything a build made: the added tables, then TPROC-C's
// schema (tprocc.Drop). A partial build is droppable too.
func Drop(ctx context.Context, c db.Conn, kind db.Kind) error {
	if err := dropAdded(ctx, c, kind); err != nil {
		return err
	}
	return tprocc.Drop(ctx, c, kind)
}

// buildState is the CH-benCHmark record in sledge_meta: "" when there is
// none (no sledge_meta, or a TPROC-C build only).
func buildState(ctx context.Context, c db.Conn, kind db.Kind) (string, error) {
	n, err := workload.CountTables(ctx, c, kind, []string{"sledge_meta"})
	if err != nil || n == 0 {
		return "", err
	}
	var state string
	err = c.QueryRow(ctx, `SELECT value FROM sledge_meta WHERE "key" = '`+metaKey+`'`).Scan(&state)
	if errors.Is(err, db.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read sledge_meta: %w", err)
	}
	return state, nil
}
