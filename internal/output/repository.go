package output

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/sledge-bench/sledge/internal/jobs"
	"github.com/sledge-bench/sledge/internal/metrics"
)

// RepositoryWriter is what the repository sink needs of the jobs
// repository.
type RepositoryWriter interface {
	AppendOutputLines(ctx context.Context, id int64, lines []jobs.OutputLine) error
	AddInterval(ctx context.Context, id int64, iv metrics.Interval) error
}

// Lines are written in batches: at every interval, when this many are
// waiting, at the latest after flushEvery, and at Close.
const (
	flushLines = 256
	flushEvery = 500 * time.Millisecond
)

// Repository stores a job's lines (batched) and intervals in the jobs
// repository. A write that fails is reported once on warn; the job goes on.
func Repository(repo RepositoryWriter, id int64, warn io.Writer) Sink {
	r := &repoSink{repo: repo, id: id, warn: warn, stop: make(chan struct{}), stopped: make(chan struct{})}
	go r.flushLoop()
	return r
}

type repoSink struct {
	repo RepositoryWriter
	id   int64
	warn io.Writer

	mu      sync.Mutex // pending is also flushed by flushLoop
	pending []jobs.OutputLine
	warned  bool

	stop, stopped chan struct{}
}

func (r *repoSink) Line(text string) {
	r.mu.Lock()
	r.pending = append(r.pending, jobs.OutputLine{At: time.Now(), Line: text})
	full := len(r.pending) >= flushLines
	r.mu.Unlock()
	if full {
		r.flush()
	}
}

func (r *repoSink) Interval(iv metrics.Interval) {
	r.flush()
	// A fresh context: an interrupted run still stores its last intervals.
	if err := r.repo.AddInterval(context.Background(), r.id, iv); err != nil {
		r.warnOnce("cannot store interval in the jobs repository", err)
	}
}

func (r *repoSink) flushLoop() {
	defer close(r.stopped)
	t := time.NewTicker(flushEvery)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
			r.flush()
		}
	}
}

// Flush writes the waiting lines now.
func (r *repoSink) Flush() { r.flush() }

func (r *repoSink) flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.pending) == 0 {
		return
	}
	if err := r.repo.AppendOutputLines(context.Background(), r.id, r.pending); err != nil {
		r.warnLocked("cannot store output in the jobs repository", err)
	}
	r.pending = r.pending[:0]
}

func (r *repoSink) warnOnce(what string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.warnLocked(what, err)
}

func (r *repoSink) warnLocked(what string, err error) {
	if !r.warned && r.warn != nil {
		r.warned = true
		fmt.Fprintf(r.warn, "sledge: warning: %s: %v\n", what, err)
	}
}

func (r *repoSink) Close() error {
	close(r.stop)
	<-r.stopped
	r.flush()
	return nil
}
