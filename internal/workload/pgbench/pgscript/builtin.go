package pgscript

import (
	"fmt"
	"strconv"
	"strings"
)

// The built-in scripts, as pgbench's documentation describes them: the
// transaction loosely based on TPC-B, the same without the updates of
// tellers and branches, and a single account read.
var builtins = []struct{ name, desc, src string }{
	{"tpcb-like", "<builtin: TPC-B (sort of)>", `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`},
	{"simple-update", "<builtin: simple update>", `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`},
	{"select-only", "<builtin: select only>", `\set aid random(1, 100000 * :scale)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
`},
}

// BuiltinNames lists the built-in scripts.
func BuiltinNames() []string {
	names := make([]string, len(builtins))
	for i, b := range builtins {
		names[i] = b.name
	}
	return names
}

// Builtin returns the built-in script name, or the only one whose name
// starts with name (as pgbench's -b accepts "tpcb" or "select").
func Builtin(name string) (*Script, error) {
	found := -1
	for i, b := range builtins {
		if name == "" {
			break
		}
		if b.name == name {
			found = i
			break
		}
		if strings.HasPrefix(b.name, name) {
			if found >= 0 {
				return nil, fmt.Errorf("ambiguous built-in script name %q", name)
			}
			found = i
		}
	}
	if found < 0 {
		return nil, fmt.Errorf("no built-in script named %q (%s)", name, strings.Join(BuiltinNames(), ", "))
	}
	s, err := Parse(builtins[found].name, builtins[found].src)
	if err != nil {
		panic("built-in script " + builtins[found].name + ": " + err.Error())
	}
	return s, nil
}

// BuiltinSource returns the text of a built-in script.
func BuiltinSource(name string) (string, bool) {
	for _, b := range builtins {
		if b.name == name {
			return b.src, true
		}
	}
	return "", false
}

// SplitWeight splits "name@weight" at its last @; without one the weight
// is 1.
func SplitWeight(spec string) (string, int, error) {
	at := strings.LastIndexByte(spec, '@')
	if at < 0 {
		return spec, 1, nil
	}
	name, w := spec[:at], spec[at+1:]
	n, err := strconv.ParseInt(w, 10, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return "", 0, fmt.Errorf("weight %q out of range (0 .. %d)", w, MaxWeight)
		}
		return "", 0, fmt.Errorf("invalid weight %q in %q", w, spec)
	}
	if n < 0 || n > MaxWeight {
		return "", 0, fmt.Errorf("weight %d out of range (0 .. %d)", n, MaxWeight)
	}
	return name, int(n), nil
}

// ParseDefine reads a predefined variable written name=value (pgbench's
// -D): the name is what precedes the first =, and neither may be empty.
func ParseDefine(s string) (Define, error) {
	name, value, ok := strings.Cut(s, "=")
	if !ok || name == "" || value == "" {
		return Define{}, fmt.Errorf("invalid variable definition %q: name=value is expected", s)
	}
	if !ValidName(name) {
		return Define{}, fmt.Errorf("invalid variable name %q", name)
	}
	return Define{Name: name, Value: value}, nil
}

// ParseSeed reads a random seed written as an unsigned decimal integer
// (pgbench's --random-seed also takes "time" and "rand", which draw one:
// the caller's choice, not this package's).
func ParseSeed(s string) (uint64, error) {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid random seed %q: an unsigned integer is expected", s)
	}
	return n, nil
}

// BuiltinDesc is how pgbench names a built-in script in its reports
// ("<builtin: TPC-B (sort of)>").
func BuiltinDesc(name string) (string, bool) {
	for _, b := range builtins {
		if b.name == name {
			return b.desc, true
		}
	}
	return "", false
}
