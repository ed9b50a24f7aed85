// Package config holds Sledge's typed settings: where its files live, and the
// validated options of each command.
package config

import (
	"fmt"
	"os"
	"path/filepath"
)

// DataDir is where Sledge keeps its own files: $SLEDGE_HOME, else
// $XDG_DATA_HOME/sledge, else ~/.local/share/sledge.
func DataDir() (string, error) {
	if d := os.Getenv("SLEDGE_HOME"); d != "" {
		return d, nil
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "sledge"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find a data directory (set SLEDGE_HOME or XDG_DATA_HOME): %w", err)
	}
	return filepath.Join(home, ".local", "share", "sledge"), nil
}

// RepoPath is the jobs repository: flag value, else $SLEDGE_REPO, else
// DataDir/jobs.db.
func RepoPath(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if p := os.Getenv("SLEDGE_REPO"); p != "" {
		return p, nil
	}
	d, err := DataDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "jobs.db"), nil
}
