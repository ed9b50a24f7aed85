package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/report"
)

// Client drives a Sledge server: the CLI's --server mode.
type Client struct {
	base  string
	token string
	http  *http.Client
}

// NewClient returns a client of the server at base (http://host:port or
// https://host:port) sending token (if not empty) with every request.
func NewClient(base, token string) (*Client, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("server URL %q: want http://host:port or https://host:port", base)
	}
	return &Client{base: strings.TrimRight(base, "/"), token: token, http: &http.Client{}}, nil
}

// APIError is an error answer of the server.
type APIError struct {
	StatusCode int
	// Message is the server's error message; Field, if not empty, the
	// setting or parameter it is about (a config.Spec JSON name for POST
	// /api/jobs).
	Message, Field string
}

func (e *APIError) Error() string { return "server: " + e.Message }

// Unwrap is the field error the server named (config.Fields finds it, so
// that a front end words it as its own setting), nil when it named none.
func (e *APIError) Unwrap() error {
	if e.Field == "" {
		return nil
	}
	return config.FieldErrors{{Field: e.Field, Msg: e.Message}}
}

// call sends a request and decodes a JSON answer into out (if not nil). An
// error answer becomes an *APIError carrying the server's message.
func (c *Client) call(ctx context.Context, method, path string, body any, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	if body != nil || (method != http.MethodGet && method != http.MethodHead) {
		// The server refuses a state-changing request that is not
		// application/json, even with an empty body (POST …/stop).
		req.Header.Set("Content-Type", "application/json")
	}
	c.authorize(req)
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("sledge server %s: %w", c.base, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 400 {
		var e ErrorBody
		if json.Unmarshal(b, &e) == nil && e.Error != "" {
			return &APIError{StatusCode: resp.StatusCode, Message: e.Error, Field: e.Field}
		}
		return &APIError{StatusCode: resp.StatusCode, Message: fmt.Sprintf("%s %s: %s", method, path, resp.Status)}
	}
	if out != nil && len(b) > 0 {
		return json.Unmarshal(b, out)
	}
	return nil
}

func (c *Client) authorize(req *http.Request) {
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
}

// RunOptions says how RunJob prints a job's progress.
type RunOptions struct {
	// ProgressJSON receives each interval as its JSON object on a line of
	// its own (the event stream's interval data: report.IntervalJSON, the
	// shape of a local run's --progress json) instead of a text line on
	// the console; nil: text lines.
	ProgressJSON io.Writer
}

// RunJob starts a job on the server, prints its interval lines as they
// come (report.IntervalLine's format, or JSON as opts says), its result as
// JSON (runs) and how it ended ("job N: status"), and returns its final
// status (metrics.Status*). When ctx ends first, it asks the server to stop
// the job (recorded there as interrupted) and returns ctx's error.
func (c *Client) RunJob(ctx context.Context, w io.Writer, spec config.Spec, opts RunOptions) (status string, err error) {
	var created Created
	if err := c.call(ctx, "POST", "/api/jobs", spec, &created); err != nil {
		return "", err
	}
	fmt.Fprintf(w, "%s job %s started on %s\n", spec.Kind, created.ID, c.base)
	status, err = c.follow(ctx, w, created.ID, opts)
	if ctx.Err() != nil {
		// Ctrl-C: stop the job on the server, which records it interrupted.
		stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = c.call(stopCtx, "POST", "/api/jobs/"+created.ID+"/stop", nil, nil)
		fmt.Fprintf(w, "asked the server to stop job %s\n", created.ID)
		return "", ctx.Err()
	}
	if err != nil {
		return "", err
	}
	if spec.Kind == config.KindRun {
		var res json.RawMessage
		if err := c.call(ctx, "GET", "/api/jobs/"+created.ID+"/result", nil, &res); err == nil {
			var pretty bytes.Buffer
			_ = json.Indent(&pretty, res, "", "  ")
			fmt.Fprintln(w, pretty.String())
		}
	}
	fmt.Fprintf(w, "job %s: %s\n", created.ID, status)
	return status, nil
}

// follow prints the job's interval lines from the event stream and returns
// its final status.
func (c *Client) follow(ctx context.Context, w io.Writer, id string, opts RunOptions) (string, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", c.base+"/api/jobs/"+id+"/events", nil)
	if err != nil {
		return "", err
	}
	c.authorize(req)
	resp, err := c.http.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		var e ErrorBody
		if json.Unmarshal(b, &e) == nil && e.Error != "" {
			return "", &APIError{StatusCode: resp.StatusCode, Message: e.Error, Field: e.Field}
		}
		return "", &APIError{StatusCode: resp.StatusCode, Message: "GET /api/jobs/" + id + "/events: " + resp.Status}
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		if e, ok := strings.CutPrefix(line, "event: "); ok {
			event = e
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		switch event {
		case "interval":
			var iv report.IntervalJSON
			if json.Unmarshal([]byte(data), &iv) != nil {
				continue
			}
			if opts.ProgressJSON != nil {
				var line bytes.Buffer
				if json.Compact(&line, []byte(data)) == nil {
					fmt.Fprintln(opts.ProgressJSON, line.String())
				}
				continue
			}
			fmt.Fprintln(w, report.IntervalJSONLine(iv))
		case "status":
			var j report.JobJSON
			if err := json.Unmarshal([]byte(data), &j); err != nil {
				return "", err
			}
			if j.Error != "" {
				fmt.Fprintf(w, "error: %s\n", j.Error)
			}
			return j.Status, nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("the event stream of job %s ended without a status", id)
}

// ListJobs lists the server's jobs, newest first: of a kind and a status
// ("" for any), at most limit (0 for all). report.JobsJSONTable writes them
// as the `sledge jobs` table.
func (c *Client) ListJobs(ctx context.Context, kind, status string, limit int) ([]report.JobJSON, error) {
	q := url.Values{}
	if kind != "" {
		q.Set("kind", kind)
	}
	if status != "" {
		q.Set("status", status)
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	path := "/api/jobs"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	list := []report.JobJSON{}
	if err := c.call(ctx, "GET", path, nil, &list); err != nil {
		return nil, err
	}
	return list, nil
}
