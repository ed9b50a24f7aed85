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
}

// NewDatagen is a request with the defaults of datagen: TPROC-H, dbgen's
// workload, unless the caller names another.
func NewDatagen() DatagenRequest {
	s := config.New(config.KindBuild)
	s.Workload = config.DefaultDatagenWorkload
	return DatagenRequest{Spec: s}
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
	files, err := dg.DataFiles(plan, workers)
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
	return nil
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
