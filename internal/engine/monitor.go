package engine

import (
	"context"
	"time"

	"github.com/sledge-bench/sledge/internal/metrics"
)

// monitor walks the clock's boundaries until the run ends: it cuts an
// interval at each, opens the window at the ramp-up's end and closes it at
// the window's, switches stages, and stops early on Ctrl-C (ctx), on a
// session that could not be opened (fatal) or, in an iteration run, when
// the load is done. It returns the failure that ended the run, if any; the
// run's status is left in r.status.
func (r *run) monitor(ctx context.Context, loadDone <-chan struct{}, fatal <-chan error) error {
	// In an iteration run the load's end is the run's end; a timed run's
	// load ends only when stopped (a nil channel never fires).
	var done <-chan struct{}
	f, isFinite := r.x.(finite)
	if isFinite {
		done = loadDone
	}
	// finish ends an iteration run once every unit has returned: with a
	// failure when one could not connect, else at the last one's end.
	finish := func() error {
		select {
		case err := <-fatal:
			r.status = metrics.StatusFailed
			return err
		default:
		}
		end := r.closeWindow(ctx, max(r.win.start, f.lastEnd()), true)
		if !r.tick(end, metrics.PhaseMeasure) {
			// A boundary tick came between the last unit's end and this:
			// what was recorded after it goes into a last, short interval.
			r.tick(r.clock.now(), metrics.PhaseMeasure)
		}
		return nil
	}
	w := &r.win
	next := r.clock.next(0, w)
	timer := time.NewTimer(next - r.clock.now())
	defer timer.Stop()
	for {
		select {
		case <-timer.C:
			if isClosed(done) {
				return finish() // done before this boundary: its last interval ends there
			}
			at := next // the boundary this tick is for; the clock may be a little later
			switch {
			case !w.open && at >= r.cfg.Rampup:
				r.openWindow(ctx, at, false)
				r.tick(w.start, metrics.PhaseRampup)
				at = w.start
			case w.open && !isFinite && at >= w.start+r.cfg.Duration:
				r.tick(r.closeWindow(ctx, at, false), metrics.PhaseMeasure)
				return nil
			case w.open:
				r.tick(at, metrics.PhaseMeasure)
			default:
				r.tick(at, metrics.PhaseRampup)
			}
			next = r.clock.next(at, w)
			timer.Reset(next - r.clock.now())
		case <-ctx.Done():
			now := r.clock.now()
			r.status = metrics.StatusInterrupted
			r.out.Logf("interrupted after %s: stopping, keeping what was measured", now.Round(time.Second))
			if w.open {
				r.tick(r.closeWindow(context.WithoutCancel(ctx), now, false), metrics.PhaseMeasure)
			} else {
				r.tick(now, metrics.PhaseRampup)
			}
			return nil
		case err := <-fatal:
			r.status = metrics.StatusFailed
			return err
		case <-done:
			return finish()
		}
	}
}

// isClosed reports whether ch is closed (false for a nil channel).
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// tick makes the interval that ends at t and reports it; a measured interval
// without commits is noted for the disruption account. It reports false when
// t is not after the previous tick (no interval is made).
func (r *run) tick(t time.Duration, phase string) bool {
	iv, ok := r.col.Tick(t, phase)
	if !ok {
		return false
	}
	measuring := phase == metrics.PhaseMeasure
	if measuring {
		var commits int64
		for _, tx := range iv.Tx {
			commits += tx.Count
		}
		if commits == 0 {
			r.win.noteIdle(iv.Seq, t-iv.Length, t)
		}
	}
	if r.cfg.FirstVU != 0 {
		// The collector numbers this process's VUs from 1: the run's
		// numbers follow its first VU's.
		for i := range iv.VUs {
			iv.VUs[i].VU += r.cfg.FirstVU
		}
	}
	if tk, ok := r.x.(ticker); ok {
		tk.tick(&iv, measuring)
	}
	st := &r.stages
	endsStage := false
	if measuring && len(r.clock.stageEnd) > 0 {
		iv.Stage = st.cur + 1
		endsStage = st.cur < len(r.clock.stageEnd)-1 && t >= r.win.start+r.clock.stageEnd[st.cur]
	}
	r.out.Interval(iv)
	if endsStage {
		// The last stage ends with the window, after the run's last events
		// are drained (result.go).
		r.endStage(t)
		next := r.cfg.Stages[st.cur]
		r.level.set(next.Target)
		r.out.Logf("stage %d of %d: %g %s for %s", st.cur+1, len(r.clock.stageEnd), next.Target, r.x.unit(), next.Duration)
	}
	return true
}

// endStage closes the current stage at t (on the run's clock) and starts
// the next.
func (r *run) endStage(t time.Duration) {
	st := &r.stages
	row := r.col.StageTotals()
	row.Start = r.win.start
	if st.cur > 0 {
		row.Start = st.done[st.cur-1].End
	}
	row.Stage, row.Target, row.End = st.cur+1, r.cfg.Stages[st.cur].Target, t
	if m := (t - row.Start).Minutes(); m > 0 {
		row.TPM, row.NOPM = float64(row.Commits)/m, float64(row.NewOrders)/m
	}
	st.done = append(st.done, row)
	st.cur++
}

// lastStage closes the stage the window ended in, once the run's last
// events are taken in (a stage the run was stopped at the start of has no
// row), and returns every stage's row.
func (r *run) lastStage(end time.Duration) []metrics.StageResult {
	st := &r.stages
	if n := len(r.clock.stageEnd); n > 0 && st.cur < n {
		if st.cur == 0 || end > st.done[st.cur-1].End {
			r.endStage(end)
		}
	}
	return st.done
}
