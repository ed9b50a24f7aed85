package observe

// Kinds of session: the activity samples of both server observers are also
// counted by the kind of session that was active, so that a run with more
// than one kind (a mixed run's analytic streams beside its virtual users)
// has its waits apart. PostgreSQL sessions name themselves
// (application_name); MySQL and MariaDB have no such name in the
// processlist (connection attributes are performance_schema's, off by
// default on MariaDB), so there a statement's leading comment names its
// session's kind, as "/* sledge chbench analytic */ SELECT …" does.

import (
	"cmp"
	"slices"
	"strings"
)

// Sources of the session-kind counters: the source is the prefix and the
// kind, the counter's name "aas " and the wait class.
const (
	pgKindSource    = "pg_stat_activity application "
	mysqlKindSource = "processlist application "
	kindAASPrefix   = "aas "
	// UnnamedKind is the kind of a session that gives no name (no
	// application_name, no leading comment).
	UnnamedKind = "(unnamed)"
	// maxKindKeys bounds the (kind, wait class) pairs counted in an
	// interval: sessions name themselves, and a server with many names must
	// not grow the observer's memory.
	maxKindKeys = 64
	// maxKindLen bounds a kind taken from a statement's comment.
	maxKindLen = 64
)

// SessionKind says whether c is a session-kind counter (of either server
// observer) and, if so, the kind of session and the wait class it counts
// in average active sessions.
func SessionKind(c Counter) (kind, class string, ok bool) {
	for _, p := range []string{pgKindSource, mysqlKindSource} {
		if k, found := strings.CutPrefix(c.Source, p); found {
			if class, isAAS := strings.CutPrefix(c.Name, kindAASPrefix); isAAS && c.Kind == Gauge {
				return k, class, true
			}
			return "", "", false
		}
	}
	return "", "", false
}

// kindTally counts session samples by (kind, wait class).
type kindTally map[[2]string]int

// add counts one active session of kind in class, unless the tally is full
// and the pair new.
func (t kindTally) add(kind, class string) {
	if kind == "" {
		kind = UnnamedKind
	}
	if k := [2]string{kind, class}; t[k] > 0 || len(t) < maxKindKeys {
		t[k]++
	}
}

// counters are the tally over samples as gauges in average active
// sessions: counter "aas CLASS" of source prefix+KIND, sorted.
func (t kindTally) counters(prefix string, samples int) []Counter {
	if samples == 0 || len(t) == 0 {
		return nil
	}
	out := make([]Counter, 0, len(t))
	for k, n := range t {
		out = append(out, Counter{Source: prefix + k[0], Name: kindAASPrefix + k[1], Kind: Gauge,
			Unit: "sessions", Value: float64(n) / float64(samples)})
	}
	slices.SortFunc(out, func(x, y Counter) int { return cmp.Or(cmp.Compare(x.Source, y.Source), cmp.Compare(x.Name, y.Name)) })
	return out
}

// statementKind is the kind a MySQL/MariaDB statement names by its leading
// comment ("/* NAME */ …"), "" when it has none. Optimizer hints (/*+)
// and executable comments (/*! and MariaDB's /*M!) are statement, not a
// name.
func statementKind(sql string) string {
	rest, ok := strings.CutPrefix(strings.TrimLeft(sql, " \t\r\n"), "/*")
	if !ok || strings.HasPrefix(rest, "+") || strings.HasPrefix(rest, "!") || strings.HasPrefix(rest, "M!") {
		return ""
	}
	name, _, closed := strings.Cut(rest, "*/")
	name = strings.Join(strings.Fields(name), " ")
	if !closed || name == "" || len(name) > maxKindLen {
		return ""
	}
	return name
}
