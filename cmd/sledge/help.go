package main

import (
	"embed"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sledge-bench/sledge/internal/flagtable"
)

// helpTexts are the commands' long help texts, one file per command named
// by its path (help/jobs-show.txt is `sledge jobs show`'s): the long
// description, then, after a blank line and a line "Examples:", the
// examples as cobra prints them. README.md shows each under the command's
// section (help_readme_test.go keeps the two equal).
//
//go:embed help/*.txt
var helpTexts embed.FS

// withHelp sets cmd's Long and Example from help/NAME.txt.
func withHelp(name string, cmd *cobra.Command) *cobra.Command {
	b, err := helpTexts.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic(err) // a help file is missing: the binary is broken
	}
	cmd.Long, cmd.Example, _ = strings.Cut(strings.TrimSuffix(string(b), "\n"), "\n\nExamples:\n")
	return cmd
}

// flagTables are the tables of the flags that only set a field of a
// command's settings — a job spec, k8s.Options, an SLO search's request —
// one file per table (flags/run.txt is every run's), in flagtable's format:
// a line per flag, its name, a tab and its help.
//
//go:embed flags/*.txt
var flagTables embed.FS

// bindFlags binds the flags of flags/TABLE.txt onto the fields of the
// struct v points to, each defaulting to the field's value.
func bindFlags(fl *pflag.FlagSet, table string, v any) {
	b, err := flagTables.ReadFile("flags/" + table + ".txt")
	if err == nil {
		err = flagtable.Bind(fl, string(b), v)
	}
	if err != nil {
		panic(fmt.Sprintf("flags/%s.txt: %v", table, err)) // the binary is broken
	}
}
