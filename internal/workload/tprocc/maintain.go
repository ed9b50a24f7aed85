package tprocc

import (
	"context"
	"fmt"
	"strings"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/workload"
)

var (
	_ workload.Maintainer = Workload{}
	_ workload.Rebuilder  = Workload{}
)

// Maintain runs sql/<dialect>/<what>.sql (vacuum or checkpoint) on c.
func (Workload) Maintain(ctx context.Context, env workload.Env, c db.Conn, what string) (workload.Maintenance, error) {
	return Maintain(ctx, c, env.Target.Kind, what)
}

// Maintain runs the maintenance step what (config.BetweenVacuum or
// config.BetweenCheckpoint) of kind's dialect over the TPROC-C tables.
func Maintain(ctx context.Context, c db.Conn, kind db.Kind, what string) (workload.Maintenance, error) {
	if what != config.BetweenVacuum && what != config.BetweenCheckpoint {
		return workload.Maintenance{}, fmt.Errorf("TPROC-C has no maintenance step %q (have vacuum, checkpoint)", what)
	}
	stmts, err := statements(kind, what+".sql")
	if err != nil {
		return workload.Maintenance{}, err
	}
	var tables []string // the workload's, sledge_meta aside
	for _, t := range AllTables() {
		tables = append(tables, t.String())
	}
	return workload.RunMaintenance(ctx, c, stmts, tables)
}

// RebuildSpec is the build that made c's schema, as sledge_meta records
// it: its warehouses and seed and, on MariaDB/MySQL, the storage engine
// its tables are in.
func (Workload) RebuildSpec(ctx context.Context, env workload.Env, c db.Conn) (config.Spec, error) {
	m, err := ReadMeta(ctx, c)
	if err != nil {
		return config.Spec{}, err
	}
	s := config.New(config.KindBuild)
	s.Workload, s.Warehouses, s.Seed = Name, m.Warehouses, m.Seed
	if env.Target.Kind == db.MySQL {
		var engine string
		if err := c.QueryRow(ctx, "SELECT engine FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'warehouse'").Scan(&engine); err != nil {
			return config.Spec{}, fmt.Errorf("read the storage engine of the TPROC-C tables: %w", err)
		}
		if !strings.EqualFold(engine, "InnoDB") {
			s.Engine = engine
		}
	}
	return s, nil
}
