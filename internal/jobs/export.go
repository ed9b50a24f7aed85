package jobs

// Results that travel: Export writes jobs with everything recorded with
// them into one self-describing file, and Import loads such a file into any
// repository (SQLite or PostgreSQL) as read-only jobs with new ids and
// their origin.
//
// The file holds the job's rows table by table, as stored, with each
// table's column names and types: what the repository keeps is the typed
// result already (numbers, encoded histograms, series), so a row dump is
// complete by construction — a column or table added by a later schema
// version travels without a change here, and nothing is lost by a round
// trip through Go types. Tables are discovered from the repository's
// catalogue and listed in exportTables; TestExportCoversEverySchemaTable
// fails when a table is neither exported nor named in notJobData.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// The file's format name and version. Version 1: a JSON document, one
// object (ExportFile). A reader refuses a version it does not know: a later
// version may mean something else by the same fields.
const (
	ExportFormat  = "sledge-jobs"
	ExportVersion = 1
)

// ExportFile is an exported file: the jobs of one repository, with where
// and by which Sledge they were exported.
type ExportFile struct {
	Format  string `json:"format"`  // ExportFormat
	Version int    `json:"version"` // ExportVersion
	// SchemaVersion is the exporting repository's schema version: the
	// tables and columns of the jobs are those of that version.
	SchemaVersion int    `json:"schema_version"`
	SledgeVersion string `json:"sledge_version"`
	ExportedAt    string `json:"exported_at"` // RFC 3339, UTC
	Host          string `json:"host"`        // the exporting machine
	// Repository names the exporting repository without what would
	// identify a person or give access: a file's base name, a URL without
	// its user, password and parameters.
	Repository string        `json:"repository"`
	Jobs       []ExportedJob `json:"jobs"`
}

// ExportedJob is one job: its rows, table by table, parents first.
type ExportedJob struct {
	ID int64 `json:"id"` // in the exporting repository
	// Origin is where the job was first recorded, when the exporting
	// repository had imported it; absent for a job recorded there.
	Origin *Origin         `json:"origin,omitempty"`
	Tables []ExportedTable `json:"tables"`
}

// ExportedTable is a table's rows of one job. Types are per column: int,
// real, text or blob. A blob is a string of its bytes when they are
// printable ASCII — the repository's blobs are hdrhistogram-go V2
// encodings, base64 text, written as they are stored — else an object
// {"base64": …}. A boolean is an int (0 or 1), as SQLite stores it; null
// is a value that is NULL (not measured).
type ExportedTable struct {
	Name    string   `json:"name"`
	Columns []string `json:"columns"`
	Types   []string `json:"types"`
	Rows    [][]any  `json:"rows"`
}

// Origin is where an imported job was recorded and exported.
type Origin struct {
	ID            int64     `json:"id"` // its id there
	Host          string    `json:"host"`
	Repository    string    `json:"repository"`
	SledgeVersion string    `json:"sledge_version"`
	ExportedAt    time.Time `json:"exported_at"`
	// ImportedAt is when it was imported into this repository (not in
	// the file).
	ImportedAt time.Time `json:"-"`
}

// exportTables are the tables of a job's data in the order they are
// written and loaded, parents before children: job, then the children
// (childTables) in the reverse of the order Delete empties them.
func exportTables() []string {
	out := []string{"job"}
	for i := len(childTables) - 1; i >= 0; i-- {
		if t := childTables[i]; !slices.Contains(notJobData, t) {
			out = append(out, t)
		}
	}
	return out
}

// notJobData are the repository's tables whose rows are not exported as
// rows: the schema version, and the origin of an imported job (exported as
// ExportedJob.Origin).
var notJobData = []string{"sledge_schema", "job_origin"}

// column classes of ExportedTable.Types.
const (
	colInt  = "int"
	colReal = "real"
	colText = "text"
	colBlob = "blob"
	colBool = "bool" // PostgreSQL's boolean; written and read as int
)

type tableColumns struct {
	names, classes []string
}

// columnsOf reads the columns of table from the repository's catalogue, in
// their order.
func columnsOf(ctx context.Context, tx *repoTx, table string) (tableColumns, error) {
	var q string
	if tx.d == postgresDialect {
		q = `SELECT column_name, data_type FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position`
	} else {
		q = "SELECT name, type FROM pragma_table_info(?) ORDER BY cid"
	}
	var tc tableColumns
	err := eachRowArgs(ctx, tx, q, []any{table}, func(rows *sql.Rows) error {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return err
		}
		class, ok := map[string]string{"INTEGER": colInt, "REAL": colReal, "TEXT": colText, "BLOB": colBlob,
			"bigint": colInt, "boolean": colBool, "double precision": colReal, "text": colText, "bytea": colBlob}[typ]
		if !ok {
			return fmt.Errorf("column %s.%s has type %q", table, name, typ)
		}
		tc.names, tc.classes = append(tc.names, name), append(tc.classes, class)
		return nil
	})
	if err == nil && len(tc.names) == 0 {
		err = fmt.Errorf("no table %s in the repository", table)
	}
	return tc, err
}

// Export reads jobs ids with everything recorded with them, for WriteExport.
// A running job is refused: what it will record is not there yet. Text is
// redacted once more on the way out (as on the way in), so that no
// password leaves even from a repository an older Sledge wrote.
func (r *Repo) Export(ctx context.Context, ids []int64, sledgeVersion string, now time.Time) (*ExportFile, error) {
	host := r.host
	f := &ExportFile{Format: ExportFormat, Version: ExportVersion, SchemaVersion: SchemaVersion,
		SledgeVersion: sledgeVersion, ExportedAt: fmtTime(now), Host: host, Repository: r.originName(), Jobs: []ExportedJob{}}
	err := r.readTx(ctx, "export jobs", func(tx *repoTx) error {
		cols := map[string]tableColumns{}
		for _, t := range exportTables() {
			c, err := columnsOf(ctx, tx, t)
			if err != nil {
				return err
			}
			cols[t] = c
		}
		for _, id := range ids {
			ej, err := exportJob(ctx, tx, id, cols)
			if err != nil {
				return err
			}
			f.Jobs = append(f.Jobs, ej)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

func exportJob(ctx context.Context, tx *repoTx, id int64, cols map[string]tableColumns) (ExportedJob, error) {
	var status string
	err := tx.QueryRowContext(ctx, "SELECT status FROM job WHERE id = ?", id).Scan(&status)
	if errors.Is(err, sql.ErrNoRows) {
		return ExportedJob{}, notFoundError{id}
	}
	if err != nil {
		return ExportedJob{}, err
	}
	if status == metrics.StatusRunning {
		return ExportedJob{}, fmt.Errorf("job %d is still running: export it once it has ended", id)
	}
	ej := ExportedJob{ID: id}
	if ej.Origin, err = originOf(ctx, tx, id); err != nil {
		return ExportedJob{}, err
	}
	for _, t := range exportTables() {
		c := cols[t]
		key := "job_id"
		if t == "job" {
			key = "id"
		}
		var order []string
		for i, class := range c.classes {
			if class != colBlob {
				order = append(order, fmt.Sprint(i+1))
			}
		}
		q := "SELECT " + strings.Join(c.names, ", ") + " FROM " + t + " WHERE " + key + " = ? ORDER BY " + strings.Join(order, ", ")
		et := ExportedTable{Name: t, Columns: c.names, Types: make([]string, len(c.classes)), Rows: [][]any{}}
		for i, class := range c.classes {
			et.Types[i] = class
			if class == colBool {
				et.Types[i] = colInt
			}
		}
		err := eachRowArgs(ctx, tx, q, []any{id}, func(rows *sql.Rows) error {
			vals := make([]any, len(c.names))
			ptrs := make([]any, len(vals))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				return err
			}
			for i, v := range vals {
				if vals[i], err = exportValue(t, c.names[i], c.classes[i], v); err != nil {
					return err
				}
			}
			if (t == "job_config" || t == "job_system") && len(vals) == 3 {
				// key, value: a setting whose name says it is a secret
				// is masked, as redactConfig does on the way in.
				if k, ok := vals[1].(string); ok && db.SecretName(k) && vals[2] != "" {
					vals[2] = db.Mask
				}
			}
			et.Rows = append(et.Rows, vals)
			return nil
		})
		if err != nil {
			return ExportedJob{}, fmt.Errorf("job %d: %s: %w", id, t, err)
		}
		if len(et.Rows) > 0 {
			ej.Tables = append(ej.Tables, et)
		}
	}
	return ej, nil
}

// exportValue is a scanned value as the file holds it.
func exportValue(table, col, class string, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	bad := func() (any, error) {
		return nil, fmt.Errorf("column %s.%s (%s) holds a %T", table, col, class, v)
	}
	switch class {
	case colInt, colBool:
		switch x := v.(type) {
		case int64:
			return x, nil
		case bool:
			return int64(boolInt(x)), nil
		}
		return bad()
	case colReal:
		switch x := v.(type) {
		case float64:
			return x, nil
		case int64:
			return float64(x), nil
		}
		return bad()
	case colText:
		switch x := v.(type) {
		case string:
			return redactText(x), nil
		case []byte:
			return redactText(string(x)), nil
		}
		return bad()
	default: // blob
		var b []byte
		switch x := v.(type) {
		case []byte:
			b = x
		case string:
			b = []byte(x)
		default:
			return bad()
		}
		if printableASCII(b) {
			return string(b), nil // an encoding, as stored
		}
		return map[string]string{"base64": base64.StdEncoding.EncodeToString(b)}, nil
	}
}

// printableASCII reports whether b is text that JSON carries as it is.
func printableASCII(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// originName is the repository as an export names it: a SQLite file's
// base name (its directory would name the user), a PostgreSQL URL's host,
// port and database (no user, password or parameters).
func (r *Repo) originName() string {
	if r.d != postgresDialect {
		return "sqlite:" + filepath.Base(r.path)
	}
	u, err := url.Parse(r.path)
	if err != nil {
		return "postgres"
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}

// originOf reads job id's origin; nil for a job recorded here.
func originOf(ctx context.Context, q queryer, id int64) (*Origin, error) {
	var (
		o                  Origin
		exported, imported string
	)
	err := q.QueryRowContext(ctx, `SELECT origin_id, host, repository, sledge_version, exported_at, imported_at
		FROM job_origin WHERE job_id = ?`, id).Scan(&o.ID, &o.Host, &o.Repository, &o.SledgeVersion, &exported, &imported)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if o.ExportedAt, err = parseTime(exported); err != nil {
		return nil, err
	}
	if o.ImportedAt, err = parseTime(imported); err != nil {
		return nil, err
	}
	return &o, nil
}

// WriteExport writes f as JSON, gzip-compressed when compress is set.
func WriteExport(w io.Writer, f *ExportFile, compress bool) error {
	bw := bufio.NewWriter(w)
	var out io.Writer = bw
	var zw *gzip.Writer
	if compress {
		zw = gzip.NewWriter(bw)
		out = zw
	}
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(f); err != nil {
		return fmt.Errorf("write export: %w", err)
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			return fmt.Errorf("write export: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write export: %w", err)
	}
	return nil
}

// CopyExport writes an export as WriteExport wrote it (data, uncompressed)
// to w, gzip-compressed when compress is set: the bytes a view of the
// export gives travel as they are, compressed or not by who asked.
func CopyExport(w io.Writer, data []byte, compress bool) error {
	if !compress {
		_, err := w.Write(data)
		return err
	}
	zw := gzip.NewWriter(w)
	if _, err := zw.Write(data); err != nil {
		return err
	}
	return zw.Close()
}

// CreateExport writes an export (CopyExport) to a new file at path,
// removing the file when writing fails: no half-written export is left
// behind for an import to trip on.
func CreateExport(path string, data []byte, compress bool) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = CopyExport(f, data, compress)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// ErrNotExport is matched (errors.Is) by ReadExport's error for input that
// is not an export of Sledge's, or one of a version this Sledge cannot
// read.
var ErrNotExport = errors.New("not a sledge jobs export this sledge can read")

type exportError struct{ msg string }

func (e exportError) Error() string        { return e.msg }
func (e exportError) Is(target error) bool { return target == ErrNotExport }

// ReadExport reads a file WriteExport wrote, gzip-compressed or not
// (recognised by its first bytes). A file of another format, or of a
// version or schema version newer than this Sledge knows, is refused with
// an error matching ErrNotExport that says so.
func ReadExport(r io.Reader) (*ExportFile, error) {
	br := bufio.NewReader(r)
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, exportError{"read export: " + err.Error()}
		}
		defer zr.Close()
		r = zr
	} else {
		r = br
	}
	dec := json.NewDecoder(r)
	dec.UseNumber() // ids and counts stay exact
	var f ExportFile
	if err := dec.Decode(&f); err != nil {
		return nil, exportError{"read export: not a sledge jobs export (" + err.Error() + ")"}
	}
	switch {
	case f.Format != ExportFormat:
		return nil, exportError{fmt.Sprintf("read export: format %q: not a sledge jobs export (want %q)", f.Format, ExportFormat)}
	case f.Version > ExportVersion:
		return nil, exportError{fmt.Sprintf("read export: file version %d is newer than this sledge reads (%d): upgrade sledge", f.Version, ExportVersion)}
	case f.Version < 1:
		return nil, exportError{fmt.Sprintf("read export: bad file version %d", f.Version)}
	case f.SchemaVersion > SchemaVersion:
		return nil, exportError{fmt.Sprintf("read export: the jobs were exported from schema version %d, newer than this sledge knows (%d): upgrade sledge", f.SchemaVersion, SchemaVersion)}
	}
	return &f, nil
}

// ReadExportFiles reads the exports named (ReadExport), every one before
// any is imported, so that a bad file imports nothing: "-" is stdin, a
// relative name is in dir. A file that is not an export is an error
// naming it as given.
func ReadExportFiles(dir string, stdin io.Reader, names []string) ([]*ExportFile, error) {
	files := make([]*ExportFile, 0, len(names))
	for _, name := range names {
		f, err := readExportFile(dir, stdin, name)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

func readExportFile(dir string, stdin io.Reader, name string) (*ExportFile, error) {
	in := stdin
	if name != "-" {
		path := filepath.Clean(name)
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		in = f
	}
	f, err := ReadExport(in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return f, nil
}

// Imported is one job loaded by Import: its id in the file's repository and
// its new id here.
type Imported struct {
	From, ID int64
	Origin   Origin
}

// ImportedError is the error for a change to an imported job (read-only:
// it can only be deleted).
type ImportedError struct{ ID int64 }

func (e *ImportedError) Error() string {
	return fmt.Sprintf("job %d was imported and is read-only (it can only be deleted)", e.ID)
}

// DuplicateError is Import's refusal of a job that was imported here
// before: the same job of the same host (same origin id and creation time).
type DuplicateError struct {
	Origin Origin
	ID     int64 // the job imported before
}

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("job %d of %s is already imported as job %d (delete that job to import it again)", e.Origin.ID, e.Origin.Host, e.ID)
}

// Import loads the jobs of f, all or none, as new read-only jobs marked
// with their origin, and returns them in the file's order. A job imported
// before is refused (*DuplicateError); so is a table or column this
// repository does not have (a file of a newer Sledge).
func (r *Repo) Import(ctx context.Context, f *ExportFile, now time.Time) ([]Imported, error) {
	if f.Version < 1 || f.Version > ExportVersion || f.Format != ExportFormat {
		return nil, exportError{fmt.Sprintf("import: format %q version %d: not a sledge jobs export this sledge reads", f.Format, f.Version)}
	}
	var out []Imported
	err := r.inTx(ctx, "import jobs", func(tx *repoTx) error {
		cols := map[string]tableColumns{}
		for _, t := range append(exportTables(), "job_origin") {
			c, err := columnsOf(ctx, tx, t)
			if err != nil {
				return err
			}
			cols[t] = c
		}
		for _, ej := range f.Jobs {
			im, err := importJob(ctx, tx, f, ej, cols, now)
			var dup *DuplicateError
			if errors.As(err, &dup) {
				return err // names the job
			}
			if err != nil {
				return fmt.Errorf("job %d of the file: %w", ej.ID, err)
			}
			out = append(out, im)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func importJob(ctx context.Context, tx *repoTx, f *ExportFile, ej ExportedJob, cols map[string]tableColumns, now time.Time) (Imported, error) {
	if len(ej.Tables) == 0 || ej.Tables[0].Name != "job" || len(ej.Tables[0].Rows) != 1 {
		return Imported{}, exportError{"import: the job's first table is not its job row"}
	}
	o := Origin{ID: ej.ID, Host: f.Host, Repository: f.Repository, SledgeVersion: f.SledgeVersion}
	var err error
	if o.ExportedAt, err = parseTime(f.ExportedAt); err != nil {
		return Imported{}, exportError{"import: " + err.Error()}
	}
	if ej.Origin != nil {
		o = *ej.Origin
	}
	job := ej.Tables[0]
	field := func(name string) any {
		if i := slices.Index(job.Columns, name); i >= 0 && i < len(job.Rows[0]) {
			return job.Rows[0][i]
		}
		return nil
	}
	if s, _ := field("status").(string); s == metrics.StatusRunning || s == "" {
		return Imported{}, exportError{fmt.Sprintf("import: job status %q: only a job that has ended can be imported", s)}
	}
	created, _ := field("created_at").(string)
	var dup int64
	err = tx.QueryRowContext(ctx, `SELECT o.job_id FROM job_origin o JOIN job j ON j.id = o.job_id
		WHERE o.origin_id = ? AND o.host = ? AND j.created_at = ?`, o.ID, o.Host, created).Scan(&dup)
	switch {
	case err == nil:
		return Imported{}, &DuplicateError{Origin: o, ID: dup}
	case !errors.Is(err, sql.ErrNoRows):
		return Imported{}, err
	}
	var id int64
	for _, et := range ej.Tables {
		c, ok := cols[et.Name]
		if !ok || et.Name == "job_origin" {
			return Imported{}, exportError{fmt.Sprintf("import: table %s is not a table of this sledge's jobs (schema version %d): upgrade sledge", et.Name, SchemaVersion)}
		}
		if et.Name == "job" && id != 0 {
			return Imported{}, exportError{"import: a second job table in one job"}
		}
		var names, marks []string
		var idx []int
		for _, col := range et.Columns {
			j := slices.Index(c.names, col)
			if j < 0 {
				return Imported{}, exportError{fmt.Sprintf("import: column %s.%s is not a column of this sledge's jobs (schema version %d): upgrade sledge", et.Name, col, SchemaVersion)}
			}
			if (et.Name == "job" && col == "id") || col == "job_id" {
				continue
			}
			names, idx = append(names, col), append(idx, j)
			marks = append(marks, "?")
		}
		if et.Name != "job" {
			names, marks = append([]string{"job_id"}, names...), append([]string{"?"}, marks...)
		}
		q := "INSERT INTO " + et.Name + " (" + strings.Join(names, ", ") + ") VALUES (" + strings.Join(marks, ", ") + ")"
		if et.Name == "job" {
			q += " RETURNING id"
		}
		for _, row := range et.Rows {
			if len(row) != len(et.Columns) {
				return Imported{}, exportError{fmt.Sprintf("import: a row of %s has %d values for %d columns", et.Name, len(row), len(et.Columns))}
			}
			args := make([]any, 0, len(names))
			if et.Name != "job" {
				args = append(args, id)
			}
			k := 0
			for i, col := range et.Columns {
				if (et.Name == "job" && col == "id") || col == "job_id" {
					continue
				}
				v, err := importValue(row[i], c.classes[idx[k]])
				k++
				if err != nil {
					return Imported{}, exportError{fmt.Sprintf("import: %s.%s: %v", et.Name, col, err)}
				}
				if et.Name == "run_group" && col == "run_id" {
					// A run id names a group that agents join: the
					// imported job's must be no other's, here or where it
					// came from.
					v = fmt.Sprintf("imported/%d/%v", id, v)
				}
				args = append(args, v)
			}
			if et.Name == "job" {
				if err := tx.QueryRowContext(ctx, q, args...).Scan(&id); err != nil {
					return Imported{}, fmt.Errorf("insert job: %w", err)
				}
				continue
			}
			if _, err := tx.ExecContext(ctx, q, args...); err != nil {
				return Imported{}, fmt.Errorf("insert into %s: %w", et.Name, err)
			}
		}
	}
	o.ImportedAt = now
	if _, err := tx.ExecContext(ctx, `INSERT INTO job_origin (job_id, origin_id, host, repository, sledge_version,
		exported_at, imported_at) VALUES (?, ?, ?, ?, ?, ?, ?)`, id, o.ID, redactText(o.Host), redactText(o.Repository),
		o.SledgeVersion, fmtTime(o.ExportedAt), fmtTime(now)); err != nil {
		return Imported{}, fmt.Errorf("record origin: %w", err)
	}
	return Imported{From: ej.ID, ID: id, Origin: o}, nil
}

// importValue converts a value of the file for a column of class: a value
// decoded with UseNumber (json.Number), or one Export made (int64,
// float64, string, map[string]string).
func importValue(v any, class string) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch class {
	case colInt, colBool:
		var i int64
		switch x := v.(type) {
		case json.Number:
			n, err := x.Int64()
			if err != nil {
				return nil, fmt.Errorf("want an integer: %w", err)
			}
			i = n
		case int64:
			i = x
		default:
			return nil, fmt.Errorf("want an integer, got %T", v)
		}
		if class == colBool {
			return i != 0, nil
		}
		return i, nil
	case colReal:
		switch x := v.(type) {
		case json.Number:
			return x.Float64()
		case float64:
			return x, nil
		case int64:
			return float64(x), nil
		}
		return nil, fmt.Errorf("want a number, got %T", v)
	case colText:
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("want text, got %T", v)
		}
		return redactText(s), nil
	default:
		switch x := v.(type) {
		case string:
			return []byte(x), nil
		case map[string]any:
			if s, ok := x["base64"].(string); ok && len(x) == 1 {
				return base64.StdEncoding.DecodeString(s)
			}
		case map[string]string:
			if s, ok := x["base64"]; ok && len(x) == 1 {
				return base64.StdEncoding.DecodeString(s)
			}
		}
		return nil, fmt.Errorf(`want an encoded histogram (text) or {"base64": …}, got %T`, v)
	}
}
