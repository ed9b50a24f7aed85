// Package config holds Sledge's typed settings: where its files live, and the
// validated options of each command.
package config

import (
	"errors"
	"path/filepath"
)

// Env is the part of the process environment that says where Sledge's
// files live. The command reads it once (cmd/sledge's global state) and
// hands it down as a value: no package below the command reads the
// environment, so that tests can run side by side, each with its own.
type Env struct {
	SledgeHome  string // $SLEDGE_HOME: the data directory
	XDGDataHome string // $XDG_DATA_HOME
	UserHome    string // the user's home directory ("" when unknown)
	Repo        string // $SLEDGE_REPO: the jobs repository
}

// DataDir is where Sledge keeps its own files: $SLEDGE_HOME, else
// $XDG_DATA_HOME/sledge, else ~/.local/share/sledge.
func (e Env) DataDir() (string, error) {
	switch {
	case e.SledgeHome != "":
		return e.SledgeHome, nil
	case e.XDGDataHome != "":
		return filepath.Join(e.XDGDataHome, "sledge"), nil
	case e.UserHome != "":
		return filepath.Join(e.UserHome, ".local", "share", "sledge"), nil
	}
	return "", errors.New("find a data directory: no home directory (set SLEDGE_HOME or XDG_DATA_HOME)")
}

// RepoPath is the jobs repository: flag (--repo) when given, else
// $SLEDGE_REPO, else DataDir/jobs.db.
func (e Env) RepoPath(flag string) (string, error) {
	switch {
	case flag != "":
		return flag, nil
	case e.Repo != "":
		return e.Repo, nil
	}
	d, err := e.DataDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "jobs.db"), nil
}
