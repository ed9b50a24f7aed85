package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/report"
)

// pollEvery is how often the event stream of a job running in another
// process reads the repository.
const pollEvery = 500 * time.Millisecond

// sse writes Server-Sent Events.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func (e sse) send(event string, v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(e.w, "event: %s\ndata: %s\n\n", event, b)
	e.f.Flush()
}

// interval sends one interval in the shape of /series.
func (e sse) interval(iv metrics.Interval) {
	e.send("interval", report.ToIntervals([]metrics.Interval{iv})[0])
}

// events streams a job's intervals as Server-Sent Events ("interval", the
// same numbers as the CLI's progress line), then its final state ("status")
// when it ends.
//
// A job running in this server is followed through the hub: the intervals
// it reported so far, then each one as it comes, then the job's record once
// it has ended; the repository is not polled. A job the hub does not hold
// (finished, or run by another process) is read from the repository, which
// is polled while the job is still running elsewhere.
func (s *Server) events(w http.ResponseWriter, r *http.Request, j jobs.Job) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		apiError(w, http.StatusInternalServerError, "", "streaming not supported")
		return
	}
	// Subscribe before anything is sent, so that nothing reported from here
	// on is missed.
	past, evs, unsubscribe, live := s.hub.Subscribe(j.ID)
	defer unsubscribe()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher.Flush()
	out := sse{w: w, f: flusher}
	ctx := r.Context()
	sent := 0
	if live {
		for _, iv := range past {
			out.interval(iv)
		}
		sent = len(past)
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-evs:
				if !ok {
					// Dropped for falling behind (or the end event did not
					// fit): what was missed is in the repository.
					s.followStored(ctx, out, j.ID, sent)
					return
				}
				if ev.Interval == nil {
					// The job has ended and its end is recorded; the hub
					// closes evs after the end event.
					if cur, err := s.store.Get(ctx, j.ID); err == nil {
						out.send("status", report.ToJob(cur))
					}
					return
				}
				out.interval(*ev.Interval)
				sent++
			}
		}
	}
	s.followStored(ctx, out, j.ID, sent)
}

// followStored streams job id from the repository, skipping the first sent
// intervals: what it has, then, while the job is still running (in another
// process, or in this one after the hub dropped the stream), what is added
// every pollEvery, then its status.
func (s *Server) followStored(ctx context.Context, out sse, id int64, sent int) {
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		if ivs, err := s.store.Intervals(ctx, id); err == nil {
			for ; sent < len(ivs); sent++ {
				out.interval(ivs[sent])
			}
		}
		cur, err := s.store.Get(ctx, id)
		if err != nil {
			return
		}
		if cur.Status != metrics.StatusRunning {
			out.send("status", report.ToJob(cur))
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-s.base.Done():
			// The server is shutting down; this job is not one of its own.
			return
		case <-tick.C:
		}
	}
}
