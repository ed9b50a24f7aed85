//go:build !cgo

package drivers

import (
	"errors"

	"github.com/sledge-bench/sledge/internal/db"
)

// DuckDB is a C++ library linked through cgo. Go builds without cgo when no
// C compiler is installed, so that the rest of Sledge (TPROC-C on SQLite,
// PostgreSQL, MariaDB) works with nothing but Go; DuckDB then says what to do.
func duckDB() (db.Driver, error) {
	return nil, errors.New("this sledge was built without cgo, so it has no DuckDB: install a C compiler (gcc) and rebuild, or use --db postgres://… or mysql://…")
}
