package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sledge-bench/sledge/internal/sandbox"
)

// TestWebUIInChromium drives the web UI in headless Chromium: the script
// web-tests/ui.mjs (playwright-core from npm, Debian's chromium as the
// browser) starts a run from the form, watches it live, stops it, reads the
// result, runs a second job and compares the two, against a server on a
// fresh repository and embedded SQLite database. Screenshots go to
// $SLEDGE_TEST_ARTIFACTS/webui, else web-tests/artifacts (gitignored).
//
// Chromium is installed with apt-get when it is missing and the test runs as
// root, playwright-core with `npm ci` when web-tests/node_modules lacks it.
// When either cannot be had the test skips, or fails when $CI is set.
func TestWebUIInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs on SQLite, drives a browser")
	}
	webTests, err := filepath.Abs(filepath.Join("..", "..", "web-tests"))
	if err != nil {
		t.Fatal(err)
	}
	unavailable := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but "+format, args...)
		}
		t.Skipf(format, args...)
	}
	chromium, err := ensureChromium(t.Context(), t.Logf)
	if err != nil {
		unavailable("Chromium is missing: %v", err)
	}
	node, err := ensurePlaywright(t.Context(), webTests, t.Logf)
	if err != nil {
		unavailable("playwright-core is missing: %v", err)
	}

	artifacts := filepath.Join(webTests, "artifacts")
	if dir := os.Getenv("SLEDGE_TEST_ARTIFACTS"); dir != "" {
		artifacts = filepath.Join(dir, "webui")
	}
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(filepath.Join(artifacts, "failure.png")) // from an earlier run

	ts := testServer(t, "")

	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(webTests, "ui.mjs"), ts.URL, artifacts)
	cmd.Dir = webTests
	cmd.Env = append(os.Environ(), "CHROMIUM="+chromium)
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	err = runStreaming(t, cmd)
	t.Logf("ui.mjs took %s; screenshots in %s", time.Since(start).Round(100*time.Millisecond), artifacts)
	if ctx.Err() == context.DeadlineExceeded {
		t.Fatalf("ui.mjs did not finish within 3 minutes (see %s)", artifacts)
	}
	if err != nil {
		t.Fatalf("ui.mjs: %v (screenshots in %s)", err, artifacts)
	}
}

// runStreaming runs cmd with its stdout and stderr going line by line to
// t.Log as they come.
func runStreaming(t *testing.T, cmd *exec.Cmd) error {
	t.Helper()
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			t.Log(sc.Text())
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	err := cmd.Start()
	if err == nil {
		err = cmd.Wait()
	}
	pw.Close()
	wg.Wait()
	return err
}

// ensureChromium returns the browser to drive: $CHROMIUM, else
// /usr/bin/chromium, which it installs from Debian's chromium package when
// it is missing and this process runs as root with apt-get.
func ensureChromium(ctx context.Context, logf func(string, ...any)) (string, error) {
	if p := os.Getenv("CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("$CHROMIUM: %w", err)
		}
		return p, nil
	}
	const path = "/usr/bin/chromium"
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if !sandbox.CanAptInstall() {
		return "", fmt.Errorf("%s not found (install Debian's chromium package, or set $CHROMIUM)", path)
	}
	logf("%s not found; installing chromium with apt-get", path)
	ctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	ierr := sandbox.AptInstall(ctx, "chromium")
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("%s still missing after apt-get install chromium: %v", path, ierr)
	}
	return path, nil
}

// ensurePlaywright makes sure web-tests/node_modules holds playwright-core,
// running `npm ci` (the versions package-lock.json pins) when it does not,
// and returns the node binary.
func ensurePlaywright(ctx context.Context, dir string, logf func(string, ...any)) (string, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return "", errors.New("node is not installed")
	}
	pkg := filepath.Join(dir, "node_modules", "playwright-core", "package.json")
	if _, err := os.Stat(pkg); err == nil {
		return node, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", errors.New("web-tests/node_modules lacks it and npm is not installed")
	}
	logf("web-tests/node_modules lacks playwright-core; running npm ci")
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	cmd.WaitDelay = 10 * time.Second
	out, cerr := cmd.CombinedOutput()
	if _, err := os.Stat(pkg); err != nil {
		if len(out) > 4096 {
			out = out[len(out)-4096:]
		}
		return "", fmt.Errorf("npm ci in %s (%v):\n%s", dir, cerr, strings.TrimSpace(string(out)))
	}
	return node, nil
}
