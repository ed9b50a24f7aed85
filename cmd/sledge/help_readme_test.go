package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// readmeHelp is a help block of README.md: what `sledge PATH --help` says
// before its flags, folded under the heading of the command's section.
type readmeHelp struct {
	heading, text string
}

// readmeHelpBlocks reads the help blocks of README.md by command path: a
// line <details><summary><code>sledge PATH --help</code></summary>, then a
// fenced block (```text) holding the text.
func readmeHelpBlocks(t *testing.T, readme string) map[string]readmeHelp {
	t.Helper()
	start := regexp.MustCompile("^<details><summary><code>sledge ?(.*) --help</code></summary>$")
	blocks := map[string]readmeHelp{}
	lines := strings.Split(readme, "\n")
	heading, fenced := "", false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		if strings.HasPrefix(l, "#") {
			heading = l
			continue
		}
		m := start.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		path := m[1]
		i++
		for i < len(lines) && lines[i] == "" {
			i++
		}
		if i == len(lines) || lines[i] != "```text" {
			t.Fatalf("README.md:%d: the help of sledge %s is not followed by a ```text block", i, path)
		}
		var text []string
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			text = append(text, lines[i])
		}
		if _, dup := blocks[path]; dup {
			t.Errorf("README.md shows the help of sledge %s twice", path)
		}
		blocks[path] = readmeHelp{heading: heading, text: strings.Join(text, "\n")}
	}
	return blocks
}

// trimLines removes the trailing spaces of every line, and trailing blank lines.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// TestREADMEShowsHelp: every command's long help (its embedded help/*.txt,
// as --help prints it: the description, then the examples) is in README.md
// in its command's section, the same text; and the README shows no help
// that no command has. A change to either side alone fails.
func TestREADMEShowsHelp(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := readmeHelpBlocks(t, string(readme))
	// The README headings under which the commands whose section is not
	// headed by their name are documented.
	readmeSections := map[string]string{
		"":             "## Commands",
		"sandbox":      "### `sledge sandbox postgres`",
		"profile":      "### Performance profiles",
		"profile show": "### Performance profiles",
		"profile list": "### Performance profiles",
		"compare":      "### Performance profiles",
		"jobs show":    "### `sledge jobs`",
		"slo show":     "### `sledge slo`",
		"jobs diff":    "### `sledge jobs`",
		"jobs hlog":    "### `sledge jobs`",
		"jobs delete":  "### `sledge jobs`",
		"datagen":      "## TPROC-H",
		"serve":        "## `sledge serve`: HTTP API and web UI",
		"k8s":          "## Several client machines: Kubernetes and other launchers",
		"k8s manifest": "## Several client machines: Kubernetes and other launchers",
		"cli":          "## Scripting: HammerDB CLI scripts (Tcl) and Python",
	}
	root := newRootCmd(newTestState(t))
	files, err := helpTexts.ReadDir("help")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(f.Name(), ".txt")
		path := strings.ReplaceAll(name, "-", " ")
		if name == "sledge" {
			path = ""
		}
		cmd, _, err := root.Find(strings.Fields(path))
		if err != nil || strings.TrimPrefix(cmd.CommandPath(), "sledge") != prefixed(path) {
			t.Errorf("help/%s: no command sledge %s", f.Name(), path)
			continue
		}
		want := cmd.Long
		if cmd.Example != "" {
			want += "\n\nExamples:\n" + cmd.Example
		}
		heading, ok := readmeSections[path]
		if !ok {
			heading = "### `sledge " + path + "`"
		}
		got, ok := blocks[path]
		delete(blocks, path)
		switch {
		case !ok:
			t.Errorf("README.md does not show the help of sledge %s (under %s):\n%s", path, heading, want)
		case got.heading != heading:
			t.Errorf("README.md shows the help of sledge %s under %q, want %q", path, got.heading, heading)
		case trimLines(got.text) != trimLines(want):
			t.Errorf("README.md's help of sledge %s differs from help/%s: %s", path, f.Name(), firstDiff(trimLines(got.text), trimLines(want)))
		}
	}
	for path := range blocks {
		t.Errorf("README.md shows a help of sledge %s, which has no help text (help/*.txt)", path)
	}
	// Every command's long help is a help file: none is left in the code.
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		name := strings.ReplaceAll(strings.TrimPrefix(strings.TrimPrefix(c.CommandPath(), "sledge"), " "), " ", "-")
		if name == "" {
			name = "sledge"
		}
		if _, err := helpTexts.ReadFile("help/" + name + ".txt"); c.Long != "" && err != nil {
			t.Errorf("sledge %s: its long help is not in help/%s.txt", c.CommandPath(), name)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// prefixed is a command path as CommandPath ends: " PATH", or "" for the root.
func prefixed(path string) string {
	if path == "" {
		return ""
	}
	return " " + path
}

// firstDiff says where two texts first differ, by line.
func firstDiff(readme, help string) string {
	r, h := strings.Split(readme, "\n"), strings.Split(help, "\n")
	for i := 0; i < len(r) || i < len(h); i++ {
		var rl, hl string
		if i < len(r) {
			rl = r[i]
		}
		if i < len(h) {
			hl = h[i]
		}
		if rl != hl || i >= len(r) || i >= len(h) {
			return fmt.Sprintf("line %d:\n README: %q\n help:   %q", i+1, rl, hl)
		}
	}
	return "(equal)"
}
