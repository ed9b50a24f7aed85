package server

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/report"
)

// viewStore is where views are read: the server's store when it can answer
// them, else the job service's repository.
func (s *Server) viewStore() app.RecordedStore {
	if vs, ok := s.store.(app.RecordedStore); ok {
		return vs
	}
	return s.svc.Repo()
}

// viewContentType is the Content-Type of a view in each format.
var viewContentType = map[string]string{
	"":             "text/plain; charset=utf-8",
	app.FormatText: "text/plain; charset=utf-8",
	app.FormatJSON: "application/json",
	app.FormatHTML: "text/html; charset=utf-8",
}

// view is GET /api/view/{name}?id=ID…&section=&tx=&format=: what the CLI
// command of the view prints (app.Views), byte for byte, so that a CLI
// driving this server (--server) prints what it would print here. An error
// answer's message is the command's error message.
func (s *Server) view(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v := app.View{Name: r.PathValue("name"), Section: q.Get("section"), Tx: q.Get("tx"), Format: q.Get("format"),
		Filter: jobs.ListFilter{Kind: q.Get("kind"), Status: q.Get("status")}}
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 0 {
			apiError(w, http.StatusBadRequest, "limit", "limit must be a non-negative integer")
			return
		}
		v.Filter.Limit = n
	}
	for _, raw := range q["id"] {
		id, ok := pathID(w, raw, "id")
		if !ok {
			return
		}
		v.IDs = append(v.IDs, id)
	}
	var buf bytes.Buffer
	err := app.Recorded{Store: s.viewStore(), Version: s.svc.Version()}.View(r.Context(), &buf, v)
	if fe := config.Fields(err); fe != nil {
		apiError(w, http.StatusBadRequest, fe[0].Field, fe[0].Msg)
		return
	}
	switch {
	case errors.Is(err, jobs.ErrNotFound), errors.Is(err, app.ErrNotProfile), errors.Is(err, app.ErrNotSLO):
		apiError(w, http.StatusNotFound, "id", err.Error())
		return
	case errors.Is(err, report.ErrNoSection):
		apiError(w, http.StatusNotFound, "section", err.Error())
		return
	case err != nil:
		apiError(w, http.StatusInternalServerError, "", err.Error())
		return
	}
	w.Header().Set("Content-Type", viewContentType[v.Format])
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if v.Format == app.FormatHTML {
		// A report page has no script and loads nothing: opened in a
		// browser it runs sandboxed, in an origin of its own, never with
		// the web UI's (its stored token).
		w.Header().Set("Content-Security-Policy", "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:")
	}
	_, _ = w.Write(buf.Bytes())
}

// CommandError is an error answer of GET /api/view/{name} or DELETE
// /api/jobs/{id} to View or Delete: its message is the error the command
// says when it reads its own repository ("no job 7"), so it is not
// prefixed with "server:". A bad parameter (400: a transaction type the job
// lacks, tx) unwraps to the config.FieldErrors that name it; a job or
// section that is not there (404) is no field's error.
type CommandError struct{ APIError }

func (e *CommandError) Error() string { return e.Message }

func (e *CommandError) Unwrap() error {
	if e.StatusCode != http.StatusBadRequest {
		return nil
	}
	return e.APIError.Unwrap()
}

// commandError is err as a CommandError when it is the server's answer.
func commandError(err error) error {
	var ae *APIError
	if errors.As(err, &ae) {
		return &CommandError{*ae}
	}
	return err
}

// Delete deletes a job on the server and everything recorded with it. A
// running job is a *jobs.RunningError unless forced, as in a local
// repository; forced, the server stops it first when it runs it itself.
func (c *Client) Delete(ctx context.Context, id int64, force bool) error {
	path := "/api/jobs/" + strconv.FormatInt(id, 10)
	if force {
		path += "?force=true"
	}
	err := c.call(ctx, "DELETE", path, nil, nil)
	var ae *APIError
	if errors.As(err, &ae) && ae.StatusCode == http.StatusConflict {
		// Running: the job's process, to say which as a local delete does.
		var j report.JobJSON
		if gerr := c.call(ctx, "GET", "/api/jobs/"+strconv.FormatInt(id, 10), nil, &j); gerr == nil && j.Status == metrics.StatusRunning {
			return &jobs.RunningError{ID: id, PID: j.PID, Host: j.Host}
		}
	}
	return commandError(err)
}

// View writes a view of the server's jobs to w: exactly what the view's
// command prints of a local repository (app.Views).
func (c *Client) View(ctx context.Context, w io.Writer, v app.View) error {
	q := url.Values{}
	for _, id := range v.IDs {
		q.Add("id", strconv.FormatInt(id, 10))
	}
	if v.Filter.Limit > 0 {
		q.Set("limit", strconv.Itoa(v.Filter.Limit))
	}
	for k, val := range map[string]string{"section": v.Section, "tx": v.Tx, "format": v.Format, "kind": v.Filter.Kind, "status": v.Filter.Status} {
		if val != "" {
			q.Set(k, val)
		}
	}
	path := "/api/view/" + url.PathEscape(v.Name)
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var body bytes.Buffer
	if err := c.call(ctx, "GET", path, nil, &body); err != nil {
		return commandError(err)
	}
	_, err := w.Write(body.Bytes())
	return err
}
