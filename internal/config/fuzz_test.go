package config

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// specSeeds are the seed corpus of FuzzSpec: API bodies as clients send
// them (every kind, every setting, durations as text and as seconds),
// destructive jobs with and without confirm, and malformed bodies. `go
// test` runs them as a regular test; `go test -fuzz FuzzSpec
// ./internal/config/` explores from them.
var specSeeds = []string{
	`{"kind":"run","workload":"tprocc","db":"postgres://u:p@127.0.0.1:5432/tpcc","vu":2,"rampup":"2s","duration":"10s"}`,
	`{"kind":"run","vu":8,"rampup":1.5,"duration":300,"interval":"500ms","mode":"procs","isolation":"serializable","max_retries":3,"exec_mode":"simple","random_home":true,"seed":42}`,
	`{"kind":"run","pacing":"spec","pacing_scale":0.01,"vu":10,"warehouses":1}`,
	`{"kind":"run","thresholds":["nopm>=40000","p99(new_order)<50ms","errors<1%"]}`,
	`{"kind":"run","thresholds":["p99<50",""]}`,
	`{"kind":"run","thresholds":[]}`,
	`{"kind":"run","workload":"tproch","streams":2,"query_sets":1,"refresh":true,"validate":true,"seed":1122334455}`,
	`{"kind":"build","warehouses":4,"workers":2,"loader":"stream","engine":"InnoDB","db":"mysql://root@127.0.0.1:3306/tpcc"}`,
	`{"kind":"build","workload":"tproch","scale":0.01,"db":"duckdb:bench.duckdb"}`,
	`{"kind":"build","force":true}`,
	`{"kind":"build","force":true,"confirm":true}`,
	`{"kind":"drop"}`,
	`{"kind":"drop","confirm":true,"db":"bench"}`,
	`{"kind":"drop","confirm":"yes"}`,
	`{"kind":"check","db":"sqlite:../../escape.db"}`,
	`{"kind":"run","client_cpus":2}`,
	`{"kind":"run","vu":0,"warehouses":0,"scale":0,"mode":"","pacing":"","query_sets":0}`,
	`{"kind":"run","vu":-1,"rampup":"-3s","duration":"0s","interval":"1ms","max_retries":1000}`,
	`{"kind":"run","vu":1e9,"duration":1e300,"interval":-0.0}`,
	`{"kind":"run","duration":"forever"}`,
	`{"kind":"run","rampup":null,"duration":null}`,
	`{"kind":"run","vu":"two"}`,
	`{"kind":"run","vu":2.5}`,
	`{"kind":"explode"}`,
	`{"kind":"run","turbo":true}`,
	`{"kind":"run"} {"kind":"run"}`,
	`{"kind":"run","KIND":"drop"}`,
	`{"kind":"run","kind":"drop"}`,
	`{}`,
	`[]`,
	`null`,
	`"run"`,
	``,
	`{`,
	`{"kind":"run","seed":18446744073709551615}`,
	`{"kind":"run","seed":-1}`,
	"{\"kind\":\"run\",\"db\":\"sqlite:/tmp/\\u0000.db\"}",
	"\xef\xbb\xbf{\"kind\":\"run\"}",
}

// specFields are the JSON names of Spec's fields.
func specFields() map[string]bool {
	names := map[string]bool{}
	t := reflect.TypeOf(Spec{})
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		names[name] = true
	}
	return names
}

// FuzzSpec: whatever the body, Decode either returns a spec or field
// errors (never a panic); a decoded spec survives being written back to
// JSON and decoded again unchanged (the API's body and the recorded spec
// are the same thing); Validate's errors name real fields, each message
// starting with its field's name; and no destructive job validates without
// confirm.
func FuzzSpec(f *testing.F) {
	for _, s := range specSeeds {
		f.Add([]byte(s))
	}
	fields := specFields()
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Decode(b)
		if err != nil {
			fe := Fields(err)
			if len(fe) == 0 || fe[0].Msg == "" {
				t.Fatalf("Decode(%q): error %v carries no field error with a message", b, err)
			}
			return
		}
		out, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("Decode(%q) = %+v, which does not marshal: %v", b, s, err)
		}
		again, err := Decode(out)
		if err != nil {
			t.Fatalf("Decode(%q) = %+v, but its JSON %s does not decode: %v", b, s, out, err)
		}
		if !sameSpec(again, s) {
			t.Fatalf("Decode(%q) = %+v, but its JSON %s decodes to %+v", b, s, out, again)
		}
		verr := s.Validate()
		for _, e := range Fields(verr) {
			if !fields[e.Field] {
				t.Errorf("Validate(%s): error %q names %q, not a field of the spec", out, e.Msg, e.Field)
			}
			if !strings.HasPrefix(e.Msg, e.Field) {
				t.Errorf("Validate(%s): message %q does not start with its field %q", out, e.Msg, e.Field)
			}
		}
		destructive := s.Kind == KindDrop || s.Kind == KindBuild && s.Force
		if destructive && !s.Confirm && verr == nil {
			t.Errorf("Validate(%s) accepts a destructive job without confirm", out)
		}
	})
}

// sameSpec compares two specs field by field, an empty list of thresholds
// as none (JSON leaves both out).
func sameSpec(a, b Spec) bool {
	if !slices.Equal(a.Thresholds, b.Thresholds) {
		return false
	}
	a.Thresholds, b.Thresholds = nil, nil
	return reflect.DeepEqual(a, b)
}
