// Package parallel runs a fixed number of workers that share one fate: the
// first error cancels the others' context and is the result.
package parallel

import (
	"context"
	"sync"
)

// Run runs fn(ctx, 0..n-1) concurrently and returns the first error; that
// error cancels the context the others see.
func Run(ctx context.Context, n int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	for i := range n {
		wg.Go(func() {
			if err := fn(ctx, i); err != nil {
				once.Do(func() { firstErr = err; cancel() })
			}
		})
	}
	wg.Wait()
	return firstErr
}
