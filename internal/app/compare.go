package app

import (
	"context"
	"errors"

	"github.com/sledge-bench/sledge/internal/report"
)

// ProfilePair loads the profiles of jobs a and b when both are the first
// jobs of profiles (ok); when either is not, ok is false and the two are
// compared as jobs. A job that does not exist is an error.
func ProfilePair(ctx context.Context, st ProfileStore, a, b int64) (pa, pb report.Profile, ok bool, err error) {
	ok = true
	for _, id := range []int64{a, b} {
		root, err := ProfileOf(ctx, st, id)
		switch {
		case errors.Is(err, ErrNotProfile):
			ok = false
		case err != nil:
			return pa, pb, false, err
		default:
			ok = ok && root == id
		}
	}
	if !ok {
		return pa, pb, false, nil
	}
	if pa, err = LoadProfile(ctx, st, a); err != nil {
		return pa, pb, false, err
	}
	if pb, err = LoadProfile(ctx, st, b); err != nil {
		return pa, pb, false, err
	}
	return pa, pb, true, nil
}
