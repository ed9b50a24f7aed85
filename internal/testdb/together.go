package testdb

import (
	"sync"
	"testing"
)

// Together runs subtests of a test at once, in the test's own slot of go
// test's -parallel. Parallel subtests (t.Parallel in t.Run) each wait for a
// slot of their own, queued behind every test of the package released
// before them, and a package's parallel tests are all released at once, in
// no set order: a test's long subtests then start minutes into the package
// and end it late (TestMariaDBVersions/11.4 started 130 s in,
// TestPostgresVersions's servers 250 s in). Start each subtest with Run,
// then Wait.
type Together struct {
	t  *testing.T
	wg sync.WaitGroup
}

// NewTogether is a Together for t's subtests.
func NewTogether(t *testing.T) *Together { return &Together{t: t} }

// Run starts subtest name of the test; it runs at once.
func (g *Together) Run(name string, f func(t *testing.T)) {
	g.wg.Go(func() { g.t.Run(name, f) })
}

// Wait returns once every subtest started by Run has ended.
func (g *Together) Wait() { g.wg.Wait() }
