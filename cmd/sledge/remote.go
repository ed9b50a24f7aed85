package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"
	"time"
)

// The CLI as a client of `sledge serve`: with --server URL (or
// $SLEDGE_SERVER), run, build, check, drop and jobs talk to that service
// instead of running here.

type remote struct {
	base  string
	token string
	http  *http.Client
}

func remoteFor(g *globals) (*remote, bool, error) {
	s := g.server
	if s == "" {
		s = os.Getenv("SLEDGE_SERVER")
	}
	if s == "" {
		return nil, false, nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, true, fmt.Errorf("--server %q: want http://host:port or https://host:port", s)
	}
	return &remote{base: strings.TrimRight(s, "/"), token: os.Getenv("SLEDGE_TOKEN"), http: &http.Client{}}, true, nil
}

// call sends a request and decodes a JSON answer into out (if not nil). An
// error answer becomes an error carrying the server's message.
func (r *remote) call(ctx context.Context, method, path string, body any, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.base+path, rd)
	if err != nil {
		return err
	}
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
	resp, err := r.http.Do(req)
	if err != nil {
		return fmt.Errorf("sledge server %s: %w", r.base, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 400 {
		var e struct{ Error, Field string }
		if json.Unmarshal(b, &e) == nil && e.Error != "" {
			return fmt.Errorf("server: %s", e.Error)
		}
		return fmt.Errorf("server: %s %s: %s", method, path, resp.Status)
	}
	if out != nil && len(b) > 0 {
		return json.Unmarshal(b, out)
	}
	return nil
}

// remoteJob starts a job on the server, follows its events until it ends,
// prints its result as JSON and returns an error unless it completed.
func remoteJob(ctx context.Context, w io.Writer, r *remote, req jobRequest) error {
	var created struct{ ID string }
	if err := r.call(ctx, "POST", "/api/jobs", req, &created); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s job %s started on %s\n", req.Kind, created.ID, r.base)
	status, err := r.follow(ctx, w, created.ID)
	if ctx.Err() != nil {
		// Ctrl-C: stop the job on the server, which records it interrupted.
		stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = r.call(stopCtx, "POST", "/api/jobs/"+created.ID+"/stop", nil, nil)
		fmt.Fprintf(w, "asked the server to stop job %s\n", created.ID)
		return ctx.Err()
	}
	if err != nil {
		return err
	}
	if req.Kind == "run" {
		var res json.RawMessage
		if err := r.call(ctx, "GET", "/api/jobs/"+created.ID+"/result", nil, &res); err == nil {
			var pretty bytes.Buffer
			_ = json.Indent(&pretty, res, "", "  ")
			fmt.Fprintln(w, pretty.String())
		}
	}
	fmt.Fprintf(w, "job %s: %s\n", created.ID, status)
	if status != "completed" {
		return exitError{code: 1}
	}
	return nil
}

// follow prints the job's interval lines from the event stream and returns
// its final status.
func (r *remote) follow(ctx context.Context, w io.Writer, id string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", r.base+"/api/jobs/"+id+"/events", nil)
	if err != nil {
		return "", err
	}
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
	resp, err := r.http.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
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
			var iv intervalJSON
			if json.Unmarshal([]byte(data), &iv) == nil {
				fmt.Fprintf(w, "[%6.0fs] %-8s TPM %9s  NOPM %9s  errors %d\n", iv.ElapsedS, iv.Phase,
					fmtInt(float64(iv.TPM)), fmtInt(float64(iv.NOPM)), iv.Errors)
			}
		case "status":
			var j jobJSON
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

// remoteRunRequest turns the run command's flags into an API request.
func remoteRunRequest(f *runFlags) jobRequest {
	return jobRequest{Kind: "run", Workload: f.workload, DB: f.db, VU: f.vus, Rampup: f.rampup.String(),
		Duration: f.duration.String(), Interval: f.interval.String(), Mode: f.mode, Isolation: f.isolation,
		ExecMode: f.execMode, MaxRetries: f.maxRetries, RandomHome: f.randomHome, Seed: f.seed,
		Streams: f.streams, QuerySets: f.querySets, Refresh: f.refresh, Validate: f.validate,
		Pacing: f.pacing, PacingScale: f.pacingScale}
}

func remoteBuildRequest(f *buildFlags) jobRequest {
	return jobRequest{Kind: "build", Workload: f.workload, DB: f.db, Warehouses: f.warehouses, Workers: f.workers,
		Seed: f.seed, Force: f.force, Engine: f.engine, Loader: f.loader, Scale: f.scale}
}

// remoteJobsList prints the server's jobs.
func remoteJobsList(ctx context.Context, w io.Writer, r *remote, f *listFlags) error {
	q := url.Values{}
	if f.kind != "" {
		q.Set("kind", f.kind)
	}
	if f.status != "" {
		q.Set("status", f.status)
	}
	if f.limit > 0 {
		q.Set("limit", fmt.Sprint(f.limit))
	}
	var list []jobJSON
	if err := r.call(ctx, "GET", "/api/jobs?"+q.Encode(), nil, &list); err != nil {
		return err
	}
	if f.format == formatJSON {
		return writeJSON(w, list)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tWORKLOAD\tSTATUS\tTARGET\tSTARTED\tNOPM\tTPM")
	for _, j := range list {
		nopm, tpm := "", ""
		if j.NOPM != nil {
			nopm = fmtInt(float64(*j.NOPM))
		}
		if j.TPM != nil {
			tpm = fmtInt(float64(*j.TPM))
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", j.ID, j.Kind, dash(j.Workload), j.Status, dash(j.Target), j.StartedAt, nopm, tpm)
	}
	return tw.Flush()
}
