package main

import (
	"bytes"
	"context"
	"fmt"
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
			ids, err := app.ParseJobIDs(args)
			if err != nil {
				return err
			}
			compress = compress || strings.HasSuffix(output, ".gz")
			// The whole file first: a job that cannot be exported (a
			// typo, a running job) leaves no half-written file behind.
			var b bytes.Buffer
			err = withRecorded(cmd, gs, true, func(ctx context.Context, r recorded) error {
				return r.View(ctx, &b, app.View{Name: app.ViewExport, IDs: ids})
			})
			if err != nil {
				return err
			}
			if output == "" || output == "-" {
				return jobs.CopyExport(cmd.OutOrStdout(), b.Bytes(), compress)
			}
			if err := jobs.CreateExport(gs.abs(output), b.Bytes(), compress); err != nil {
				return fmt.Errorf("--output: %w", err)
			}
			return nil
		},
	})
	cmd.Flags().StringVarP(&output, "output", "o", "", "write the file here instead of to stdout (gzip-compressed when it ends in .gz)")
	cmd.Flags().BoolVar(&compress, "gzip", false, "compress the file with gzip")
	return cmd
}

func newJobsImportCmd(gs *globalState) *cobra.Command {
	return withHelp("jobs-import", &cobra.Command{
		Use:   "import FILE...",
		Short: "Load the jobs of exported files as read-only jobs marked with their origin",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			files, err := jobs.ReadExportFiles(gs.workDir, gs.stdin, args)
			if err != nil {
				return err
			}
			// Unlike the commands that read jobs, import creates the
			// repository when there is none yet.
			return withRecorded(cmd, gs, false, func(ctx context.Context, r recorded) error {
				return app.ImportFiles(ctx, r, args, files, cmd.OutOrStdout())
			})
		},
	})
}
