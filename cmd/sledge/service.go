package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/server"
	"github.com/sledge-bench/sledge/internal/workload"
)

// openRepo opens the jobs repository named by --repo (else $SLEDGE_REPO, else
// the data directory's jobs.db), creating it on first use, and hands in
// what jobs spooled for it, saying so on stderr (app.OpenRepo).
func openRepo(ctx context.Context, gs *globalState) (*jobs.Repo, error) {
	return gs.openRepo(ctx, false)
}

// openRepo opens the jobs repository as the function openRepo does; with
// existing, for commands that read it or delete from it, it creates no
// file, and an error matching jobs.ErrNoRepository says "no jobs repository
// at PATH" (a reachable postgres:// URL is an existing repository).
func (gs *globalState) openRepo(ctx context.Context, existing bool) (*jobs.Repo, error) {
	p, err := gs.repoPlace()
	if err != nil {
		return nil, err
	}
	return app.OpenRepo(ctx, p, existing, gs.stderr)
}

// repoPlace is where the jobs repository is (--repo, else $SLEDGE_REPO,
// else the data directory's jobs.db) and this process's spool files.
func (gs *globalState) repoPlace() (app.RepoPlace, error) {
	return app.PlaceIn(gs.configEnv(), gs.flags.repo, gs.workDir, gs.tempDir, os.Getuid())
}

// withService opens the repository and runs fn with a job service that owns
// this process (it may decide the process's client CPUs once).
func withService(ctx context.Context, gs *globalState, fn func(*app.Service) error) error {
	repo, err := openRepo(ctx, gs)
	if err != nil {
		return err
	}
	defer repo.Close()
	return fn(app.New(gs.serviceOptions(app.Options{Repo: repo, Version: version, OwnsProcess: gs.ownsProcess})))
}

// remoteFor returns the client of the server named by --server (or
// $SLEDGE_SERVER); ok is false when there is none.
func remoteFor(gs *globalState) (*server.Client, bool, error) {
	u := gs.flags.server
	if u == "" {
		u = gs.getenv("SLEDGE_SERVER")
	}
	if u == "" {
		return nil, false, nil
	}
	c, err := server.NewClient(u, gs.getenv("SLEDGE_TOKEN"))
	if err != nil {
		return nil, true, fmt.Errorf("--server: %w", err)
	}
	return c, true, nil
}

// localOnly refuses a command that works on this machine (what) when a
// server is named: it would not be used, and the command would answer
// about other jobs than the server's.
func localOnly(gs *globalState, what string) error {
	if _, ok, _ := remoteFor(gs); ok {
		return fmt.Errorf("%s: runs on this machine only, not through --server", what)
	}
	return nil
}

// flagErrors words the job service's field errors as this front end's
// flags: field "max_retries" is --max-retries; a target error is --db's; what
// a job found about its workload's schema gets the command that deals with it.
func flagErrors(err error) error { return fieldErrors(err, flagName, schemaAdvice) }

// fieldErrors is flagErrors with the fields worded by name and the schema
// advice by advice (a front end whose options are not the run flags:
// sledge pgbench).
func fieldErrors(err error, name func(field string) string, advice func(error) string) error {
	if advice := advice(err); advice != "" && !errors.As(err, new(app.TargetError)) {
		return fmt.Errorf("%w: %s", err, advice)
	}
	return app.Worded(err, name)
}

// flagName is the flag of a spec field (or of k8s.Options'): its name with
// "-" for "_", but for the confirmation, which --yes gives, the rates per
// type, which --rate takes, and a manifest's run flags, given after --.
func flagName(field string) string {
	switch field {
	case "db":
		return "--db"
	case "confirm":
		return "--yes"
	case "rate_by_type":
		return "--rate"
	case "thresholds":
		return "--threshold"
	case "scripts":
		return "--script"
	case "defines":
		return "--define"
	case "run_args":
		return "after --"
	}
	if arm, key, ok := strings.Cut(field, "."); ok { // a gate's arm (app.CheckGate)
		return "--" + arm + "-set " + strings.TrimPrefix(flagName(key), "--")
	}
	return "--" + strings.ReplaceAll(field, "_", "-")
}

// schemaAdvice says which command deals with what a job found about its
// workload's schema (a workload.SchemaError), "" for other errors.
func schemaAdvice(err error) string {
	var se *workload.SchemaError
	if !errors.As(err, &se) {
		return ""
	}
	build := "sledge build"
	if se.Workload != "" && se.Workload != config.DefaultWorkload {
		build += " --workload " + se.Workload
	}
	switch {
	case errors.Is(err, workload.ErrSchemaExists):
		return "use --force to drop it and build again (with --yes where there is no terminal), or `" +
			strings.Replace(build, "build", "drop", 1) + "`"
	case errors.Is(err, workload.ErrNoSchema) && se.Holds != "":
		return "the database holds a " + workload.Title(se.Holds) + " schema: name it with --workload " + se.Holds
	case errors.Is(err, workload.ErrNoSchema):
		return "run `" + build + "` first"
	case errors.Is(err, workload.ErrSchemaUnusable):
		return "run `" + build + " --force` to replace it"
	}
	return ""
}

// recorded is where the commands that read, delete or import recorded
// jobs (jobs, jobs show, diff, hlog, delete, export and import, compare,
// profile show and list) find them: this machine's repository
// (app.Recorded) or the sledge serve named by --server (server.Client),
// which answers with the same bytes.
type recorded interface {
	View(ctx context.Context, w io.Writer, v app.View) error
	Delete(ctx context.Context, id int64, force bool) error
	app.Importer
}

var (
	_ recorded = app.Recorded{}
	_ recorded = (*server.Client)(nil)
)

// withRecorded runs fn on the jobs of --server when it is given, else on
// the jobs repository: never on the local one when a server is named. The
// commands that read or delete jobs want an existing repository
// (gs.openRepo); import creates it when there is none yet (existing false).
func withRecorded(cmd *cobra.Command, gs *globalState, existing bool, fn func(context.Context, recorded) error) error {
	if c, ok, err := remoteFor(gs); ok {
		if err != nil {
			return err
		}
		return fn(cmd.Context(), c)
	}
	repo, err := gs.openRepo(cmd.Context(), existing)
	if err != nil {
		return err
	}
	defer repo.Close()
	return fn(cmd.Context(), app.Recorded{Store: repo, Version: version})
}

// printView prints a view of the recorded jobs on stdout, of the jobs
// whose ids are args, and, with html, writes it as HTML to that file first
// (--html). A view that has no HTML (a comparison of two jobs that are not
// both profiles) is --html's error, and nothing is written.
func printView(cmd *cobra.Command, gs *globalState, args []string, v app.View, html string) error {
	var err error
	if v.IDs, err = app.ParseJobIDs(args); err != nil {
		return err
	}
	return withRecorded(cmd, gs, true, func(ctx context.Context, r recorded) error {
		if html != "" {
			hv := v
			hv.Format = app.FormatHTML
			var b bytes.Buffer
			err := r.View(ctx, &b, hv)
			if fe := config.Fields(err); len(fe) == 1 && fe[0].Field == "format" {
				return fmt.Errorf("--html: %s", fe[0].Msg)
			}
			if err == nil {
				err = writeHTMLFile(html, func(f io.Writer) error { _, err := f.Write(b.Bytes()); return err })
			}
			if err != nil {
				return err
			}
		}
		return flagErrors(r.View(ctx, cmd.OutOrStdout(), v))
	})
}
