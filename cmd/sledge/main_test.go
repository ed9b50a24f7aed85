package main

import (
	"testing"

	"github.com/sledge-bench/sledge/internal/testdb"
)

// TestMain gives the package's end-to-end tests a private PostgreSQL cluster
// (started on first use, stopped afterwards).
func TestMain(m *testing.M) { testdb.Main(m) }
