package app

import (
	"context"
	"fmt"

	"github.com/sledge-bench/sledge/internal/config"
)

// betweenTrials does to the database what req's spec asks between two
// trials of a series or profile (config.Spec.Between).
func (s *Service) betweenTrials(ctx context.Context, req Request) error {
	switch req.Spec.Between {
	case "", config.BetweenNone:
		return nil
	}
	return fmt.Errorf("between trials: %s is not implemented yet", req.Spec.Between)
}
