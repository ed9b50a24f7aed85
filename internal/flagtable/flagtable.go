// Package flagtable binds command-line flags that only set a field of a
// struct (a job spec, a request, a command's options) from a table of data
// instead of one binding each: the flag's type and default come from the
// field, so a flag and the field it sets cannot disagree, and a new such
// flag is a line of text.
//
// A table has a line per flag: its name — with ",X" its one-letter
// shorthand, with "=FIELD" the field when it is not the flag's name without
// "-" (compared in any case; "A.B" for field B of struct field A) — then a
// tab and its help.
package flagtable

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// Bind binds the flags of table onto the fields of the struct v points to,
// each defaulting to its field's value. The fields may be int, uint64,
// float64, bool, string, []string (a repeatable flag) or time.Duration, or
// a named type over one of them (one over int64 is taken for a duration).
func Bind(fl *pflag.FlagSet, table string, v any) error {
	for i, line := range strings.Split(strings.TrimSuffix(table, "\n"), "\n") {
		name, usage, ok := strings.Cut(line, "\t")
		name, field, named := strings.Cut(name, "=")
		name, short, _ := strings.Cut(name, ",")
		if !ok || name == "" {
			return fmt.Errorf("line %d: want NAME[,X][=FIELD], a tab and the help", i+1)
		}
		if !named {
			field = strings.ReplaceAll(name, "-", "")
		}
		f, err := lookup(reflect.ValueOf(v).Elem(), field)
		if err != nil {
			return fmt.Errorf("line %d: flag %s: %w", i+1, name, err)
		}
		p := f.Addr()
		switch {
		case f.Kind() == reflect.Int64 && f.Type().ConvertibleTo(reflect.TypeFor[time.Duration]()):
			d := as[time.Duration](p)
			fl.DurationVarP(d, name, short, *d, usage)
		case f.Kind() == reflect.Int:
			fl.IntVarP(as[int](p), name, short, int(f.Int()), usage)
		case f.Kind() == reflect.Uint64:
			fl.Uint64VarP(as[uint64](p), name, short, f.Uint(), usage)
		case f.Kind() == reflect.Float64:
			fl.Float64VarP(as[float64](p), name, short, f.Float(), usage)
		case f.Kind() == reflect.Bool:
			fl.BoolVarP(as[bool](p), name, short, f.Bool(), usage)
		case f.Kind() == reflect.String:
			fl.StringVarP(as[string](p), name, short, f.String(), usage)
		case p.Type().ConvertibleTo(reflect.TypeFor[*[]string]()):
			a := as[[]string](p)
			fl.StringArrayVarP(a, name, short, *a, usage)
		default:
			return fmt.Errorf("line %d: flag %s: field %s is a %s, not a flag's type", i+1, name, field, f.Type())
		}
	}
	return nil
}

// lookup finds field path ("A.B") in the struct v, by name in any case.
func lookup(v reflect.Value, path string) (reflect.Value, error) {
	for part := range strings.SplitSeq(path, ".") {
		if v.Kind() != reflect.Struct {
			return v, fmt.Errorf("no field %s: %s is no struct", path, v.Type())
		}
		v = v.FieldByNameFunc(func(n string) bool { return strings.EqualFold(n, part) })
		if !v.IsValid() {
			return v, fmt.Errorf("no field %s", path)
		}
	}
	return v, nil
}

// as is p, a pointer to a field, as a *T: the field's type or a named type
// over T (its conversion).
func as[T any](p reflect.Value) *T {
	return p.Convert(reflect.TypeFor[*T]()).Interface().(*T)
}
