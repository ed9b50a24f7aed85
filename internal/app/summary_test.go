package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/report"
)

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

// TestRunSummary: Run writes the job's stored summary to Request.Summary
// whatever the job's end (a check of no schema fails, a drop of none
// completes, in an empty database); a refused spec makes no job and writes nothing; a summary
// that cannot be written is Run's error.
func TestRunSummary(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t)
	for _, tc := range []struct {
		name       string
		kind       string
		db         string // "" for an empty SQLite file
		summary    func(*bytes.Buffer) io.Writer
		wantStatus string // the summary's job status, "" for no summary
		wantErr    error  // matched by Run's error; nil: any or none, as the job ended
	}{
		{name: "failed check", kind: config.KindCheck, wantStatus: metrics.StatusFailed},
		{name: "completed drop", kind: config.KindDrop, wantStatus: metrics.StatusCompleted},
		{name: "refused", kind: config.KindCheck, db: "nosuch:x"},
		{name: "no summary", kind: config.KindDrop, summary: func(*bytes.Buffer) io.Writer { return nil }},
		{name: "unwritable", kind: config.KindDrop, summary: func(*bytes.Buffer) io.Writer { return failWriter{} }, wantErr: io.ErrClosedPipe},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := config.New(tc.kind)
			s.DB, s.Confirm = tc.db, true
			if s.DB == "" {
				path := filepath.Join(t.TempDir(), "c.db")
				if err := os.WriteFile(path, nil, 0o644); err != nil { // an empty database, no schema
					t.Fatal(err)
				}
				s.DB = "sqlite:" + path
			}
			var b bytes.Buffer
			req := Request{Spec: s, Summary: &b}
			if tc.summary != nil {
				req.Summary = tc.summary(&b)
			}
			o, err := svc.Run(context.Background(), req)
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			if tc.wantStatus == "" {
				if b.Len() > 0 {
					t.Errorf("a summary was written: %s", b.String())
				}
				return
			}
			var sum report.SummaryJSON
			if err := json.Unmarshal(b.Bytes(), &sum); err != nil {
				t.Fatalf("summary %q: %v", b.String(), err)
			}
			if sum.Job.ID != o.ID || sum.Job.Kind != tc.kind || sum.Job.Status != tc.wantStatus {
				t.Errorf("summary of job %d %s %s, want job %d %s %s", sum.Job.ID, sum.Job.Kind, sum.Job.Status, o.ID, tc.kind, tc.wantStatus)
			}
		})
	}
}
