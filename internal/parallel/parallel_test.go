package parallel

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestRunAllAndFirstErrorCancels(t *testing.T) {
	var ran atomic.Int32
	if err := Run(context.Background(), 5, func(ctx context.Context, i int) error { ran.Add(1); return nil }); err != nil || ran.Load() != 5 {
		t.Fatalf("err %v, %d ran", err, ran.Load())
	}
	boom := errors.New("boom")
	err := Run(context.Background(), 3, func(ctx context.Context, i int) error {
		if i == 0 {
			return boom
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Second):
			return errors.New("not cancelled")
		}
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v, want the first error", err)
	}
}
