//go:build !linux

package engine

import (
	"errors"
	"time"
)

// kernelTimer is none here: wakeTimer uses the runtime's timer.
type kernelTimer struct{}

func newKernelTimer() (*kernelTimer, error) { return nil, errors.ErrUnsupported }

func (*kernelTimer) set(time.Duration) {}
func (*kernelTimer) wait() bool        { return false }
func (*kernelTimer) close()            {}
