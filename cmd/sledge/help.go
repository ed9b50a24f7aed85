package main

import (
	"embed"
	"strings"

	"github.com/spf13/cobra"
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
