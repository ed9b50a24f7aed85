package sqlfile

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// A workload keeps its SQL in a sql/ directory of base files and dialect
// override files (see Overlay). LayoutProblems is the one check of that
// layout every such workload's tests run on its embedded directory.

// LayoutProblems checks a sql/ directory: every file is a base
// (<kind>.sql) or a dialect's (<dialect>/<kind>.sql); a dialect's file over a
// base holds at least one statement, each with a "-- differs:" reason and
// different from the base's; each base statement's "-- overridden:" line
// names exactly the dialects whose file replaces it; and a dialect's file
// with no base carries no directives.
func LayoutProblems(sqlDir fs.FS, dialects []string) []string {
	var problems []string
	fail := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	parse := func(name string) []Statement {
		b, err := fs.ReadFile(sqlDir, name)
		if err != nil {
			fail("%s: %v", name, err)
			return nil
		}
		list, err := Parse(string(b))
		if err != nil {
			fail("%s: %v", name, err)
		}
		return list
	}
	files, err := fs.Glob(sqlDir, "*.sql")
	if err != nil {
		return []string{err.Error()}
	}
	more, err := fs.Glob(sqlDir, "*/*.sql")
	if err != nil {
		return []string{err.Error()}
	}
	bases := map[string][]Statement{}
	for _, name := range files {
		bases[strings.TrimSuffix(name, ".sql")] = parse(name)
	}
	for _, f := range more {
		d, kind := path.Dir(f), strings.TrimSuffix(path.Base(f), ".sql")
		if !slices.Contains(dialects, d) {
			fail("%s: not a base file nor a known dialect's", f)
			continue
		}
		if _, hasBase := bases[kind]; hasBase {
			continue
		}
		for _, s := range parse(f) {
			if _, ok := Differs(s); ok {
				fail("%s %s: -- differs: without a base to differ from", f, s.Name)
			}
			if OverriddenBy(s) != nil {
				fail("%s %s: -- overridden: without a base", f, s.Name)
			}
		}
	}
	for kind, base := range bases {
		plain, err := Overlay(base, nil)
		if err != nil {
			fail("%s.sql: %v", kind, err)
			continue
		}
		overriders := map[string][]string{} // statement → dialects replacing it
		for _, d := range dialects {
			f := d + "/" + kind + ".sql"
			if _, err := fs.Stat(sqlDir, f); err != nil {
				continue
			}
			over := parse(f)
			if len(over) == 0 {
				fail("%s overrides nothing: remove it", f)
			}
			for _, o := range over {
				overriders[o.Name] = append(overriders[o.Name], d)
			}
			if _, err := Overlay(base, over); err != nil {
				fail("%s over %s.sql: %v", f, kind, err)
				continue
			}
			for _, o := range over {
				if _, ok := Differs(o); !ok {
					fail("%s %s has no -- differs: line saying why", f, o.Name)
				}
				merged, _ := Overlay(base, []Statement{o})
				i := slices.IndexFunc(merged, func(s Statement) bool { return s.Name == o.Name })
				if merged[i].SQL == plain[i].SQL {
					fail("%s %s is identical to the base: remove it", f, o.Name)
				}
			}
		}
		for _, s := range base {
			listed := OverriddenBy(s)
			slices.Sort(listed)
			by := overriders[s.Name]
			slices.Sort(by)
			if !slices.Equal(listed, by) {
				fail("%s.sql %s: -- overridden: names %v, overridden by %v", kind, s.Name, listed, by)
			}
		}
	}
	return problems
}
