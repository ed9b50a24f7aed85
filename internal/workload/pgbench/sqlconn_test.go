package pgbench

import (
	"reflect"
	"testing"
)

func TestQuestionMarks(t *testing.T) {
	t.Parallel()
	p := [][]byte{[]byte("7"), nil, []byte("x")}
	for _, c := range []struct {
		sql, want string
		args      []any
	}{
		{"SELECT 1", "SELECT 1", nil},
		{"UPDATE t SET a = a + $1 WHERE id = $3", "UPDATE t SET a = a + ? WHERE id = ?", []any{"7", "x"}},
		{"SELECT $1, $1, $2", "SELECT ?, ?, ?", []any{"7", "7", nil}},
		{"SELECT '$1', \"$2\", $3", "SELECT '$1', \"$2\", ?", []any{"x"}},
		{"SELECT $9, $", "SELECT $9, $", nil},
	} {
		got, args := questionMarks(c.sql, p)
		if got != c.want || !reflect.DeepEqual(args, c.args) {
			t.Errorf("questionMarks(%q) = %q %v, want %q %v", c.sql, got, args, c.want, c.args)
		}
	}
}
