package tprocc

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/workload"
)

// sledge_meta is a key/value table written by the build. It lets a run find
// the build's parameters (warehouses, C_LOAD for the C_RUN rule) and lets
// check know whether the data is still as loaded.

// buildFormat is the version of the generator's output. Bump it whenever the
// same seed would produce different rows, so a check can tell whether it may
// recompute the exact expected row counts.
const buildFormat = 1

// Meta is what the build recorded.
type Meta struct {
	Warehouses int
	Seed       uint64
	CLoad      int
	BuiltAt    time.Time
	// Dirty is set by the first run: the data no longer is the initial
	// population (condition 11 and the exact row counts no longer hold).
	Dirty bool
	// Format is the generator's version at build time (buildFormat).
	Format int
}

// metaState values: a build writes "loading" first and "ready" after the
// last step, so an interrupted build is recognised as such.
const (
	stateLoading = "loading"
	stateReady   = "ready"
)

// schemaTables are the tables Sledge creates for TPROC-C, sledge_meta
// included.
var schemaTables = []string{"warehouse", "district", "customer", "history", "new_order", "orders",
	"order_line", "item", "stock", "sledge_meta"}

// SchemaExists reports whether any TPROC-C table (or sledge_meta) exists:
// a partial schema left by an interrupted build counts.
func SchemaExists(ctx context.Context, conn db.Conn, kind db.Kind) (bool, error) {
	n, err := workload.CountTables(ctx, conn, kind, schemaTables)
	if err != nil {
		return false, err
	}
	return n > 0, nil
}

// describe works out which kind of database a session is on and a name for
// it in messages (the database name, or the SQLite file). current_database()
// exists only on PostgreSQL, DATABASE() only on MariaDB/MySQL; each fails
// harmlessly elsewhere.
func describe(ctx context.Context, conn db.Conn) (db.Kind, string, error) {
	var name string
	if err := conn.QueryRow(ctx, "SELECT current_database()").Scan(&name); err == nil {
		return db.Postgres, "database " + strconv.Quote(name), nil
	}
	if err := conn.QueryRow(ctx, "SELECT DATABASE()").Scan(&name); err == nil {
		return db.MySQL, "database " + strconv.Quote(name), nil
	}
	if err := conn.QueryRow(ctx, "SELECT file FROM pragma_database_list WHERE name = 'main'").Scan(&name); err != nil {
		return "", "", fmt.Errorf("identify the database: %w", err)
	}
	if name == "" {
		name = "(in-memory database)"
	}
	return db.SQLite, name, nil
}

// ErrNoSchema is wrapped by ReadMeta's error (a workload.SchemaError) when
// the database holds no TPROC-C schema.
var ErrNoSchema = workload.ErrNoSchema

// ReadMeta reads what the build recorded. A database without the schema, or
// with a build that never finished, is a workload.SchemaError: the front end
// says what to do.
func ReadMeta(ctx context.Context, conn db.Conn) (Meta, error) {
	kind, name, err := describe(ctx, conn)
	if err != nil {
		return Meta{}, err
	}
	n, err := workload.CountTables(ctx, conn, kind, []string{"sledge_meta"})
	if err != nil {
		return Meta{}, err
	}
	if n == 0 {
		return Meta{}, &workload.SchemaError{Err: ErrNoSchema, Workload: Name,
			Msg: fmt.Sprintf("no TPROC-C schema found in %s", name)}
	}
	rows, err := conn.Query(ctx, `SELECT "key", value FROM sledge_meta`)
	if err != nil {
		return Meta{}, fmt.Errorf("read sledge_meta in %s: %w", name, err)
	}
	kv := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return Meta{}, fmt.Errorf("read sledge_meta in %s: %w", name, err)
		}
		kv[k] = v
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return Meta{}, fmt.Errorf("read sledge_meta in %s: %w", name, err)
	}
	if w := kv["workload"]; w != "tprocc" {
		return Meta{}, &workload.SchemaError{Err: workload.ErrSchemaUnusable, Workload: Name,
			Msg: fmt.Sprintf("no TPROC-C schema found in %s: sledge_meta describes workload %q", name, w)}
	}
	if kv["state"] != stateReady {
		return Meta{}, &workload.SchemaError{Err: workload.ErrSchemaUnusable, Workload: Name,
			Msg: fmt.Sprintf("the TPROC-C build in %s did not finish", name)}
	}
	m, err := parseMeta(kv)
	if err != nil {
		return Meta{}, fmt.Errorf("sledge_meta in %s: %w", name, err)
	}
	return m, nil
}

func parseMeta(kv map[string]string) (Meta, error) {
	var (
		m    Meta
		errs []error
	)
	num := func(key string) int64 {
		v, err := strconv.ParseInt(kv[key], 10, 64)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %q is not a number", key, kv[key]))
		}
		return v
	}
	m.Warehouses = int(num("warehouses"))
	m.CLoad = int(num("c_load"))
	m.Format = int(num("format"))
	m.Dirty = num("dirty") != 0
	seed, err := strconv.ParseUint(kv["seed"], 10, 64)
	if err != nil {
		errs = append(errs, fmt.Errorf("seed: %q is not a number", kv["seed"]))
	}
	m.Seed = seed
	if m.BuiltAt, err = time.Parse(time.RFC3339, kv["built_at"]); err != nil {
		errs = append(errs, fmt.Errorf("built_at: %q is not a time", kv["built_at"]))
	}
	if m.Warehouses < 1 {
		errs = append(errs, fmt.Errorf("warehouses: %d", m.Warehouses))
	}
	return m, errors.Join(errs...)
}

// The column "key" is quoted: it is a reserved word on MariaDB/MySQL (whose
// sessions run with ANSI_QUOTES).

// writeMeta records a build starting: state "loading" until markReady.
func writeMeta(ctx context.Context, conn db.Conn, kind db.Kind, m Meta) error {
	kv := [][2]string{
		{"workload", "tprocc"},
		{"format", strconv.Itoa(m.Format)},
		{"warehouses", strconv.Itoa(m.Warehouses)},
		{"seed", strconv.FormatUint(m.Seed, 10)},
		{"c_load", strconv.Itoa(m.CLoad)},
		{"built_at", m.BuiltAt.UTC().Format(time.RFC3339)},
		{"dirty", "0"},
		{"state", stateLoading},
	}
	q := `INSERT INTO sledge_meta ("key", value) VALUES ($1, $2)`
	if kind == db.SQLite {
		q = `INSERT INTO sledge_meta ("key", value) VALUES (?1, ?2)`
	}
	for _, p := range kv {
		if _, err := conn.Exec(ctx, q, p[0], p[1]); err != nil {
			return fmt.Errorf("write sledge_meta %s: %w", p[0], err)
		}
	}
	return nil
}

// markReady records that the build finished.
func markReady(ctx context.Context, conn db.Conn) error {
	if _, err := conn.Exec(ctx, `UPDATE sledge_meta SET value = '`+stateReady+`' WHERE "key" = 'state'`); err != nil {
		return fmt.Errorf("mark the build finished in sledge_meta: %w", err)
	}
	return nil
}

// MarkDirty records that the data has been changed by a run: from now on the
// initial-population checks (condition 11, exact row counts) do not apply.
func MarkDirty(ctx context.Context, conn db.Conn) error {
	if _, err := conn.Exec(ctx, `UPDATE sledge_meta SET value = '1' WHERE "key" = 'dirty'`); err != nil {
		return fmt.Errorf("mark the TPROC-C data as used in sledge_meta: %w", err)
	}
	return nil
}
