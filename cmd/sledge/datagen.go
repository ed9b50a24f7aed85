package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/sledge-bench/sledge/internal/workload/tprocc"
	"github.com/sledge-bench/sledge/internal/workload/tproch"
)

type datagenFlags struct {
	workload   string
	scale      float64
	warehouses int
	seed       uint64
	out        string
	workers    int
}

func newDatagenCmd() *cobra.Command {
	f := &datagenFlags{}
	cmd := &cobra.Command{
		Use:   "datagen",
		Short: "Write the generated data to flat files instead of a database",
		Long: `Write a workload's data as flat files, dbgen style: one line per row, every
value followed by '|'. Big tables are split into one file per worker
(<table>.tbl.1 … <table>.tbl.N, generated in parallel), small ones are one
<table>.tbl. The files hold exactly what "sledge build" would load: TPROC-H
data is dbgen's, TPROC-C data is the same for the same --seed.`,
		Example: `  sledge datagen --workload tproch --scale 10 --out /data/h10
  sledge datagen --workload tprocc --warehouses 100 --out /data/c100 --workers 8`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDatagen(cmd.Context(), cmd.OutOrStdout(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.workload, "workload", "tproch", workloadFlagHelp)
	fl.Float64Var(&f.scale, "scale", 1, "TPROC-H scale factor")
	fl.IntVarP(&f.warehouses, "warehouses", "w", 1, "TPROC-C warehouses")
	fl.Uint64Var(&f.seed, "seed", defaultSeed, "TPROC-C generator seed")
	fl.StringVar(&f.out, "out", "", "directory for the files (created; existing .tbl files are overwritten)")
	fl.IntVar(&f.workers, "workers", 0, "parallel writers, one file per table each (default: number of CPUs)")
	return cmd
}

// fileJob writes one file.
type fileJob struct {
	name  string
	write func(ctx context.Context, w io.Writer) (int64, error)
}

func runDatagen(ctx context.Context, w io.Writer, f *datagenFlags) error {
	wl, err := parseWorkload(f.workload)
	if err != nil {
		return err
	}
	if f.out == "" {
		return errors.New("--out DIR is required")
	}
	workers := f.workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	var jobs []fileJob
	if wl == workloadTPROCH {
		g, err := tproch.NewGenerator(f.scale)
		if err != nil {
			return err
		}
		for _, t := range tproch.Tables() {
			parts := workers
			if t == tproch.TableRegion || t == tproch.TableNation || t == tproch.TableSupplier {
				parts = 1
			}
			for p := 0; p < parts; p++ {
				name := t.String() + ".tbl"
				if parts > 1 {
					name = fmt.Sprintf("%s.tbl.%d", t, p+1)
				}
				jobs = append(jobs, fileJob{name, func(ctx context.Context, out io.Writer) (int64, error) {
					src, err := g.Source(t, p, parts)
					if err != nil {
						return 0, err
					}
					cr := &countingWriter{w: out}
					_, err = io.Copy(cr, tproch.NewReader(ctx, src, tproch.FormatPipe))
					return cr.lines, err
				}})
			}
		}
	} else {
		if f.warehouses < 1 {
			return fmt.Errorf("--warehouses must be at least 1 (got %d)", f.warehouses)
		}
		g := tprocc.NewGenerator(f.seed, tprocc.CLoadFor(f.seed))
		now := time.Now().UTC().Format("2006-01-02 15:04:05")
		parts := min(workers, f.warehouses)
		for _, t := range tprocc.AllTables() {
			if !t.PerWarehouse() {
				jobs = append(jobs, fileJob{t.String() + ".tbl", func(ctx context.Context, out io.Writer) (int64, error) {
					return g.WriteFlatFile(ctx, out, t, 0, 0, now)
				}})
				continue
			}
			for p := 0; p < parts; p++ {
				first, last := p*f.warehouses/parts+1, (p+1)*f.warehouses/parts
				name := t.String() + ".tbl"
				if parts > 1 {
					name = fmt.Sprintf("%s.tbl.%d", t, p+1)
				}
				jobs = append(jobs, fileJob{name, func(ctx context.Context, out io.Writer) (int64, error) {
					return g.WriteFlatFile(ctx, out, t, first, last, now)
				}})
			}
		}
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", f.out, err)
	}
	start := time.Now()
	var rows atomic.Int64
	queue := make(chan fileJob, len(jobs))
	for _, j := range jobs {
		queue <- j
	}
	close(queue)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range queue {
				n, err := writeFile(ctx, filepath.Join(f.out, j.name), j.write)
				rows.Add(n)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("%s: %w", j.name, err)
					}
					mu.Unlock()
					cancel()
					return
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	secs := time.Since(start).Seconds()
	fmt.Fprintf(w, "wrote %d files, %s rows in %.1f s (%s rows/s) to %s\n", len(jobs),
		fmtInt(float64(rows.Load())), secs, fmtInt(float64(rows.Load())/secs), f.out)
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
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// countingWriter counts the lines passing through.
type countingWriter struct {
	w     io.Writer
	lines int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	for _, b := range p {
		if b == '\n' {
			c.lines++
		}
	}
	return c.w.Write(p)
}
