package pgbench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/workload"
)

// Rows per scale unit, as pgbench -i loads them.
const (
	branchesPerScale = 1
	tellersPerScale  = 10
	accountsPerScale = 100000
	// bigAIDScale is the scale from which aid is a bigint: from there the
	// accounts outnumber what an int holds.
	bigAIDScale = 20000
)

// Partition methods of pgbench_accounts (PostgreSQL only).
const (
	PartitionRange = "range"
	PartitionHash  = "hash"
)

// BuildOptions are pgbench -i's options.
type BuildOptions struct {
	Scale int64
	// Fillfactor of branches, tellers and accounts (0: the server's, 100).
	Fillfactor int
	// ForeignKeys adds pgbench's foreign keys after the load.
	ForeignKeys bool
	// Partitions splits pgbench_accounts into that many partitions by
	// PartitionMethod (0: not partitioned).
	Partitions      int
	PartitionMethod string
	// Force drops an existing pgbench schema first.
	Force bool
	// Progress receives the build's progress; nil: nobody listens.
	Progress func(workload.Progress)
}

// tables are the pgbench tables in load order.
var tables = []string{"pgbench_branches", "pgbench_tellers", "pgbench_accounts", "pgbench_history"}

// metaTable is the build's record: its own table, so that a pgbench build
// shares a database with a TPROC-C one (whose record is sledge_meta)
// without either mistaking the other's for its own.
const metaTable = "sledge_pgbench_meta"

// metaState values: "loading" until the build's last step, then "ready".
const (
	stateLoading = "loading"
	stateReady   = "ready"
)

// Build creates pgbench's tables on t and loads them: one session, the
// rows streamed with COPY (PostgreSQL) or LOAD DATA LOCAL INFILE
// (MariaDB/MySQL), batched INSERTs in one transaction on SQLite.
func Build(ctx context.Context, drv db.Driver, t db.Target, o BuildOptions) (workload.BuildReport, error) {
	start := time.Now()
	kind := drv.Kind()
	if _, err := dialect(kind); err != nil {
		return workload.BuildReport{}, err
	}
	if err := o.check(kind); err != nil {
		return workload.BuildReport{}, err
	}
	progress := o.Progress
	if progress == nil {
		progress = func(workload.Progress) {}
	}
	c, err := drv.Connect(ctx, t, db.Options{Bulk: true, AppName: "sledge build"})
	if err != nil {
		return workload.BuildReport{}, err
	}
	defer c.Close(context.WithoutCancel(ctx))
	exists, err := schemaExists(ctx, c, kind)
	if err != nil {
		return workload.BuildReport{}, err
	}
	if exists {
		if !o.Force {
			return workload.BuildReport{}, &workload.SchemaError{Err: workload.ErrSchemaExists, Workload: Name,
				Msg: "database already holds a pgbench schema (" + strings.Join(tables, ", ") + ")"}
		}
		progress(workload.Progress{Phase: "drop"})
		if err := Drop(ctx, c, kind); err != nil {
			return workload.BuildReport{}, err
		}
	}
	progress(workload.Progress{Phase: "schema"})
	if err := createMeta(ctx, c, kind, o); err != nil {
		return workload.BuildReport{}, err
	}
	if err := createTables(ctx, c, kind, o); err != nil {
		return workload.BuildReport{}, err
	}
	rep := workload.BuildReport{Size: sizeName(o.Scale), Workers: 1, Tables: map[string]int64{}}
	total := o.Scale * (branchesPerScale + tellersPerScale + accountsPerScale)
	var done int64
	for _, tb := range tables[:3] {
		progress(workload.Progress{Phase: "load", RowsDone: done, RowsTotal: total, Table: tb})
		n, err := load(ctx, c, kind, tb, o.Scale)
		if err != nil {
			return rep, fmt.Errorf("load %s: %w", tb, err)
		}
		rep.Tables[tb], rep.Rows, done = n, rep.Rows+n, done+n
	}
	rep.Tables["pgbench_history"] = 0
	progress(workload.Progress{Phase: "load", RowsDone: done, RowsTotal: total, Table: tables[2]})
	progress(workload.Progress{Phase: "index", RowsTotal: total})
	if err := execFile(ctx, c, kind, "keys", "add primary key"); err != nil {
		return rep, err
	}
	if o.ForeignKeys {
		if err := execFile(ctx, c, kind, "foreign_keys", "add foreign key"); err != nil {
			return rep, err
		}
	}
	progress(workload.Progress{Phase: "analyze", RowsTotal: total})
	if err := analyze(ctx, c, kind); err != nil {
		return rep, err
	}
	if _, err := c.Exec(ctx, `UPDATE `+metaTable+` SET value = '`+stateReady+`' WHERE "key" = 'state'`); err != nil {
		return rep, fmt.Errorf("mark the pgbench build finished in %s: %w", metaTable, err)
	}
	if v, err := drv.Version(ctx, c); err == nil {
		rep.Version = v
	}
	rep.Duration = time.Since(start)
	return rep, nil
}

// check refuses options the database cannot honour.
func (o BuildOptions) check(kind db.Kind) error {
	var errs []error
	if o.Scale < 1 {
		errs = append(errs, fmt.Errorf("scale must be a whole number of at least 1 (got %d)", o.Scale))
	}
	if o.Fillfactor != 0 && (o.Fillfactor < 10 || o.Fillfactor > 100) {
		errs = append(errs, fmt.Errorf("fillfactor must be in 10..100 (got %d)", o.Fillfactor))
	}
	if o.Partitions < 0 {
		errs = append(errs, fmt.Errorf("partitions must not be negative (got %d)", o.Partitions))
	}
	switch o.PartitionMethod {
	case "", PartitionRange, PartitionHash:
	default:
		errs = append(errs, fmt.Errorf("partition method %q: want range or hash", o.PartitionMethod))
	}
	if kind != db.Postgres && o.Fillfactor != 0 {
		errs = append(errs, fmt.Errorf("fillfactor applies to PostgreSQL only, not %s", kind))
	}
	if kind != db.Postgres && o.Partitions > 0 {
		errs = append(errs, fmt.Errorf("partitions apply to PostgreSQL only, not %s", kind))
	}
	if kind == db.SQLite && o.ForeignKeys {
		errs = append(errs, errors.New("foreign keys: SQLite cannot add them to the loaded tables"))
	}
	return errors.Join(errs...)
}

// sizeName names a build's size.
func sizeName(scale int64) string { return "scale " + strconv.FormatInt(scale, 10) }

// createMeta creates the build's record, state "loading".
func createMeta(ctx context.Context, c db.Conn, kind db.Kind, o BuildOptions) error {
	if _, err := c.Exec(ctx, `CREATE TABLE `+metaTable+` ("key" varchar(64) NOT NULL PRIMARY KEY, value varchar(255) NOT NULL)`); err != nil {
		return fmt.Errorf("create %s: %w", metaTable, err)
	}
	method := o.PartitionMethod
	if o.Partitions == 0 {
		method = ""
	}
	kv := [][2]string{
		{"workload", Name},
		{"scale", strconv.FormatInt(o.Scale, 10)},
		{"fillfactor", strconv.Itoa(o.Fillfactor)},
		{"foreign_keys", strconv.FormatBool(o.ForeignKeys)},
		{"partitions", strconv.Itoa(o.Partitions)},
		{"partition_method", method},
		{"built_at", time.Now().UTC().Format(time.RFC3339)},
		{"state", stateLoading},
	}
	q := `INSERT INTO ` + metaTable + ` ("key", value) VALUES ($1, $2)`
	if kind == db.SQLite {
		q = `INSERT INTO ` + metaTable + ` ("key", value) VALUES (?1, ?2)`
	}
	for _, p := range kv {
		if _, err := c.Exec(ctx, q, p[0], p[1]); err != nil {
			return fmt.Errorf("write %s %s: %w", metaTable, p[0], err)
		}
	}
	return nil
}

// createTables runs schema.sql with the build's column type of aid and, on
// PostgreSQL, its fillfactor and the partitioning of pgbench_accounts.
func createTables(ctx context.Context, c db.Conn, kind db.Kind, o BuildOptions) error {
	stmts, err := statements(kind, "schema")
	if err != nil {
		return err
	}
	aid := "int"
	if o.Scale >= bigAIDScale {
		aid = "bigint"
	}
	for _, s := range stmts {
		q := strings.TrimSuffix(strings.TrimSpace(strings.ReplaceAll(s.SQL, "{aid}", aid)), ";")
		partitioned := s.Name == "pgbench_accounts" && o.Partitions > 0
		if partitioned {
			method := o.PartitionMethod
			if method == "" {
				method = PartitionRange
			}
			q += " PARTITION BY " + strings.ToUpper(method) + " (aid)"
		} else if o.Fillfactor > 0 && s.Name != "pgbench_history" {
			q += " WITH (fillfactor = " + strconv.Itoa(o.Fillfactor) + ")"
		}
		if _, err := c.Exec(ctx, q); err != nil {
			return fmt.Errorf("create table %s: %w", s.Name, err)
		}
		if partitioned {
			if err := createPartitions(ctx, c, o); err != nil {
				return err
			}
		}
	}
	return nil
}

// createPartitions creates pgbench_accounts' partitions as pgbench does:
// by range, equal spans of aid, the first from MINVALUE and the last to
// MAXVALUE; by hash, one per remainder.
func createPartitions(ctx context.Context, c db.Conn, o BuildOptions) error {
	n := int64(o.Partitions)
	accounts := o.Scale * accountsPerScale
	span := (accounts + n - 1) / n
	with := ""
	if o.Fillfactor > 0 {
		with = " WITH (fillfactor = " + strconv.Itoa(o.Fillfactor) + ")"
	}
	for p := int64(1); p <= n; p++ {
		var bounds string
		if o.PartitionMethod == PartitionHash {
			bounds = fmt.Sprintf("WITH (MODULUS %d, REMAINDER %d)", n, p-1)
		} else {
			from, to := "MINVALUE", "MAXVALUE"
			if p > 1 {
				from = strconv.FormatInt((p-1)*span+1, 10)
			}
			if p < n {
				to = strconv.FormatInt(p*span+1, 10)
			}
			bounds = "FROM (" + from + ") TO (" + to + ")"
		}
		q := fmt.Sprintf("CREATE TABLE pgbench_accounts_%d PARTITION OF pgbench_accounts FOR VALUES %s%s", p, bounds, with)
		if _, err := c.Exec(ctx, q); err != nil {
			return fmt.Errorf("create partition pgbench_accounts_%d: %w", p, err)
		}
	}
	return nil
}

// rowsOf is how many rows table holds after a build at scale, and its
// columns as loaded.
func rowsOf(table string, scale int64) (int64, string) {
	switch table {
	case "pgbench_branches":
		return scale * branchesPerScale, "bid, bbalance, filler"
	case "pgbench_tellers":
		return scale * tellersPerScale, "tid, bid, tbalance, filler"
	}
	return scale * accountsPerScale, "aid, bid, abalance, filler"
}

// appendRow appends row i (0-based) of table in COPY text format: as
// pgbench loads them, balances 0, the filler of branches and tellers NULL
// and that of accounts empty (blank-padded by its char type).
func appendRow(b []byte, table string, i int64) []byte {
	b = strconv.AppendInt(b, i+1, 10)
	switch table {
	case "pgbench_branches":
		return append(b, "\t0\t\\N\n"...)
	case "pgbench_tellers":
		b = append(b, '\t')
		b = strconv.AppendInt(b, i/(tellersPerScale/branchesPerScale)+1, 10)
		return append(b, "\t0\t\\N\n"...)
	}
	b = append(b, '\t')
	b = strconv.AppendInt(b, i/accountsPerScale+1, 10)
	return append(b, "\t0\t\n"...)
}

// load loads one table's rows.
func load(ctx context.Context, c db.Conn, kind db.Kind, table string, scale int64) (int64, error) {
	rows, cols := rowsOf(table, scale)
	if cp, ok := c.(db.TextCopier); ok {
		pr, pw := io.Pipe()
		go func() {
			w := bufio.NewWriterSize(pw, 64<<10)
			var b []byte
			for i := range rows {
				if i%4096 == 0 && ctx.Err() != nil {
					pw.CloseWithError(ctx.Err())
					return
				}
				b = appendRow(b[:0], table, i)
				if _, err := w.Write(b); err != nil {
					pw.CloseWithError(err)
					return
				}
			}
			pw.CloseWithError(w.Flush())
		}()
		n, err := cp.CopyText(ctx, "COPY "+table+" ("+cols+") FROM STDIN", pr)
		pr.CloseWithError(errors.New("load ended"))
		if err == nil && n != rows {
			err = fmt.Errorf("the server stored %d of the %d rows sent", n, rows)
		}
		return n, err
	}
	return insertRows(ctx, c, table, cols, rows)
}

// insertBatch is how many rows one INSERT of the insert path carries.
const insertBatch = 500

// insertRows loads a table with multi-row INSERTs of literals in one
// transaction (SQLite: one commit, not one per statement).
func insertRows(ctx context.Context, c db.Conn, table, cols string, rows int64) (int64, error) {
	if err := c.Begin(ctx, false); err != nil {
		return 0, err
	}
	var b strings.Builder
	for first := int64(0); first < rows; first += insertBatch {
		b.Reset()
		b.WriteString("INSERT INTO " + table + " (" + cols + ") VALUES ")
		for i := first; i < min(rows, first+insertBatch); i++ {
			if i > first {
				b.WriteString(", ")
			}
			switch table {
			case "pgbench_branches":
				fmt.Fprintf(&b, "(%d, 0, NULL)", i+1)
			case "pgbench_tellers":
				fmt.Fprintf(&b, "(%d, %d, 0, NULL)", i+1, i/(tellersPerScale/branchesPerScale)+1)
			default:
				fmt.Fprintf(&b, "(%d, %d, 0, '')", i+1, i/accountsPerScale+1)
			}
		}
		if _, err := c.Exec(ctx, b.String()); err != nil {
			_ = c.Rollback(context.WithoutCancel(ctx))
			return 0, err
		}
	}
	if err := c.Commit(ctx); err != nil {
		return 0, err
	}
	return rows, nil
}

// analyze gathers the tables' statistics (PostgreSQL: VACUUM ANALYZE, as
// pgbench -i's vacuum step).
func analyze(ctx context.Context, c db.Conn, kind db.Kind) error {
	for _, tb := range tables {
		q := "VACUUM ANALYZE " + tb
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
	return nil
}

// execFile runs every statement of one kind of file.
func execFile(ctx context.Context, c db.Conn, kind db.Kind, file, what string) error {
	stmts, err := statements(kind, file)
	if err != nil {
		return err
	}
	for _, s := range stmts {
		if _, err := c.Exec(ctx, s.SQL); err != nil {
			return fmt.Errorf("%s %s: %w", what, s.Name, err)
		}
	}
	return nil
}

// Drop removes every table a build made, its record included; a partial
// build is droppable too.
func Drop(ctx context.Context, c db.Conn, kind db.Kind) error {
	return execFile(ctx, c, kind, "drop", "drop")
}

// schemaExists reports whether any pgbench table, or the build's record,
// is there (a partial build counts).
func schemaExists(ctx context.Context, c db.Conn, kind db.Kind) (bool, error) {
	n, err := workload.CountTables(ctx, c, kind, append([]string{metaTable}, tables...))
	return n > 0, err
}

// Meta is what a build recorded.
type Meta struct {
	Scale           int64
	Fillfactor      int
	ForeignKeys     bool
	Partitions      int
	PartitionMethod string
	State           string
}

// ReadMeta reads the build's record. A database without it, or with a
// build that did not finish, is a workload.SchemaError.
func ReadMeta(ctx context.Context, c db.Conn, kind db.Kind) (Meta, error) {
	n, err := workload.CountTables(ctx, c, kind, []string{metaTable})
	if err != nil {
		return Meta{}, err
	}
	if n == 0 {
		return Meta{}, &workload.SchemaError{Err: workload.ErrNoSchema, Workload: Name,
			Msg: "no pgbench schema found: the database holds no pgbench build record (" + metaTable + ")"}
	}
	rows, err := c.Query(ctx, `SELECT "key", value FROM `+metaTable)
	if err != nil {
		return Meta{}, fmt.Errorf("read %s: %w", metaTable, err)
	}
	kv := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return Meta{}, fmt.Errorf("read %s: %w", metaTable, err)
		}
		kv[k] = v
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return Meta{}, fmt.Errorf("read %s: %w", metaTable, err)
	}
	if kv["state"] != stateReady {
		return Meta{}, &workload.SchemaError{Err: workload.ErrSchemaUnusable, Workload: Name,
			Msg: "the pgbench build did not finish"}
	}
	m := Meta{State: kv["state"], PartitionMethod: kv["partition_method"]}
	var errs []error
	if m.Scale, err = strconv.ParseInt(kv["scale"], 10, 64); err != nil || m.Scale < 1 {
		errs = append(errs, fmt.Errorf("scale: %q is not a scale", kv["scale"]))
	}
	if m.Fillfactor, err = strconv.Atoi(kv["fillfactor"]); err != nil {
		errs = append(errs, fmt.Errorf("fillfactor: %q is not a number", kv["fillfactor"]))
	}
	if m.Partitions, err = strconv.Atoi(kv["partitions"]); err != nil {
		errs = append(errs, fmt.Errorf("partitions: %q is not a number", kv["partitions"]))
	}
	m.ForeignKeys = kv["foreign_keys"] == "true"
	if err := errors.Join(errs...); err != nil {
		return Meta{}, fmt.Errorf("%s: %w", metaTable, err)
	}
	return m, nil
}
