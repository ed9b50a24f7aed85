package pgscript

import (
	"fmt"
	"sort"
)

// Vars are one client's variables. A variable holds a text (from -D, \gset,
// \aset), a typed value (from \set), or both once one was derived from the
// other; pgbench types a text only when an expression reads it, so a text
// that is never read is never checked.
type Vars struct {
	m map[string]*variable
}

type variable struct {
	text    string
	hasText bool
	val     Value // Kind 0: not typed yet
}

// NewVars returns an empty set of variables.
func NewVars() *Vars { return &Vars{m: map[string]*variable{}} }

// ValidName reports whether name may be a variable's name: ASCII letters,
// digits, underscores and any non-ASCII byte, not starting with a digit.
func ValidName(name string) bool {
	if name == "" || isDigit(name[0]) {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !isAlnum(name[i]) {
			return false
		}
	}
	return true
}

func (vs *Vars) lookupCreate(name string) (*variable, error) {
	if v := vs.m[name]; v != nil {
		return v, nil
	}
	if !ValidName(name) {
		return nil, fmt.Errorf("invalid variable name: %q", name)
	}
	v := &variable{}
	vs.m[name] = v
	return v, nil
}

// SetText assigns a text value, as -D, \gset and \aset do.
func (vs *Vars) SetText(name, text string) error {
	v, err := vs.lookupCreate(name)
	if err != nil {
		return err
	}
	*v = variable{text: text, hasText: true}
	return nil
}

// Set assigns a typed value, as \set does.
func (vs *Vars) Set(name string, val Value) error {
	v, err := vs.lookupCreate(name)
	if err != nil {
		return err
	}
	*v = variable{val: val}
	return nil
}

// Has reports whether name is defined.
func (vs *Vars) Has(name string) bool { return vs.m[name] != nil }

// Text returns the variable's text as substituted into SQL.
func (vs *Vars) Text(name string) (string, bool) {
	v := vs.m[name]
	if v == nil {
		return "", false
	}
	if !v.hasText {
		v.text, v.hasText = v.val.String(), true
	}
	return v.text, true
}

// value returns the variable's typed value, typing its text first if
// needed.
func (vs *Vars) value(name string) (Value, bool, error) {
	v := vs.m[name]
	if v == nil {
		return Value{}, false, nil
	}
	if v.val.Kind == 0 {
		val, err := ParseValue(v.text)
		if err != nil {
			return Value{}, true, fmt.Errorf("malformed variable %q value: %q", name, v.text)
		}
		v.val = val
	}
	return v.val, true, nil
}

// Names lists the defined variables in order.
func (vs *Vars) Names() []string {
	names := make([]string, 0, len(vs.m))
	for n := range vs.m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (vs *Vars) clone() *Vars {
	c := &Vars{m: make(map[string]*variable, len(vs.m))}
	for n, v := range vs.m {
		cp := *v
		c.m[n] = &cp
	}
	return c
}
