package sqlfile

import (
	"errors"
	"fmt"
	"io/fs"
)

// Load returns one kind of file's statements ("schema", "queries", …) as
// a dialect runs them, from a workload's SQL folder laid out as
//
//	KIND.sql          the base, written once in the SQL PostgreSQL runs
//	DIALECT/KIND.sql  the dialect's overrides of it (Overlay), or, where
//	                  there is no base, the dialect's whole set
//
// what names the workload in errors ("TPROC-H SQL …"). When neither file
// exists the error matches fs.ErrNotExist: a workload whose file only some
// dialects have takes that as no statements.
func Load(sqlDir fs.FS, what, dialect, kind string) ([]Statement, error) {
	base, hasBase, err := parseFile(sqlDir, what, kind+".sql")
	if err != nil {
		return nil, err
	}
	own, hasOwn, err := parseFile(sqlDir, what, dialect+"/"+kind+".sql")
	if err != nil {
		return nil, err
	}
	switch {
	case hasBase:
		list, err := Overlay(base, own)
		if err != nil {
			return nil, fmt.Errorf("%s SQL %s/%s.sql over %s.sql: %w", what, dialect, kind, kind, err)
		}
		return list, nil
	case hasOwn:
		return own, nil
	}
	return nil, fmt.Errorf("%s has no %s SQL for %s: %w", what, kind, dialect, fs.ErrNotExist)
}

// parseFile parses one file of sqlDir; one that does not exist is no
// statements and false.
func parseFile(sqlDir fs.FS, what, name string) ([]Statement, bool, error) {
	b, err := fs.ReadFile(sqlDir, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("%s SQL %s: %w", what, name, err)
	}
	list, err := Parse(string(b))
	if err != nil {
		return nil, false, fmt.Errorf("%s SQL %s: %w", what, name, err)
	}
	return list, true, nil
}
