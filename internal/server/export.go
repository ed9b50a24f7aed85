package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/jobs"
)

// maxImport bounds the body of POST /api/jobs/import: an export holds
// every interval's histograms, far more than a job spec.
const maxImport = 256 << 20

// ImportedJob is one job of POST /api/jobs/import's answer: its id in the
// file and its new id here, with its origin.
type ImportedJob struct {
	From   int64       `json:"from"`
	ID     int64       `json:"id"`
	Origin jobs.Origin `json:"origin"`
}

// exportJob is GET /api/jobs/{id}/export: the file `sledge jobs export ID`
// writes (the view export of one job), as a download.
func (s *Server) exportJob(w http.ResponseWriter, r *http.Request, j jobs.Job) {
	var buf bytes.Buffer
	err := app.Recorded{Store: s.viewStore(), Version: s.svc.Version()}.View(r.Context(), &buf, app.View{Name: app.ViewExport, IDs: []int64{j.ID}})
	if err != nil {
		// The job exists (withJob): what is left is a running one.
		apiError(w, http.StatusConflict, "id", err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="sledge-job-%d.json"`, j.ID))
	_, _ = w.Write(buf.Bytes())
}

// importJobs is POST /api/jobs/import: the body is an export (JSON, as
// `sledge jobs export` writes it; gzip-compressed too), loaded as read-only
// jobs, all or none. 201 with the jobs; 400 for a body that is no export
// this server reads; 409 for a job imported before.
func (s *Server) importJobs(w http.ResponseWriter, r *http.Request) {
	f, err := jobs.ReadExport(http.MaxBytesReader(w, r.Body, maxImport))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		apiError(w, http.StatusRequestEntityTooLarge, "", fmt.Sprintf("an export of more than %d MiB: import it with the CLI on the server's machine", maxImport>>20))
		return
	case err != nil:
		apiError(w, http.StatusBadRequest, "", err.Error())
		return
	}
	im, err := app.Recorded{Store: s.viewStore(), Version: s.svc.Version()}.Import(r.Context(), f)
	var dup *jobs.DuplicateError
	switch {
	case errors.As(err, &dup):
		apiError(w, http.StatusConflict, "", err.Error())
		return
	case errors.Is(err, jobs.ErrNotExport):
		apiError(w, http.StatusBadRequest, "", err.Error())
		return
	case err != nil:
		apiError(w, http.StatusInternalServerError, "", err.Error())
		return
	}
	out := make([]ImportedJob, 0, len(im))
	for _, j := range im {
		out = append(out, ImportedJob{From: j.From, ID: j.ID, Origin: j.Origin})
	}
	writeAPI(w, http.StatusCreated, out)
}

// Import loads an export into the server's repository (POST
// /api/jobs/import), as `sledge jobs import` does into a local one.
func (c *Client) Import(ctx context.Context, f *jobs.ExportFile) ([]jobs.Imported, error) {
	var got []ImportedJob
	if err := c.call(ctx, "POST", "/api/jobs/import", f, &got); err != nil {
		return nil, commandError(err)
	}
	out := make([]jobs.Imported, 0, len(got))
	for _, j := range got {
		out = append(out, jobs.Imported{From: j.From, ID: j.ID, Origin: j.Origin})
	}
	return out, nil
}
