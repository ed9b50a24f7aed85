package server

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/report"
	"github.com/sledge-bench/sledge/internal/workload"
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

// A job's end is its recorded error, which is the workload.SchemaError the
// record names (its kind, workload and holds), worded as recorded.
func TestJobEndErr(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		end    JobEnd
		schema error // the sentinel errors.Is finds, nil for none
		holds  string
	}{
		{JobEnd{Error: "no TPROC-C schema found", Schema: &report.SchemaErrorJSON{Kind: "no_schema", Workload: "tprocc", Holds: "tproch"}}, workload.ErrNoSchema, "tproch"},
		{JobEnd{Error: "build: it is there", Schema: &report.SchemaErrorJSON{Kind: "schema_exists", Workload: "tprocc"}}, workload.ErrSchemaExists, ""},
		{JobEnd{Error: "a kind from a newer server", Schema: &report.SchemaErrorJSON{Kind: "nonesuch", Workload: "tprocc"}}, nil, ""},
		{JobEnd{Error: "connection refused"}, nil, ""},
	} {
		err := tc.end.Err()
		var se *workload.SchemaError
		if err == nil || err.Error() != tc.end.Error || errors.As(err, &se) != (tc.schema != nil) {
			t.Errorf("%+v: %v (%T)", tc.end, err, err)
			continue
		}
		if tc.schema != nil && (!errors.Is(err, tc.schema) || se.Workload != tc.end.Schema.Workload || se.Holds != tc.holds) {
			t.Errorf("%+v: schema error %+v", tc.end, se)
		}
	}
	if err := (JobEnd{Status: "completed"}).Err(); err != nil {
		t.Errorf("a job that did not fail: %v", err)
	}
}
