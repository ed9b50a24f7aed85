package engine

import (
	"time"

	"golang.org/x/sys/unix"
)

// bootClock is the time since boot, suspended time included
// (CLOCK_BOOTTIME); 0 when it cannot be read. Against the monotonic clock,
// which stops while the machine sleeps, it tells a suspend — and unlike
// the wall clock it is not stepped by NTP.
func bootClock() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
