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
	"github.com/sledge-bench/sledge/internal/report"
)

// viewStore is where views are read: the server's store when it can answer
// them, else the job service's repository.
func (s *Server) viewStore() app.ViewStore {
	if vs, ok := s.store.(app.ViewStore); ok {
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
	v := app.View{Name: r.PathValue("name"), Section: q.Get("section"), Tx: q.Get("tx"), Format: q.Get("format")}
	for _, raw := range q["id"] {
		id, ok := pathID(w, raw, "id")
		if !ok {
			return
		}
		v.IDs = append(v.IDs, id)
	}
	var buf bytes.Buffer
	err := app.Views{Store: s.viewStore()}.View(r.Context(), &buf, v)
	if fe := config.Fields(err); fe != nil {
		apiError(w, http.StatusBadRequest, fe[0].Field, fe[0].Msg)
		return
	}
	switch {
	case errors.Is(err, jobs.ErrNotFound), errors.Is(err, app.ErrNotProfile):
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
	_, _ = w.Write(buf.Bytes())
}

// ViewError is an error answer of GET /api/view/{name}: its message is the
// error the command prints when it reads its own repository, so it is not
// prefixed with "server:". A field error (a transaction type the job lacks:
// tx) unwraps to the config.FieldErrors that name it.
type ViewError struct{ APIError }

func (e *ViewError) Error() string { return e.Message }

// View writes a view of the server's jobs to w: exactly what the view's
// command prints of a local repository (app.Views).
func (c *Client) View(ctx context.Context, w io.Writer, v app.View) error {
	q := url.Values{}
	for _, id := range v.IDs {
		q.Add("id", strconv.FormatInt(id, 10))
	}
	for k, val := range map[string]string{"section": v.Section, "tx": v.Tx, "format": v.Format} {
		if val != "" {
			q.Set(k, val)
		}
	}
	path := "/api/view/" + url.PathEscape(v.Name)
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var body bytes.Buffer
	err := c.call(ctx, "GET", path, nil, &body)
	var ae *APIError
	if errors.As(err, &ae) {
		return &ViewError{*ae}
	}
	if err != nil {
		return err
	}
	_, err = w.Write(body.Bytes())
	return err
}
