package app

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/report"
	"github.com/sledge-bench/sledge/internal/workload"
)

// DatagenRequest asks for a workload's data as flat files.
type DatagenRequest struct {
	// Spec gives the workload, its size (warehouses, scale), seed and
	// workers (parallel writers; 0: one per CPU), checked by the rules of a
	// build of the same data.
	Spec config.Spec
	// Dir receives the files (created; existing files are overwritten).
	Dir string
	// Format is the files' encoding: workload.DataTbl (dbgen's) or
	// workload.DataCopy (what the servers' own loaders take as it is).
	Format workload.DataFormat
}

// NewDatagen is a request with the defaults of datagen: TPROC-H, dbgen's
// workload, unless the caller names another.
func NewDatagen() DatagenRequest {
	s := config.New(config.KindBuild)
	s.Workload = config.DefaultDatagenWorkload
	return DatagenRequest{Spec: s, Format: workload.DataTbl}
}

// Datagen writes a workload's data as flat files, dbgen style, and reports
// on w. It is not a job: nothing is recorded.
func Datagen(ctx context.Context, w io.Writer, req DatagenRequest) error {
	spec := req.Spec
	spec.Kind, spec.Force = config.KindBuild, false // the same data as a build's, by a build's rules
	wl, plan, errs := checkSpec(spec)
	if req.Dir == "" {
		errs = append(errs, config.FieldError{Field: "out", Msg: "out: a directory for the files is required"})
	}
	if req.Format != workload.DataTbl && req.Format != workload.DataCopy {
		errs = append(errs, config.FieldError{Field: "format", Msg: fmt.Sprintf("format: %q: want tbl or copy", req.Format)})
	}
	if len(errs) > 0 {
		return errs
	}
	dg, ok := wl.(workload.Datagener)
	if !ok {
		return config.FieldErrors{{Field: "workload", Msg: fmt.Sprintf("workload %s does not generate data files", wl.Name())}}
	}
	workers := spec.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	files, err := dg.DataFiles(plan, workers, req.Format)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(req.Dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", req.Dir, err)
	}
	start := time.Now()
	var rows atomic.Int64
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for _, f := range files {
		g.Go(func() error {
			n, err := writeFile(ctx, filepath.Join(req.Dir, f.Name), f.Write)
			rows.Add(n)
			if err != nil {
				return fmt.Errorf("%s: %w", f.Name, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	fmt.Fprintf(w, "wrote %d files, %s rows in %.1f s (%s rows/s) to %s\n", len(files),
		report.Int(float64(rows.Load())), secs, report.Int(float64(rows.Load())/secs), req.Dir)
	if req.Format != workload.DataCopy {
		fmt.Fprintln(w, "dbgen's format (every value followed by '|'); to load the files with PostgreSQL's COPY or MariaDB's LOAD DATA as they are, write them with --format copy")
		return nil
	}
	dir, err := filepath.Abs(req.Dir)
	if err != nil {
		return err
	}
	scripts := []struct{ name, how string }{
		{"load-postgres.sql", "psql -v ON_ERROR_STOP=1 -d DATABASE -f %s"},
		{"load-mariadb.sql", "mariadb --local-infile=1 DATABASE < %s"},
	}
	for i, text := range loadScripts(dir, files) {
		path := filepath.Join(dir, scripts[i].name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	fmt.Fprintf(w, "load them into the %s tables (created empty, e.g. by a sledge build of the same size and TRUNCATE) with the servers' own loaders:\n", wl.Title())
	for _, s := range scripts {
		fmt.Fprintf(w, "  "+s.how+"\n", filepath.Join(dir, s.name))
	}
	return nil
}

// loadScripts are the statements that load files (COPY text) into their
// tables: for psql (\copy: the client reads the files, no superuser
// needed) and for MariaDB/MySQL (LOAD DATA LOCAL INFILE, whose defaults are
// COPY text's: tab, \N, backslash escapes).
func loadScripts(dir string, files []workload.DataFile) [2]string {
	var pg, my strings.Builder
	pg.WriteString("-- Written by sledge datagen --format copy: psql -v ON_ERROR_STOP=1 -d DATABASE -f load-postgres.sql\n")
	my.WriteString("-- Written by sledge datagen --format copy: mariadb --local-infile=1 DATABASE < load-mariadb.sql\n")
	for _, f := range files {
		path := filepath.Join(dir, f.Name)
		cols := strings.Join(f.Columns, ", ")
		fmt.Fprintf(&pg, "\\copy %s (%s) FROM '%s'\n", f.Table, cols, strings.ReplaceAll(path, "'", "''"))
		fmt.Fprintf(&my, "LOAD DATA LOCAL INFILE '%s' INTO TABLE %s (%s);\n", strings.ReplaceAll(path, "'", "\\'"), f.Table, cols)
	}
	return [2]string{pg.String(), my.String()}
}

func writeFile(ctx context.Context, path string, write func(context.Context, io.Writer) (int64, error)) (int64, error) {
	fh, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	bw := bufio.NewWriterSize(fh, 1<<20)
	n, err := write(ctx, bw)
	if err == nil {
		err = bw.Flush()
	}
	return n, errors.Join(err, fh.Close())
}
