package output

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/sledge-bench/sledge/internal/report"
	"github.com/sledge-bench/sledge/internal/workload"
)

// Progress renders a build's progress: a bar with rows/s and ETA on a
// terminal (not stored), a line every few seconds otherwise (logs, CI; sent
// to logf, so stored with the job).
type Progress struct {
	mu       sync.Mutex
	tty      io.Writer // nil: no terminal
	logf     func(format string, args ...any)
	now      func() time.Time
	start    time.Time // of the current phase: rows/s and ETA are the phase's
	lastLine time.Time
	drawn    bool
	phase    string
}

// NewProgress draws on tty when it is not nil, else logs lines to logf.
func NewProgress(tty io.Writer, logf func(format string, args ...any)) *Progress {
	return newProgress(tty, logf, time.Now)
}

func newProgress(tty io.Writer, logf func(format string, args ...any), now func() time.Time) *Progress {
	return &Progress{tty: tty, logf: logf, now: now}
}

// Update shows a progress snapshot.
func (p *Progress) Update(u workload.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	newPhase := u.Phase != p.phase
	if newPhase {
		// The rows of a phase are its own (loaded, then indexed, then
		// analyzed): its rate counts from its start, not the build's.
		p.start = now
	}
	elapsed := now.Sub(p.start)
	rate := 0.0
	if elapsed > 0 {
		rate = float64(u.RowsDone) / elapsed.Seconds()
	}
	frac := 0.0
	if u.RowsTotal > 0 {
		frac = min(1, float64(u.RowsDone)/float64(u.RowsTotal))
	}
	eta := "?"
	if rate > 0 && u.RowsTotal > 0 {
		eta = (time.Duration(float64(u.RowsTotal-u.RowsDone)/rate) * time.Second).Round(time.Second).String()
	}
	if p.tty != nil {
		p.phase = u.Phase
		const width = 30
		n := int(frac * width)
		fmt.Fprintf(p.tty, "\r%-8s [%s%s] %3.0f%%  %s rows  %s rows/s  ETA %s   ",
			u.Phase, strings.Repeat("#", n), strings.Repeat(".", width-n), 100*frac,
			report.Int(float64(u.RowsDone)), report.Int(rate), eta)
		p.drawn = true
		return
	}
	switch {
	case newPhase:
		// A new phase: say what it will do; numbers follow every few seconds.
		p.phase = u.Phase
		p.lastLine = now
		if u.RowsTotal > 0 {
			p.logf("%s: %s rows", u.Phase, report.Int(float64(u.RowsTotal)))
		} else {
			p.logf("%s", u.Phase)
		}
	case now.Sub(p.lastLine) >= 5*time.Second:
		p.lastLine = now
		p.logf("%s: %s of %s rows (%.0f%%), %s rows/s, ETA %s",
			u.Phase, report.Int(float64(u.RowsDone)), report.Int(float64(u.RowsTotal)), 100*frac, report.Int(rate), eta)
	}
}

// Done ends the bar's line.
func (p *Progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprintln(p.tty)
	}
}
