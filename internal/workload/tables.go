package workload

import (
	"context"
	"fmt"
	"strings"

	"github.com/sledge-bench/sledge/internal/db"
)

// CountTables counts how many of names exist as tables in the database on
// conn (PostgreSQL: as the unqualified name resolves on the search path, as
// every statement sees it). The workloads find their schemas and build
// records with it. names are fixed identifiers, never user input.
func CountTables(ctx context.Context, conn db.Conn, kind db.Kind, names []string) (int, error) {
	list := "'" + strings.Join(names, "', '") + "'"
	var q string
	switch kind {
	case db.Postgres:
		q = "SELECT count(*) FROM unnest(ARRAY[" + list + "]) AS t(name) WHERE to_regclass(t.name) IS NOT NULL"
	case db.SQLite:
		q = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN (" + list + ")"
	case db.MySQL:
		q = "SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name IN (" + list + ")"
	default:
		return 0, fmt.Errorf("no table lookup on %s", kind)
	}
	var n int
	if err := conn.QueryRow(ctx, q).Scan(&n); err != nil {
		return 0, fmt.Errorf("look for tables %s: %w", strings.Join(names, ", "), err)
	}
	return n, nil
}
