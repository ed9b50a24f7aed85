// Package output carries what a job reports while it runs — console lines
// and monitor intervals — to its sinks: the console, the jobs repository and
// the live hub that the HTTP event stream and Prometheus read. A job writes
// to one Fanout; each sink plugs in without the job knowing which are there
// (the seam server metrics and multi-client runs plug into too).
package output

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/sledge-bench/sledge/internal/metrics"
	"github.com/sledge-bench/sledge/internal/report"
)

// Sink receives one job's output. A Fanout serialises its calls, so a sink
// needs no locking of its own for them.
type Sink interface {
	// Line is one line of console output.
	Line(text string)
	// Interval is one monitor tick of a run (its progress line has already
	// been sent as a Line).
	Interval(iv metrics.Interval)
	// Close is called once when the job has ended and been recorded; the
	// sink flushes what it holds.
	Close() error
}

// Fanout sends a job's output to every sink. It implements the engine's
// Output and is safe for concurrent use (VUs log from their goroutines).
type Fanout struct {
	mu     sync.Mutex
	sinks  []Sink
	headTx int
	closed bool
}

// NewFanout returns a fan-out to sinks.
func NewFanout(sinks ...Sink) *Fanout { return &Fanout{sinks: sinks, headTx: -1} }

// Add plugs in another sink.
func (f *Fanout) Add(s Sink) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sinks = append(f.sinks, s)
}

// SetHeadline names the transaction whose p95 the progress lines show.
func (f *Fanout) SetHeadline(tx int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.headTx = tx
}

// Logf sends one formatted line.
func (f *Fanout) Logf(format string, args ...any) { f.Line(fmt.Sprintf(format, args...)) }

// Line sends one line.
func (f *Fanout) Line(text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return // the job has ended: its sinks are gone
	}
	for _, s := range f.sinks {
		s.Line(text)
	}
}

// Text sends a block of text as lines (without its trailing newline).
func (f *Fanout) Text(text string) {
	text = strings.TrimRight(text, "\n")
	if text == "" {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	for _, line := range strings.Split(text, "\n") {
		for _, s := range f.sinks {
			s.Line(line)
		}
	}
}

// Interval sends a monitor tick: its progress line, then the tick itself.
func (f *Fanout) Interval(iv metrics.Interval) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	line := report.IntervalLine(iv, f.headTx)
	for _, s := range f.sinks {
		if p, ok := s.(progressPrinter); !ok || !p.printsProgress() {
			s.Line(line)
		}
		s.Interval(iv)
	}
}

// progressPrinter is a sink that prints its own progress line for each
// interval, in place of the text one.
type progressPrinter interface {
	printsProgress() bool
}

// Flusher is a sink that holds output back (in batches) and can write it
// now: the job service flushes before it records a job's end, so that a
// reader who sees the job ended sees all its output.
type Flusher interface {
	Flush()
}

// Flush flushes the sinks that batch.
func (f *Fanout) Flush() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.sinks {
		if fl, ok := s.(Flusher); ok {
			fl.Flush()
		}
	}
}

// Close closes every sink once, in order, and returns the first error.
func (f *Fanout) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil
	}
	f.closed = true
	var first error
	for _, s := range f.sinks {
		if err := s.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// ConsoleOption changes how a console sink prints.
type ConsoleOption func(*console)

// NoProgress makes a console print no progress line for a monitor
// interval: the intervals are shown another way (JSONLines on stderr or in
// a file). Its other lines are printed as they are.
func NoProgress() ConsoleOption { return func(c *console) { c.noProgress = true } }

// JSONLines prints each monitor interval to w as one line of JSON, and
// nothing else: the object of report.IntervalJSON (elapsed_s, phase, tpm,
// nopm, errors, transactions, …), as the HTTP event stream's interval
// events and `jobs show ID tcount --format json` give it. One object a line
// and no other text, so that `jq` or a script reads the stream as it comes.
func JSONLines(w io.Writer) Sink { return &jsonLines{w: w} }

type jsonLines struct{ w io.Writer }

func (j *jsonLines) Line(string)          {}
func (j *jsonLines) Close() error         { return nil }
func (j *jsonLines) printsProgress() bool { return true }

func (j *jsonLines) Interval(iv metrics.Interval) {
	b, err := json.Marshal(report.ToIntervals([]metrics.Interval{iv})[0])
	if err != nil {
		// Not expected: the shape has no value JSON cannot carry (rates
		// that are not numbers are null).
		b, _ = json.Marshal(map[string]string{"error": "progress: " + err.Error()})
	}
	fmt.Fprintf(j.w, "%s\n", b)
}

// Console prints lines to w.
func Console(w io.Writer, opts ...ConsoleOption) Sink {
	c := &console{w: w}
	for _, o := range opts {
		o(c)
	}
	return c
}

type console struct {
	w          io.Writer
	noProgress bool // no progress lines (NoProgress)
}

func (c *console) Line(text string) { fmt.Fprintln(c.w, text) }
func (c *console) Close() error     { return nil }

func (c *console) printsProgress() bool         { return c.noProgress }
func (c *console) Interval(iv metrics.Interval) {}
