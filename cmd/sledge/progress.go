package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/sledge-bench/sledge/internal/workload/tprocc"
)

// progress renders a build's progress: a bar with rows/s and ETA on a
// terminal, a plain line every few seconds otherwise (logs, CI).
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool
	out      *jobOutput
	start    time.Time
	lastLine time.Time
	drawn    bool
	phase    string
}

func newProgress(w *os.File, out *jobOutput) *progress {
	return &progress{w: w, tty: isTerminal(w), out: out, start: time.Now()}
}

func (p *progress) update(u tprocc.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	elapsed := time.Since(p.start)
	rate := float64(u.RowsDone) / elapsed.Seconds()
	frac := 0.0
	if u.RowsTotal > 0 {
		frac = min(1, float64(u.RowsDone)/float64(u.RowsTotal))
	}
	eta := "?"
	if rate > 0 && u.RowsTotal > 0 {
		eta = (time.Duration(float64(u.RowsTotal-u.RowsDone)/rate) * time.Second).Round(time.Second).String()
	}
	if p.tty {
		const width = 30
		n := int(frac * width)
		fmt.Fprintf(p.w, "\r%-8s [%s%s] %3.0f%%  %s rows  %s rows/s  ETA %s   ",
			u.Phase, strings.Repeat("#", n), strings.Repeat(".", width-n), 100*frac,
			fmtInt(float64(u.RowsDone)), fmtInt(rate), eta)
		p.drawn = true
		return
	}
	switch {
	case u.Phase != p.phase:
		// A new phase: say what it will do; numbers follow every few seconds.
		p.phase = u.Phase
		p.lastLine = time.Now()
		if u.RowsTotal > 0 {
			p.out.Logf("%s: %s rows", u.Phase, fmtInt(float64(u.RowsTotal)))
		} else {
			p.out.Logf("%s", u.Phase)
		}
	case time.Since(p.lastLine) >= 5*time.Second:
		p.lastLine = time.Now()
		p.out.Logf("%s: %s of %s rows (%.0f%%), %s rows/s, ETA %s",
			u.Phase, fmtInt(float64(u.RowsDone)), fmtInt(float64(u.RowsTotal)), 100*frac, fmtInt(rate), eta)
	}
}

func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprintln(p.w)
	}
}
