package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/report"
	"github.com/sledge-bench/sledge/internal/workload"
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

// call sends a request and decodes a JSON answer into out (if not nil; a
// *bytes.Buffer takes the answer as it is). An error answer becomes an
// *APIError carrying the server's message.
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
	if raw, ok := out.(*bytes.Buffer); ok {
		raw.Write(b) // the answer as it is (a view)
		return nil
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

// RunOptions says how RunJob prints a job's progress and its end.
type RunOptions struct {
	// ProgressJSON receives each interval as its JSON object on a line of
	// its own (the event stream's interval data: report.IntervalJSON, the
	// shape of a local run's --progress json) instead of a text line on
	// the console; nil: text lines.
	ProgressJSON io.Writer
	// Summary, if not nil, receives the job's summary when it has ended:
	// jobs show ID --format json (a local job's --format json).
	Summary io.Writer
}

// failed says whether a job's summary has a failed condition or query.
func failed(sum report.SummaryJSON) bool {
	for _, c := range sum.Check {
		if !c.Passed && !c.Skipped {
			return true
		}
	}
	if sum.Analytic != nil {
		for _, q := range sum.Analytic.Queries {
			if q.Error != nil {
				return true
			}
		}
	}
	return false
}

// JobEnd is how a job RunJob followed ended.
type JobEnd struct {
	ID     int64
	Status string // metrics.Status*
	Error  string // why it failed, "" when it did not
	// Schema is what a job that failed on its workload's schema found,
	// nil for every other end.
	Schema *report.SchemaErrorJSON
	// Failed says that the job ran to its end but found what it checks
	// failing: a check's condition, an analytic run's query (its report
	// says which), as a local job's app.Outcome.OK.
	Failed bool
	// ThresholdsFailed counts the run's thresholds that failed (as a local
	// job's app.Outcome.ThresholdsFailed).
	ThresholdsFailed int
}

// Err is why the job failed, nil when it did not: its error as the server
// recorded it, which, for a job that failed on its workload's schema, is
// (errors.As) the workload.SchemaError the job met, as a local job's error
// is, so that a front end words it alike.
func (e JobEnd) Err() error {
	if e.Error == "" {
		return nil
	}
	if e.Schema != nil {
		if se := workload.SchemaErrorOf(e.Schema.Kind, e.Schema.Workload, e.Schema.Holds, e.Error); se != nil {
			return &JobError{Msg: e.Error, Err: se}
		}
	}
	return errors.New(e.Error)
}

// End is how the job ended, as app.Outcome.End says of a local one: a job
// that did not complete (or end degraded) failed.
func (e JobEnd) End() app.End {
	failed := e.Failed || e.Status != metrics.StatusCompleted && e.Status != metrics.StatusDegraded
	return app.End{ID: e.ID, Status: e.Status, Err: e.Err(), Failed: failed, ThresholdsFailed: e.ThresholdsFailed}
}

// JobError is a job's error as the server recorded it (Msg, what a local
// job's error says), wrapping what the record keeps of its kind.
type JobError struct {
	Msg string
	Err error
}

func (e *JobError) Error() string { return e.Msg }

func (e *JobError) Unwrap() error { return e.Err }

// RunJob starts a job on the server and prints what a local job prints on
// its console, as the server's job records it (its output): its header,
// its interval lines as they come (or, with opts.ProgressJSON, each
// interval as JSON there instead), its result or report. It returns how
// the job ended. When ctx ends first, it asks the server to stop the job
// (recorded there as interrupted) and returns ctx's error.
func (c *Client) RunJob(ctx context.Context, w io.Writer, spec config.Spec, opts RunOptions) (JobEnd, error) {
	var created Created
	if err := c.call(ctx, "POST", "/api/jobs", spec, &created); err != nil {
		return JobEnd{}, err
	}
	id, err := strconv.ParseInt(created.ID, 10, 64)
	if err != nil {
		return JobEnd{}, fmt.Errorf("the server named its job %q: %w", created.ID, err)
	}
	end := JobEnd{ID: id}
	f := &follower{c: c, w: w, id: created.ID, opts: opts, skip: map[string]int{}}
	var last report.JobJSON
	last, err = f.follow(ctx)
	end.Status, end.Error, end.Schema = last.Status, last.Error, last.SchemaError
	if err == nil && (opts.Summary != nil || spec.Kind == config.KindCheck || spec.Kind == config.KindRun) {
		// What it stored says whether it failed: the summary of jobs show.
		var b bytes.Buffer
		if err = c.View(ctx, &b, app.View{Name: app.ViewShow, IDs: []int64{id}, Format: app.FormatJSON}); err == nil {
			var sum report.SummaryJSON
			if err = json.Unmarshal(b.Bytes(), &sum); err == nil {
				end.Failed = failed(sum)
				for _, t := range sum.Job.Thresholds {
					if !t.Passed {
						end.ThresholdsFailed++
					}
				}
			}
		}
		if opts.Summary != nil && err == nil {
			_, err = opts.Summary.Write(b.Bytes())
		}
	}
	if ctx.Err() != nil {
		// Ctrl-C: stop the job on the server, which records it interrupted.
		stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = c.call(stopCtx, "POST", "/api/jobs/"+created.ID+"/stop", nil, nil)
		fmt.Fprintf(w, "asked the server to stop job %s\n", created.ID)
		return end, ctx.Err()
	}
	return end, err
}

// follower prints a job's console output as the server records it.
type follower struct {
	c       *Client
	w       io.Writer
	id      string
	opts    RunOptions
	printed int            // output lines printed (or skipped) so far
	skip    map[string]int // interval text lines not to print (JSON progress)
}

// printOutput prints the job's output lines recorded since the last call.
func (f *follower) printOutput(ctx context.Context) error {
	var lines []string
	if err := f.c.call(ctx, "GET", "/api/jobs/"+f.id+"/output", nil, &lines); err != nil {
		return err
	}
	for ; f.printed < len(lines); f.printed++ {
		l := lines[f.printed]
		if f.skip[l] > 0 {
			// A local run with JSON progress stores its text line but
			// does not print it.
			f.skip[l]--
			continue
		}
		fmt.Fprintln(f.w, l)
	}
	return nil
}

// follow prints the job's output as its event stream says it grows and
// returns the job as it ended.
func (f *follower) follow(ctx context.Context) (report.JobJSON, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", f.c.base+"/api/jobs/"+f.id+"/events", nil)
	if err != nil {
		return report.JobJSON{}, err
	}
	f.c.authorize(req)
	resp, err := f.c.http.Do(req)
	if err != nil {
		return report.JobJSON{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		var e ErrorBody
		if json.Unmarshal(b, &e) == nil && e.Error != "" {
			return report.JobJSON{}, &APIError{StatusCode: resp.StatusCode, Message: e.Error, Field: e.Field}
		}
		return report.JobJSON{}, &APIError{StatusCode: resp.StatusCode, Message: "GET /api/jobs/" + f.id + "/events: " + resp.Status}
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
			if f.opts.ProgressJSON != nil {
				var line bytes.Buffer
				if json.Compact(&line, []byte(data)) == nil {
					fmt.Fprintln(f.opts.ProgressJSON, line.String())
				}
				f.skip[report.IntervalJSONLine(iv)]++
			}
			if err := f.printOutput(ctx); err != nil {
				return report.JobJSON{}, err
			}
		case "status":
			var j report.JobJSON
			if err := json.Unmarshal([]byte(data), &j); err != nil {
				return report.JobJSON{}, err
			}
			if err := f.printOutput(ctx); err != nil {
				return report.JobJSON{}, err
			}
			return j, nil
		}
	}
	if err := sc.Err(); err != nil {
		return report.JobJSON{}, err
	}
	return report.JobJSON{}, fmt.Errorf("the event stream of job %s ended without a status", f.id)
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
