package app

import (
	"slices"
	"testing"
	"time"
)

func TestSysmonEnv(t *testing.T) {
	t.Parallel()
	const trace = "schedtrace=2147483647"
	for _, tc := range []struct {
		name    string
		environ []string
		uptime  time.Duration
		want    []string // nil: no re-exec
	}{
		{name: "no GODEBUG", environ: []string{"HOME=/h", "PATH=/bin"}, uptime: time.Hour,
			want: []string{"HOME=/h", "PATH=/bin", "GODEBUG=" + trace, SysmonMarker + "="}},
		{name: "user's GODEBUG kept", environ: []string{"GODEBUG=gctrace=1", "HOME=/h"}, uptime: time.Hour,
			want: []string{"HOME=/h", "GODEBUG=gctrace=1," + trace, SysmonMarker + "=gctrace=1"}},
		{name: "schedtrace set by the user", environ: []string{"GODEBUG=schedtrace=1000"}, uptime: time.Hour},
		{name: "up for about the period", environ: []string{"HOME=/h"}, uptime: 2147483647*time.Millisecond - time.Minute},
		{name: "up a day", environ: nil, uptime: 24 * time.Hour, want: []string{"GODEBUG=" + trace, SysmonMarker + "="}},
	} {
		got, ok := SysmonEnv(tc.environ, tc.uptime)
		if ok != (tc.want != nil) || !slices.Equal(got, tc.want) {
			t.Errorf("%s: SysmonEnv = %q, %v; want %q", tc.name, got, ok, tc.want)
		}
	}
}

func TestParseUptime(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"350735.47 234388.90\n", 350735470 * time.Millisecond, true},
		{"12 3", 12 * time.Second, true},
		{"", 0, false},
		{"up 3", 0, false},
	} {
		got, ok := ParseUptime([]byte(tc.in))
		if ok != tc.ok || got.Round(time.Millisecond) != tc.want {
			t.Errorf("ParseUptime(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
