package main

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/sledge-bench/sledge/internal/testdb"
)

// parallelPerCPU is how many of this package's tests run at once per CPU,
// unless -test.parallel says otherwise (testdb.Main's default is 4). The
// tests spend most of their time on the wall clock (a run's window) and
// waiting on servers and child processes, but a run's virtual users take
// all the CPU they are given. Measured on a 2-core machine: 6 at once took
// about as long as 8 or 16 (2m40s, 2m25s–2m35s), and stayed green with a
// second copy of the package running alongside, where with 8 some runs of
// a few seconds were too starved to draw every transaction type.
const parallelPerCPU = 3

// TestMain gives the package's end-to-end tests a private PostgreSQL cluster
// (started on first use, stopped afterwards). With SLEDGE_TEST_AS_MAIN=1 the
// test binary is the sledge command itself: the Tcl and Python front ends
// started by the scripting tests call back into "sledge" ($SLEDGE_BIN, which
// is this binary) without a separate build. As the command it dies with the
// process that started it (dieWithParent): the test binary, or a tclsh or
// python3 that a killed test left behind (`sledge cli do`, and the `sledge
// serve` of wsstart).
func TestMain(m *testing.M) {
	if os.Getenv("SLEDGE_TEST_AS_MAIN") == "1" {
		dieWithParent()
		main()
		os.Exit(0)
	}
	if !flag.Parsed() {
		flag.Parse()
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if f := flag.Lookup("test.parallel"); f != nil && !given {
		_ = flag.Set("test.parallel", strconv.Itoa(parallelPerCPU*runtime.GOMAXPROCS(0)))
	}
	testdb.Main(m)
}
