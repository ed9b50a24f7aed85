package tprocc

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/sledge-bench/sledge/internal/db"
)

// InstallProcs creates (or replaces) the server-side routines of --mode procs
// from sql/<dialect>/procs.sql. Dialects without routines have no such file
// and install nothing.
func InstallProcs(ctx context.Context, c db.Conn, k db.Kind) error {
	dir, err := dialectDir(k)
	if err != nil {
		return err
	}
	if _, err := sqlFiles.Open("sql/" + dir + "/procs.sql"); err != nil {
		return nil
	}
	stmts, err := statements(k, "procs.sql")
	if err != nil {
		return err
	}
	// The agents of one run install the routines at the same time: one at
	// a time, under a session lock of the server's.
	locks, err := statementMap(k, "locks.sql")
	if err != nil {
		return err
	}
	var got int64
	if err := c.QueryRow(ctx, locks["procs_lock"]).Scan(&got); err != nil {
		return fmt.Errorf("lock the routines for their installation: %w", err)
	}
	if got != 1 {
		return errors.New("lock the routines for their installation: another session held the lock for a minute")
	}
	defer c.Exec(context.WithoutCancel(ctx), locks["procs_unlock"])
	for _, s := range stmts {
		if _, err := c.Exec(ctx, s.SQL); err != nil {
			return fmt.Errorf("install routine %s: %w", s.Name, err)
		}
	}
	return nil
}

// randomSeed draws a seed for runs that were not given one.
func randomSeed() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	s := binary.LittleEndian.Uint64(b[:])
	if s == 0 {
		s = 1
	}
	return s
}
