package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// What `sledge sandbox` does with an engine's sandbox in a directory, each
// step said on a log (the command's stderr); the command adds what it
// alone knows (its flags, exit statuses, the URL on stdout).

// Up starts the sandbox in dir, or finds it running already: started
// says which. It says it is starting one, or that one already runs (and
// on which port).
func (e Engine) Up(ctx context.Context, dir string, opts Options, log io.Writer) (s Server, started bool, err error) {
	wasRunning := false
	if s, err := e.Open(dir); err == nil {
		wasRunning = s.Running()
	}
	if !wasRunning {
		fmt.Fprintf(log, "sledge: starting the %s sandbox in %s\n", e.Product, dir)
	}
	s, err = e.Start(ctx, dir, opts)
	if err != nil {
		return nil, false, err
	}
	if wasRunning {
		fmt.Fprintf(log, "sledge: the %s sandbox in %s is already running (port %d)\n", e.Product, dir, s.Port())
	}
	return s, !wasRunning, nil
}

// StatusDir is the sandbox in dir when it runs, saying so with its pid,
// port and log file; nil, and said, when there is none or it is not
// running.
func (e Engine) StatusDir(dir string, log io.Writer) (Server, error) {
	s, st, err := e.running(dir, log)
	if s != nil {
		fmt.Fprintf(log, "sledge: the %s sandbox in %s is running (pid %d, port %d, log %s)\n", e.Product, dir, st.PID, st.Port, st.LogFile)
	}
	return s, err
}

// StopDir stops the sandbox in dir, saying so; running is false, and it
// says why, when there is none or it is not running (nothing to stop).
func (e Engine) StopDir(ctx context.Context, dir string, log io.Writer) (running bool, err error) {
	s, _, err := e.running(dir, log)
	if s == nil || err != nil {
		return false, err
	}
	if err := s.Stop(ctx); err != nil {
		return true, err
	}
	fmt.Fprintf(log, "sledge: stopped the %s sandbox in %s\n", e.Product, dir)
	return true, nil
}

// running opens the sandbox in dir, with its status: nil, and said on
// log, when there is none or it is not running.
func (e Engine) running(dir string, log io.Writer) (Server, Status, error) {
	s, err := e.Open(dir)
	if errors.Is(err, ErrNoSandbox) {
		fmt.Fprintf(log, "sledge: no %s sandbox in %s\n", e.Product, dir)
		return nil, Status{}, nil
	}
	if err != nil {
		return nil, Status{}, err
	}
	st := s.Status()
	if !st.Running {
		fmt.Fprintf(log, "sledge: the %s sandbox in %s is not running\n", e.Product, dir)
		return nil, st, nil
	}
	return s, st, nil
}

// FetchServer returns the binaries directory (Options.BinDir) of the
// engine's version, fetching the server into cacheDir first if need be
// (saying where from). An error matching ErrFetch says what fetching
// needs, and the environment variable (BinEnv) that names binaries
// instead.
func (e Engine) FetchServer(ctx context.Context, cacheDir, version string, log io.Writer) (string, error) {
	fmt.Fprintf(log, "sledge: %s %s's server from %s (fetched on first use)\n", e.Product, version, cacheDir)
	bin, err := e.Fetch(ctx, cacheDir, version)
	if errors.Is(err, ErrFetch) {
		return "", fmt.Errorf("%w\n(it needs %s; or put the server's binaries in a directory and set %s to it)", err, e.FetchNeeds, e.BinEnv)
	}
	return bin, err
}

// VersionError is a version Fetch cannot fetch because it is none the
// engine knows — the version asked is at fault, not the fetching.
type VersionError struct{ Err error }

func (e *VersionError) Error() string { return e.Err.Error() }
func (e *VersionError) Unwrap() error { return e.Err }

// Binaries is the binaries directory (Options.BinDir) of the server to
// start: with a version, that version's, fetched into the cache directory
// (cacheDir, called only then) on first use (FetchServer) — the nearer
// choice; else binDir (the one BinEnv names), "" to search for one. An
// error about the version itself is a *VersionError.
func (e Engine) Binaries(ctx context.Context, version, binDir string, cacheDir func() (string, error), log io.Writer) (string, error) {
	if version == "" {
		return binDir, nil
	}
	cache, err := cacheDir()
	if err != nil {
		return "", err
	}
	bin, err := e.FetchServer(ctx, cache, version, log)
	if err != nil && !errors.Is(err, ErrFetch) {
		return "", &VersionError{err}
	}
	return bin, err
}
