// Package drivers picks the database driver for a target.
package drivers

import (
	"fmt"

	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/mysql"
	"github.com/sledge-bench/sledge/internal/db/postgres"
	"github.com/sledge-bench/sledge/internal/db/sqlite"
)

// For returns the driver for a database kind.
func For(k db.Kind) (db.Driver, error) {
	switch k {
	case db.Postgres:
		return postgres.Driver{}, nil
	case db.SQLite:
		return sqlite.Driver{}, nil
	case db.MySQL:
		return mysql.Driver{}, nil
	case db.DuckDB:
		return duckDB()
	}
	return nil, fmt.Errorf("no driver for database kind %q", k)
}
