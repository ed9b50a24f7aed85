package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/jobs"
)

// sledge jobs export and import: results that travel (jobs.Export).

func newJobsExportCmd(gs *globalState) *cobra.Command {
	var (
		output   string
		compress bool
	)
	cmd := withHelp("jobs-export", &cobra.Command{
		Use:   "export ID...",
		Short: "Write jobs with everything recorded with them to one file that another repository imports",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ids, err := parseJobIDs(args)
			if err != nil {
				return err
			}
			compress = compress || strings.HasSuffix(output, ".gz")
			// The whole file first: a job that cannot be exported (a
			// typo, a running job) leaves no half-written file behind.
			var b bytes.Buffer
			err = withRecorded(cmd, gs, func(ctx context.Context, r recorded) error {
				return r.View(ctx, &b, app.View{Name: app.ViewExport, IDs: ids})
			})
			if err != nil {
				return err
			}
			write := func(w io.Writer) error {
				if !compress {
					_, err := w.Write(b.Bytes())
					return err
				}
				zw := gzip.NewWriter(w)
				if _, err := zw.Write(b.Bytes()); err != nil {
					return err
				}
				return zw.Close()
			}
			if output == "" || output == "-" {
				return write(cmd.OutOrStdout())
			}
			if err := writeFile(gs.abs(output), write); err != nil {
				return fmt.Errorf("--output: %w", err)
			}
			return nil
		},
	})
	cmd.Flags().StringVarP(&output, "output", "o", "", "write the file here instead of to stdout (gzip-compressed when it ends in .gz)")
	cmd.Flags().BoolVar(&compress, "gzip", false, "compress the file with gzip")
	return cmd
}

// writeFile writes a new file at path with write, removing it when write
// fails.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

func newJobsImportCmd(gs *globalState) *cobra.Command {
	return withHelp("jobs-import", &cobra.Command{
		Use:   "import FILE...",
		Short: "Load the jobs of exported files as read-only jobs marked with their origin",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			// Read every file before importing any: a bad file imports
			// nothing.
			files := make([]*jobs.ExportFile, 0, len(args))
			for _, name := range args {
				f, err := readExport(gs, name)
				if err != nil {
					return err
				}
				files = append(files, f)
			}
			imp := func(ctx context.Context, r importer) error {
				var errs []error
				for i, f := range files {
					im, err := r.Import(ctx, f)
					if err != nil {
						errs = append(errs, fmt.Errorf("%s: %w", args[i], err))
						continue
					}
					for _, j := range im {
						fmt.Fprintf(cmd.OutOrStdout(), "imported job %d of %s as job %d\n", j.From, j.Origin.Host, j.ID)
					}
				}
				return errors.Join(errs...)
			}
			if c, ok, err := remoteFor(gs); ok {
				if err != nil {
					return err
				}
				return imp(cmd.Context(), c)
			}
			// Unlike the commands that read jobs, import creates the
			// repository when there is none yet.
			repo, err := gs.openRepo(cmd.Context(), false)
			if err != nil {
				return err
			}
			defer repo.Close()
			return imp(cmd.Context(), app.Recorded{Store: repo, Version: version})
		},
	})
}

// importer is where jobs import loads files: this machine's repository
// (app.Recorded) or the sledge serve named by --server (server.Client).
type importer interface {
	Import(ctx context.Context, f *jobs.ExportFile) ([]jobs.Imported, error)
}

// readExport reads an exported file, "-" for stdin.
func readExport(gs *globalState, name string) (*jobs.ExportFile, error) {
	var in io.Reader = gs.stdin
	if name != "-" {
		f, err := os.Open(gs.abs(name))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		in = f
	}
	f, err := jobs.ReadExport(in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return f, nil
}
