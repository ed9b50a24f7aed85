package observe

// The PostgreSQL observer's one connection: dialing it, running a statement
// on it with its cost counted, taking turns on it (acquire, release), and
// the sampling loop that notices its loss and reconnects with backoff.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// dial opens the observer's session.
func (o *pgObserver) dial(ctx context.Context) (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, pgConnectTimeout)
	defer cancel()
	c, err := pgx.ConnectConfig(ctx, o.cfg.Copy())
	if err == nil {
		o.pid.Store(int64(c.PgConn().PID()))
	}
	return c, err
}

// query runs one statement on the connection (the caller holds it) and
// hands each row to each, accounting for the time and the transaction.
func (o *pgObserver) query(ctx context.Context, sql string, args []any, each func(pgx.Rows) error) error {
	t0 := time.Now()
	rows, err := o.conn.Query(ctx, sql, args...)
	if err == nil {
		for rows.Next() {
			if err = each(rows); err != nil {
				break
			}
		}
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
	}
	d := time.Since(t0)
	var pgErr *pgconn.PgError
	o.mu.Lock()
	o.cost.Queries++
	o.cost.QueryTime += d
	switch {
	case err == nil:
		o.own[0]++
	case errors.As(err, &pgErr) && !o.conn.IsClosed():
		o.own[1]++
	}
	o.mu.Unlock()
	return err
}

func (o *pgObserver) queryRow(ctx context.Context, sql string, args []any, dest ...any) error {
	found := false
	err := o.query(ctx, sql, args, func(r pgx.Rows) error {
		found = true
		return r.Scan(dest...)
	})
	if err == nil && !found {
		err = pgx.ErrNoRows
	}
	return err
}

// run samples until ctx ends, reconnecting when the connection is lost.
func (o *pgObserver) run(ctx context.Context) {
	defer close(o.done)
	tick := time.NewTicker(o.period)
	defer tick.Stop()
	backoff := pgMinBackoff
	var retryAt time.Time
	for {
		select {
		case <-ctx.Done():
			if !o.closing.Load() {
				o.mu.Lock()
				o.stopped = context.Cause(ctx)
				o.mu.Unlock()
			}
			return
		case <-tick.C:
		}
		o.mu.Lock()
		down := o.down
		o.mu.Unlock()
		if down {
			if time.Now().Before(retryAt) {
				continue
			}
			if err := o.reconnect(ctx); err != nil {
				o.mu.Lock()
				o.lastTry = pgOneLine(err)
				o.mu.Unlock()
				// ±20% jitter, as the virtual users' reconnections.
				retryAt = time.Now().Add(time.Duration(float64(backoff) * (0.8 + 0.4*rand.Float64())))
				backoff = min(2*backoff, pgMaxBackoff)
				continue
			}
			backoff = pgMinBackoff
		}
		o.sample(ctx)
	}
}

// acquire takes the connection, waiting at most wait (0: until ctx ends).
func (o *pgObserver) acquire(ctx context.Context, wait time.Duration) bool {
	var timeout <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case o.sem <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	case <-timeout:
		return false
	}
}

func (o *pgObserver) release() { <-o.sem }

// lose records that the connection is gone and closes it; the caller holds
// it. The sampler reconnects.
func (o *pgObserver) lose(err error) {
	if o.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		o.conn.Close(ctx)
		cancel()
		o.conn = nil
	}
	o.base = nil
	o.mu.Lock()
	if !o.down {
		o.down, o.downSince, o.downErr, o.lastTry = true, time.Now(), pgOneLine(err), ""
		o.downSlow = errors.Is(err, errTooSlow)
	}
	o.mu.Unlock()
}

// lostWords says how the connection was lost (o.mu held): a server too
// busy to answer a sample within its bound (a saturated machine, a stopped
// process) is not one that went away, though the observer gives up the
// connection alike.
func (o *pgObserver) lostWords() string {
	if o.downSlow {
		return "PostgreSQL did not answer in time"
	}
	return "PostgreSQL went away"
}

// reconnect makes the connection again and takes a new statistics baseline.
func (o *pgObserver) reconnect(ctx context.Context) error {
	c, err := o.dial(ctx)
	if err != nil {
		return err
	}
	if !o.acquire(ctx, 0) {
		c.Close(context.Background())
		return ctx.Err()
	}
	defer o.release()
	o.conn = c
	rctx, cancel := context.WithTimeout(ctx, pgStatsTimeout)
	read := o.readStats(rctx)
	cancel()
	if read.lost != nil {
		err := pgTimeoutErr(read.lost, rctx, "the statistics")
		o.lose(err)
		return err
	}
	o.base = &read
	o.baseStale.Store(false)
	now := time.Now()
	o.mu.Lock()
	o.down = false
	o.cost.Reconnects++
	o.gaps = append(o.gaps, fmt.Sprintf("%s: %s; reconnected after %.1f s (statistics restart from then)",
		o.lostWords(), o.downErr, now.Sub(o.downSince).Seconds()))
	o.mu.Unlock()
	return nil
}

// gap records why part of the current interval was not observed.
func (o *pgObserver) gap(why string) {
	o.mu.Lock()
	o.gaps = append(o.gaps, why)
	o.mu.Unlock()
}

// errTooSlow is a statement of the observer's that got no answer within
// its bound.
var errTooSlow = errors.New("no answer within the observer's bound")

// pgTimeoutErr words a statement's timeout (which pgx reports as a broken
// connection) as such.
func pgTimeoutErr(err error, ctx context.Context, what string) error {
	if ctx.Err() != nil || pgconn.Timeout(err) {
		return fmt.Errorf("%s took too long (%w)", what, errTooSlow)
	}
	return err
}
