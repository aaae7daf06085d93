package xs2a_test

import (
	"syscall"
	"time"
)

// threadCPU returns the CPU time used so far by the calling thread
// (getrusage RUSAGE_THREAD, microseconds). With the goroutine locked to its
// thread (runtime.LockOSThread), the difference of two readings is the
// goroutine's own work, without the time the thread waited while other
// processes ran: the robust measure on a busy machine. Garbage collection
// done by this goroutine (assists) is in it; the background mark workers on
// other threads are not.
func threadCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
