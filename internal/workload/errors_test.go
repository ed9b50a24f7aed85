package workload

import (
	"errors"
	"testing"
)

// A SchemaError's kind brings back the same sentinel, workload and Holds.
func TestSchemaErrorKindRoundTrip(t *testing.T) {
	t.Parallel()
	for _, sentinel := range []error{ErrSchemaExists, ErrNoSchema, ErrSchemaUnusable} {
		e := &SchemaError{Err: sentinel, Workload: "tproch", Msg: "what was found", Holds: "tprocc"}
		k := e.Kind()
		if k == "" {
			t.Fatalf("%v: no kind", sentinel)
		}
		got := SchemaErrorOf(k, e.Workload, e.Holds, e.Msg)
		if got == nil || !errors.Is(got, sentinel) || *got != *e {
			t.Errorf("%v: kind %q gives back %#v", sentinel, k, got)
		}
	}
	if k := (&SchemaError{Err: errors.New("other")}).Kind(); k != "" {
		t.Errorf("another error's kind %q, want none", k)
	}
	if got := SchemaErrorOf("nonesuch", "tprocc", "", "m"); got != nil {
		t.Errorf("an unknown kind gives %#v, want nil", got)
	}
}
