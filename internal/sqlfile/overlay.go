package sqlfile

import (
	"fmt"
	"strings"
)

// A workload's SQL can be kept as one base file per kind of statement plus,
// per dialect, an override file holding only the statements whose text
// differs there (BenchBase's dialect-<db>.xml model). Two directive lines
// document the split; each stands directly under its statement's
// "-- name:" line, and Overlay takes it out, so neither reaches a database:
//
//	-- overridden: duckdb (cast to DATE), mysql (INTERVAL n unit)
//	    in the base: the dialects whose file replaces this statement,
//	    each with an optional reason in parentheses
//	-- differs: MySQL's INTERVAL takes a bare number
//	    in an override: why this dialect cannot use the base text
const (
	overriddenDirective = "-- overridden:"
	differsDirective    = "-- differs:"
)

// Overlay merges a dialect's override statements onto the base statements:
// the result has the base's statements in the base's order, each one that
// override names replaced by override's text, and the directive lines above
// taken out of both. Overlay(base, nil) is the base as the dialects without
// an override file run it.
//
// An override must name a base statement: one that does not is refused (a
// misspelt name would otherwise add a statement or leave the base's in
// place unnoticed). Overlay cannot remove or add a statement, so a kind whose
// set of statements differs by dialect (not only their text) has no base
// file and lives whole in each dialect's file.
func Overlay(base, override []Statement) ([]Statement, error) {
	byName := make(map[string]string, len(override))
	for _, o := range override {
		if _, dup := byName[o.Name]; dup {
			return nil, fmt.Errorf("override %q repeated", o.Name)
		}
		byName[o.Name] = o.SQL
	}
	out := make([]Statement, 0, len(base))
	inBase := make(map[string]bool, len(base))
	for _, b := range base {
		if inBase[b.Name] {
			return nil, fmt.Errorf("base statement %q repeated", b.Name)
		}
		inBase[b.Name] = true
		sql := stripDirective(b.SQL, overriddenDirective)
		if o, ok := byName[b.Name]; ok {
			sql = stripDirective(o, differsDirective)
		}
		if sql == "" {
			return nil, fmt.Errorf("statement %q has no SQL besides its directive", b.Name)
		}
		out = append(out, Statement{Name: b.Name, SQL: sql})
	}
	for _, o := range override {
		if !inBase[o.Name] {
			return nil, fmt.Errorf("override %q names no statement of the base", o.Name)
		}
	}
	return out, nil
}

// OverriddenBy returns the dialects a base statement's "-- overridden:" line
// names, in the order written, without their reasons; none when it has no
// such line.
func OverriddenBy(s Statement) []string {
	v, ok := directive(s.SQL, overriddenDirective)
	if !ok {
		return nil
	}
	// Drop the parenthesised reasons (which may hold commas), then split.
	var b strings.Builder
	depth := 0
	for _, r := range v {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	var out []string
	for _, d := range strings.Split(b.String(), ",") {
		if d = strings.TrimSpace(d); d != "" {
			out = append(out, d)
		}
	}
	return out
}

// Differs returns the reason an override statement's "-- differs:" line
// gives, and whether it has one.
func Differs(s Statement) (string, bool) {
	return directive(s.SQL, differsDirective)
}

// directive finds the directive line prefix directly under the name line:
// the first line of sql.
func directive(sql, prefix string) (string, bool) {
	first, _, _ := strings.Cut(sql, "\n")
	v, ok := strings.CutPrefix(strings.TrimSpace(first), prefix)
	if !ok {
		return "", false
	}
	return strings.TrimSpace(v), true
}

// stripDirective takes the directive line prefix off the top of sql.
func stripDirective(sql, prefix string) string {
	if _, ok := directive(sql, prefix); !ok {
		return sql
	}
	_, rest, _ := strings.Cut(sql, "\n")
	return strings.TrimSpace(rest)
}
