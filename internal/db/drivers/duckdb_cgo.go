//go:build cgo

package drivers

import (
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/duckdb"
)

func duckDB() (db.Driver, error) { return duckdb.Driver{}, nil }
