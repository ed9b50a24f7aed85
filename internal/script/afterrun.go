package script

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/sledge-bench/sledge/internal/app"
	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/db"
	"github.com/sledge-bench/sledge/internal/db/drivers"
	"github.com/sledge-bench/sledge/internal/workload"
)

// afterRun does what HammerDB's timed TPROC-C driver does once its result
// is printed, when the script asks for it (its test driver does neither): pg_vacuum true, a CHECKPOINT
// as pg_superuser in pg_defaultdbase and a VACUUM as the benchmark's user
// (Sledge's: VACUUM (ANALYZE) of each TPROC-C table);
// maria_purge true, a wait for InnoDB's purge to empty the history list.
// Its lines are VU 1's, as HammerDB's are; a failure is one of them and
// does not change the run's result, which was measured before.
func (h *hammer) afterRun(ctx context.Context, svc *app.Service, spec config.Spec, out *vuserOutput) {
	vacuum := h.prefix == "pg_" && truthy(h.value("vacuum"))
	purge := h.prefix == "maria_" && truthy(h.value("purge"))
	if (!vacuum && !purge) || h.tpch() || h.value("driver") != "timed" {
		return
	}
	err := func() error {
		wl, t, err := svc.Resolve(spec)
		if err != nil {
			return err
		}
		drv, err := drivers.For(t.Kind)
		if err != nil {
			return err
		}
		c, err := drv.Connect(ctx, t, db.Options{AppName: "sledge cli", MustExist: true})
		if err != nil {
			return err
		}
		defer c.Close(context.WithoutCancel(ctx))
		if purge {
			return purgeHistory(ctx, c, out.line, time.Second, 10)
		}
		m, ok := wl.(workload.Maintainer)
		if !ok {
			return fmt.Errorf("%s has no vacuum step", wl.Title())
		}
		out.line("Checkpoint and Vacuum")
		// HammerDB takes the checkpoint as its superuser, in the default
		// database (CHECKPOINT needs a superuser or pg_checkpoint, which
		// the benchmark's user seldom has), and vacuums as that user. A
		// script that names no superuser the server knows gets the
		// checkpoint as the benchmark's user, said in a line.
		su, supass := h.superuser()
		checkpointer := c
		at, err := db.AdminTarget(t, h.defaultDatabase(), su, supass)
		if err != nil {
			return err
		}
		if admin, err := drv.Connect(ctx, at, db.Options{AppName: "sledge cli", MustExist: true}); err != nil {
			out.line(fmt.Sprintf("checkpoint as the benchmark's user: no connection as %s (%s) to %s (%s): %v",
				su, h.diset("superuser"), h.defaultDatabase(), h.diset("defaultdbase"), err))
		} else {
			defer admin.Close(context.WithoutCancel(ctx))
			checkpointer = admin
		}
		env := workload.Env{Driver: drv, Target: t, Progress: func(workload.Progress) {}, Logf: func(string, ...any) {}}
		if _, err := m.Maintain(ctx, env, checkpointer, config.BetweenCheckpoint); err != nil {
			return err
		}
		if _, err := m.Maintain(ctx, env, c, config.BetweenVacuum); err != nil {
			return err
		}
		out.line("Checkpoint and Vacuum Complete")
		return nil
	}()
	if err != nil {
		what := map[bool]string{true: "purge", false: "Checkpoint and Vacuum"}[purge]
		out.line(fmt.Sprintf("Error: %s (%s true): %v", what, h.diset(map[bool]string{true: "purge", false: "vacuum"}[purge]), err))
	}
}

// historyLength is InnoDB's history list length: the undo records the
// purge has yet to remove.
const historyLength = "SELECT variable_value FROM information_schema.global_status WHERE variable_name = 'INNODB_HISTORY_LIST_LENGTH'"

// purgeHistory waits, polling every tick, until InnoDB's history list is
// empty or has not shrunk for frozen polls in a row, as HammerDB's
// maria_purge does. HammerDB also raises innodb_purge_threads and
// innodb_purge_batch_size for the wait (global settings, needing SUPER);
// Sledge leaves the server's settings as they are.
func purgeHistory(ctx context.Context, c db.Conn, say func(string), tick time.Duration, frozen int) error {
	read := func() (int64, error) {
		var s string
		if err := c.QueryRow(ctx, historyLength).Scan(&s); err != nil {
			return 0, fmt.Errorf("read the history list length: %w", err)
		}
		return strconv.ParseInt(s, 10, 64)
	}
	n, err := read()
	if err != nil || n <= 0 {
		say("History list is 0 or cannot be queried, not purging")
		return nil
	}
	say(fmt.Sprintf("Starting purge: history list length %d", n))
	start := time.Now()
	for still := 0; n > 0 && still < frozen; {
		select {
		case <-ctx.Done():
			return errors.Join(ctx.Err(), fmt.Errorf("history list length %d", n))
		case <-time.After(tick):
		}
		m, err := read()
		if err != nil {
			return err
		}
		if m < n {
			still = 0
		} else {
			still++
		}
		n = m
	}
	if n > 0 {
		say(fmt.Sprintf("history list length %d has not reduced in %d seconds, ending purge", n, int(time.Duration(frozen)*tick/time.Second)))
	}
	d := time.Since(start).Round(time.Second)
	say(fmt.Sprintf("Purge complete in %d hrs:%02d mins:%02d secs", int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60))
	return nil
}
