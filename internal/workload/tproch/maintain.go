package tproch

import (
	"context"
	"fmt"

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
// config.BetweenCheckpoint) of kind's dialect over the TPROC-H tables.
func Maintain(ctx context.Context, c db.Conn, kind db.Kind, what string) (workload.Maintenance, error) {
	if what != config.BetweenVacuum && what != config.BetweenCheckpoint {
		return workload.Maintenance{}, fmt.Errorf("TPROC-H has no maintenance step %q (have vacuum, checkpoint)", what)
	}
	dl, err := dialect(kind)
	if err != nil {
		return workload.Maintenance{}, err
	}
	stmts, err := readStatements(dl, what+".sql")
	if err != nil {
		return workload.Maintenance{}, err
	}
	var tables []string
	for _, t := range Tables() {
		tables = append(tables, t.String())
	}
	return workload.RunMaintenance(ctx, c, stmts, tables)
}

// RebuildSpec is the build that made c's schema, as its build record
// says: its scale factor.
func (Workload) RebuildSpec(ctx context.Context, env workload.Env, c db.Conn) (config.Spec, error) {
	m, err := ReadMeta(ctx, c, env.Target.Kind)
	if err != nil {
		return config.Spec{}, err
	}
	s := config.New(config.KindBuild)
	s.Workload, s.Scale = Name, m.SF
	return s, nil
}
