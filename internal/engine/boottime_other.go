//go:build !linux

package engine

import "time"

// bootClock is 0 where the time since boot (suspends included) cannot be
// read: a machine's sleep is then not told from the client running.
func bootClock() time.Duration { return 0 }
