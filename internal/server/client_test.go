package server

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/sledge-bench/sledge/internal/config"
)

// TestAPIErrorFields: an error answer that names a field carries it as a
// field error, found through any wrapping, so that a front end words it as
// its own setting; one that names none carries none.
func TestAPIErrorFields(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  *APIError
		want config.FieldErrors
	}{
		{&APIError{StatusCode: 400, Field: "max_retries", Message: "max_retries must be in 0..100 (got -1)"},
			config.FieldErrors{{Field: "max_retries", Msg: "max_retries must be in 0..100 (got -1)"}}},
		{&APIError{StatusCode: 404, Message: "no job 9"}, nil},
	} {
		wrapped := fmt.Errorf("run: %w", tc.err)
		if got := config.Fields(wrapped); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("config.Fields(%v) = %+v, want %+v", tc.err, got, tc.want)
		}
		if got := tc.err.Error(); got != "server: "+tc.err.Message {
			t.Errorf("Error() = %q, want the server's message", got)
		}
	}
}
