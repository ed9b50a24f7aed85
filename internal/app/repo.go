package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/spool"
)

// RepoPlace is where a front end's jobs repository is, and what goes with
// opening it: every command that opens the repository first hands in what
// jobs kept in spool files while it could not be written.
type RepoPlace struct {
	// Path is the repository: a SQLite file (relative to WorkDir, or
	// absolute) or a postgres:// URL; jobs.Open tells the two apart.
	Path string
	// WorkDir is the directory a relative file path is taken against when
	// the repository is named as its spool files name it (RepoName).
	WorkDir string
	// SpoolDir is where this process's spool files are (SpoolDir of the
	// data directory), "" without a data directory: nothing to hand in.
	SpoolDir string
	// SpareSpoolDir is where they go when SpoolDir cannot take them
	// (Options.SpareSpoolDir); "" for none.
	SpareSpoolDir string
}

// PlaceIn is where the jobs repository of a process whose environment is
// env is: repo when it names one (the CLI's --repo), else env's, else the
// data directory's jobs.db (config.Env.RepoPath); with its spool files in
// the data directory (none without one) and the spare ones of the user uid
// in the temporary directory tempDir (SpareSpoolDir).
func PlaceIn(env config.Env, repo, workDir, tempDir string, uid int) (RepoPlace, error) {
	path, err := env.RepoPath(repo)
	p := RepoPlace{Path: path, WorkDir: workDir, SpareSpoolDir: SpareSpoolDir(tempDir, uid)}
	if dir, derr := env.DataDir(); derr == nil {
		p.SpoolDir = SpoolDir(dir)
	}
	return p, err
}

// SpareSpoolDir is where a job keeps what it cannot store when the data
// directory cannot take it either (one file system, full): the temporary
// directory tempDir, often a file system of its own. Per user (uid), as
// spool files are private.
func SpareSpoolDir(tempDir string, uid int) string {
	return filepath.Join(tempDir, fmt.Sprintf("sledge-spool-%d", uid))
}

// spoolDirs are the directories to hand spool files in from: the spare
// only if it is there and private (spool.Private), or why it is left out.
func (p RepoPlace) spoolDirs() ([]string, error) {
	var dirs []string
	if p.SpoolDir != "" {
		dirs = append(dirs, p.SpoolDir)
	}
	if d := p.SpareSpoolDir; d != "" && d != p.SpoolDir {
		if _, err := os.Lstat(d); err != nil {
			return dirs, nil // none was made: nothing was kept there
		}
		if err := spool.Private(d); err != nil {
			return dirs, fmt.Errorf("not handing in from %w", err)
		}
		dirs = append(dirs, d)
	}
	return dirs, nil
}

// recoverAll hands in the spool files of every directory of p (Recover).
func recoverAll(ctx context.Context, repo *jobs.Repo, p RepoPlace) (Recovery, error) {
	dirs, derr := p.spoolDirs()
	if len(dirs) == 0 {
		return Recovery{}, derr
	}
	rec, err := Recover(ctx, repo, RepoName(repo.Path(), p.WorkDir), dirs...)
	return rec, errors.Join(err, derr)
}

// OpenRepo opens the repository at p.Path, creating it on first use (a
// SQLite file and its directory, or Sledge's tables in a PostgreSQL
// database) or, with existing, creating nothing (an error matching
// jobs.ErrNoRepository when there is none). Once open, it hands in the
// spool files kept for it (Recover) and says so on w, nothing when there
// is nothing to hand in.
func OpenRepo(ctx context.Context, p RepoPlace, existing bool, w io.Writer) (*jobs.Repo, error) {
	open := jobs.Open
	if existing {
		open = jobs.OpenExisting
	}
	repo, err := open(ctx, p.Path)
	if err == nil && (p.SpoolDir != "" || p.SpareSpoolDir != "") {
		rec, err := recoverAll(ctx, repo, p)
		rec.Report(w, err)
	}
	return repo, err
}

// HandIn is what `jobs recover` does: it opens the existing repository at
// p.Path (without OpenRepo's own hand-in), hands in the spool files in
// p.SpoolDir kept for it and reports each on w, or that there was nothing
// to hand in. failed says a spool file could not be handed in (it is kept);
// err is why the repository did not open, or why the spool directory could
// not be read (reported on w as well).
func HandIn(ctx context.Context, p RepoPlace, w io.Writer) (failed bool, err error) {
	repo, err := jobs.OpenExisting(ctx, p.Path)
	if err != nil {
		return false, err
	}
	defer repo.Close()
	rec, err := recoverAll(ctx, repo, p)
	if len(rec.Files) == 0 && len(rec.Merged) == 0 && err == nil {
		fmt.Fprintf(w, "nothing to hand in: no spool files of %s in %s\n", repo.Path(),
			strings.Join(slices.DeleteFunc([]string{p.SpoolDir, p.SpareSpoolDir}, func(d string) bool { return d == "" }), " or "))
		return false, nil
	}
	rec.Report(w, err)
	for _, f := range rec.Files {
		if f.Err != nil {
			return true, err
		}
	}
	return false, err
}

// RepoName names an open repository by its path (jobs.Repo.Path) as its
// spool files do (Options.RepoName): a file by its absolute path (a
// relative one taken against workDir), a PostgreSQL repository by its
// redacted URL.
func RepoName(path, workDir string) string {
	switch {
	case jobs.IsPostgresURL(path):
		return path
	case filepath.IsAbs(path):
		return filepath.Clean(path)
	}
	return filepath.Join(workDir, path)
}
