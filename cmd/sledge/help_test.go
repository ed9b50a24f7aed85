package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/workload"
)

// TestFlagHelpNamesEveryForm: a flag's help names every value it accepts,
// so --help tells the truth as the code grows.
func TestFlagHelpNamesEveryForm(t *testing.T) {
	t.Parallel()
	root := newRootCmd(newTestState(t))
	find := func(path string) *cobra.Command {
		c, _, err := root.Find(strings.Fields(path))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return c
	}
	flag := func(path, name string) *pflag.Flag {
		f := find(path).Flags().Lookup(name)
		if f == nil {
			t.Fatalf("%s has no --%s", path, name)
		}
		return f
	}
	forms := map[string][]string{
		"db":        {"postgres://", "mysql://", "mariadb://", "sqlite:", "duckdb:", "$SLEDGE_DB"},
		"workload":  workload.Names(),
		"mode":      {"auto", "procs", "sql"},
		"isolation": {"read-committed", "repeatable-read", "serializable"},
		"exec-mode": {"prepared", "simple"},
		"pacing":    {"off", "spec"},
		"metrics":   {"on", "off", "pg_stat_activity", "SHOW GLOBAL STATUS", "performance_schema", "/proc", "read-only"},
		"loader":    {"stream", "insert"},
		"format":    {"text", "json"},
		"kind":      config.Kinds,
		"status":    jobs.Statuses,
		"between":   config.BetweenChoices,
		"rate":      {"transactions per second", "new_order=", "Poisson", "--connections"},
		"stages":    {"DURATION:TARGET", "VUs", "terminals", "transactions per second"},
		"terminals": {"--connections", "10 per warehouse", "--pacing spec"},
	}
	for _, c := range []struct{ cmd, flag string }{
		{"build", "db"}, {"run", "db"}, {"check", "db"}, {"drop", "db"},
		{"build", "workload"}, {"run", "workload"}, {"check", "workload"}, {"drop", "workload"}, {"datagen", "workload"},
		{"run", "mode"}, {"run", "isolation"}, {"run", "exec-mode"}, {"run", "pacing"}, {"run", "metrics"}, {"build", "loader"},
		{"jobs", "format"}, {"jobs", "kind"}, {"jobs", "status"}, {"jobs show", "format"}, {"jobs diff", "format"},
		{"run", "between"}, {"profile", "between"}, {"run", "rate"}, {"run", "stages"}, {"run", "terminals"},
	} {
		usage := flag(c.cmd, c.flag).Usage
		for _, want := range forms[c.flag] {
			if !strings.Contains(usage, want) {
				t.Errorf("sledge %s --%s help does not name %q: %s", c.cmd, c.flag, want, usage)
			}
		}
	}
	// Every flag of every command: no backquotes (cobra would show the
	// quoted word as the flag's type), and a default is not said twice.
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if strings.Contains(f.Usage, "`") {
				t.Errorf("sledge %s --%s: backquotes in %q", c.CommandPath(), f.Name, f.Usage)
			}
			if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && strings.Contains(f.Usage, "(default "+f.DefValue+")") {
				t.Errorf("sledge %s --%s says its default twice", c.CommandPath(), f.Name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	// The root's help describes both workloads.
	for _, want := range []string{"TPROC-C", "TPROC-H", "DuckDB", "MariaDB"} {
		if !strings.Contains(root.Long, want) {
			t.Errorf("sledge --help does not mention %s", want)
		}
	}
}

// TestSandboxHelpHidesGlobalFlags: --repo and --server do nothing for a
// sandbox; its help does not offer them.
func TestSandboxHelpHidesGlobalFlags(t *testing.T) {
	t.Parallel()
	out, err := newEnv(t).run("sandbox", "postgres", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, hidden := range []string{"--repo", "--server"} {
		if strings.Contains(out, hidden) {
			t.Errorf("sandbox help offers %s:\n%s", hidden, out)
		}
	}
}
