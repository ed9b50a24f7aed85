package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/sledge-bench/sledge/internal/config"
)

// TestFlagNameIsAFlag: every spec field a command sets from a flag is
// worded, in the job service's field errors, as a flag that exists:
// --scripts and --defines were named for --script and --define.
func TestFlagNameIsAFlag(t *testing.T) {
	t.Parallel()
	root := newRootCmd(newTestState(t))
	flags := map[string]bool{}
	for _, c := range root.Commands() {
		c.Flags().VisitAll(func(f *pflag.Flag) { flags["--"+f.Name] = true })
	}
	runFlags := pflag.NewFlagSet("arm", pflag.ContinueOnError)
	spec := config.New(config.KindRun)
	bindRunFlags(runFlags, &spec)
	st := reflect.TypeFor[config.Spec]()
	for i := range st.NumField() {
		field, _, _ := strings.Cut(st.Field(i).Tag.Get("json"), ",")
		if field == "" || field == "-" {
			continue
		}
		name := flagName(field)
		if strings.HasPrefix(name, "--") && !flags[strings.Fields(name)[0]] {
			t.Errorf("field %s is worded as %s, which no command has", field, name)
		}
		// A gate's arm (--b-set KEY=VALUE) sets the run flags, and --rate.
		top := strings.TrimPrefix(name, "--")
		if runFlags.Lookup(top) == nil && top != "rate" {
			continue
		}
		if arm, want := flagName("b."+field), "--b-set "+top; arm != want {
			t.Errorf("field b.%s is worded as %s, want %s (the key armSpec takes)", field, arm, want)
		}
	}
}
