package main

import (
	"strings"
	"testing"
)

// TestRunRateBounds: a rate the scheduler cannot honour — too low for the
// window (no arrival expected in it), beyond the bound, not a number — is
// refused before any job is recorded, worded with the flag that set it and,
// when too low, with the lowest rate the window allows.
func TestRunRateBounds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		// The run: 610k arrivals in 2 s, then a p95 of an hour.
		{[]string{"run", "--rate", "1e-12", "--duration", "2s"}, "--rate 1e-12 expects 2e-12 arrivals in the 2s measured window: want at least 0.5 transactions per second"},
		{[]string{"run", "--rate", "0.01"}, "--rate 0.01 expects 0.6 arrivals in the 1m0s measured window: want at least 0.0167"},
		{[]string{"run", "--rate", "new_order=1e-12,payment=1e-12"}, "--rate adds up to 2e-12 transactions per second, which expects"},
		{[]string{"run", "--rate", "new_order=6e5,payment=6e5"}, "--rate adds up to 1.2e+06 transactions per second: at most 1e+06"},
		{[]string{"run", "--rate", "1e12"}, "--rate: \"1e12\": want transactions per second, in (0, 1e+06]"},
		{[]string{"run", "--rate", "NaN"}, "--rate: \"NaN\""},
		{[]string{"run", "--rate", "+Inf"}, "--rate: \"+Inf\""},
		{[]string{"run", "--rate", "-5"}, "--rate: \"-5\""},
		{[]string{"run", "--rate", "new_order=Inf"}, "--rate: \"new_order=Inf\""},
		{[]string{"run", "--rate", "10", "--stages", "10s:5,10s:1e-12"}, "--stages stage 2: 1e-12 transactions per second expects 1e-11 arrivals in its 10s: want at least 0.1 per second"},
		{[]string{"run", "--rate", "10", "--stages", "10s:Inf"}, "--stages step 1"},
		{[]string{"run", "--stages", "2562047h:1,2562047h:1"}, "--stages last more than 8760h0m0s together"},
		{[]string{"run", "--duration", "9000h"}, "--duration must be at most 8760h"},
	} {
		_, err := e.run(c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("sledge %s: %v, want an error saying %q", strings.Join(c.args, " "), err, c.want)
		}
	}
	if list := e.jobs(); len(list) != 0 {
		t.Errorf("refused rates left %d jobs: %v", len(list), list)
	}
}
