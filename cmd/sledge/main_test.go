package main

import (
	"os"
	"testing"

	"github.com/sledge-bench/sledge/internal/testdb"
)

// TestMain gives the package's end-to-end tests a private PostgreSQL cluster
// (started on first use, stopped afterwards). With SLEDGE_TEST_AS_MAIN=1 the
// test binary is the sledge command itself: the Tcl and Python front ends
// started by the scripting tests call back into "sledge" ($SLEDGE_BIN, which
// is this binary) without a separate build.
func TestMain(m *testing.M) {
	if os.Getenv("SLEDGE_TEST_AS_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	testdb.Main(m)
}
