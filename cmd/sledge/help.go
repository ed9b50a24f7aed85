package main

import (
	"embed"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sledge-bench/sledge/internal/config"
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

// flagTables are tables of flags bound onto the fields of a command's
// settings — a job spec, k8s.Options, an SLO search's request — one file
// per table (flags/run.txt is every run's): a line per flag, its name — with
// ",X" its shorthand, with "=FIELD" the field when its name is not the
// flag's without "-" (in any case; "A.B" for a field of field A) — then a
// tab and its help. The flag takes its type and default from the field
// (bindFlags), so that the many flags that only set a field are data, and
// a flag and its field cannot disagree.
//
//go:embed flags/*.txt
var flagTables embed.FS

// bindFlags binds the flags of flags/TABLE.txt onto the fields of the
// struct v points to, each defaulting to the field's value.
func bindFlags(fl *pflag.FlagSet, table string, v any) {
	b, err := flagTables.ReadFile("flags/" + table + ".txt")
	if err != nil {
		panic(err) // a table is missing: the binary is broken
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		name, usage, _ := strings.Cut(line, "\t")
		name, field, named := strings.Cut(name, "=")
		name, short, _ := strings.Cut(name, ",")
		if !named {
			field = strings.ReplaceAll(name, "-", "")
		}
		f := reflect.ValueOf(v).Elem()
		for _, part := range strings.Split(field, ".") {
			if f.Kind() == reflect.Struct {
				f = f.FieldByNameFunc(func(n string) bool { return strings.EqualFold(n, part) })
			}
		}
		if !f.IsValid() {
			panic(fmt.Sprintf("flags/%s.txt: --%s: no field %s", table, name, field))
		}
		switch p := f.Addr(); {
		case f.Type() == reflect.TypeFor[config.Duration]() || f.Type() == reflect.TypeFor[time.Duration]():
			d := convert[time.Duration](p)
			fl.DurationVarP(d, name, short, *d, usage)
		case f.Kind() == reflect.Int:
			fl.IntVarP(convert[int](p), name, short, int(f.Int()), usage)
		case f.Kind() == reflect.Uint64:
			fl.Uint64VarP(convert[uint64](p), name, short, f.Uint(), usage)
		case f.Kind() == reflect.Float64:
			fl.Float64VarP(convert[float64](p), name, short, f.Float(), usage)
		case f.Kind() == reflect.Bool:
			fl.BoolVarP(convert[bool](p), name, short, f.Bool(), usage)
		case f.Kind() == reflect.String:
			fl.StringVarP(convert[string](p), name, short, f.String(), usage)
		default:
			a := convert[[]string](p)
			fl.StringArrayVarP(a, name, short, *a, usage)
		}
	}
}

// convert is p, a pointer to a field, as a *T: the field's type or a named
// type over T (config.Duration, workload.DataFormat).
func convert[T any](p reflect.Value) *T {
	return p.Convert(reflect.TypeFor[*T]()).Interface().(*T)
}
