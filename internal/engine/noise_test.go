package engine

import (
	"slices"
	"sync"
	"testing"
	"time"
)

// noise measures, while a test runs, how late this process's timers fire:
// the machine's scheduling noise (other tests, other processes). Timing
// bounds that a busy machine stretches are set relative to it, so that a
// test asserts the same thing on a quiet machine and stays green on a
// loaded one.
type noise struct {
	stop  chan struct{}
	done  chan struct{}
	mu    sync.Mutex
	lates []time.Duration
}

// measureNoise starts measuring; the measurement ends with the test.
func measureNoise(t *testing.T) *noise {
	n := &noise{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(n.done)
		const tick = 5 * time.Millisecond
		for {
			before := time.Now()
			select {
			case <-n.stop:
				return
			case <-time.After(tick):
			}
			n.mu.Lock()
			n.lates = append(n.lates, time.Since(before)-tick)
			n.mu.Unlock()
		}
	}()
	t.Cleanup(n.end)
	return n
}

func (n *noise) end() {
	select {
	case <-n.stop:
	default:
		close(n.stop)
	}
	<-n.done
}

// p99 is the 99th percentile of the timers' lateness so far.
func (n *noise) p99() time.Duration {
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.lates) == 0 {
		return 0
	}
	s := slices.Clone(n.lates)
	slices.Sort(s)
	return s[len(s)*99/100]
}

// worst is the latest a timer fired so far.
func (n *noise) worst() time.Duration {
	n.mu.Lock()
	defer n.mu.Unlock()
	var m time.Duration
	for _, l := range n.lates {
		m = max(m, l)
	}
	return m
}

// lagBound is a bound on schedule lag, d stretched by the noise: a lag's
// 99th percentile is set by the machine's worst stalls, when transactions
// pile up behind a process that is not running and drain after it, so d
// plus four times the worst timer lateness seen.
func (n *noise) lagBound(d time.Duration) time.Duration { return d + 4*n.worst() }

// bound is d stretched by the noise measured: d plus five times the
// timers' p99 lateness (what the engine does may take a few wake-ups: a
// timer, a channel hand-over, a goroutine's turn).
func (n *noise) bound(d time.Duration) time.Duration { return d + 5*n.p99() }
