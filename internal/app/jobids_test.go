package app

import (
	"slices"
	"strings"
	"testing"
)

func TestParseJobIDs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want []int64
		err  string
	}{
		{args: []string{"1", "42"}, want: []int64{1, 42}},
		{args: nil, want: []int64{}},
		{args: []string{"1", "x"}, err: `bad job id "x": want a positive number`},
		{args: []string{"0"}, err: `bad job id "0"`},
		{args: []string{"-3"}, err: `bad job id "-3"`},
	} {
		ids, err := ParseJobIDs(tc.args)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: error %v, want %q", tc.args, err, tc.err)
		case tc.err == "" && (err != nil || !slices.Equal(ids, tc.want)):
			t.Errorf("%q: %v, %v; want %v", tc.args, ids, err, tc.want)
		}
	}
}
