package xs2a_test

import (
	"syscall"
	"time"
	"unsafe"
)

// clockThreadCPUTime is CLOCK_THREAD_CPUTIME_ID of clock_gettime(2).
const clockThreadCPUTime = 3

// threadCPU returns the CPU time used so far by the calling thread
// (clock_gettime CLOCK_THREAD_CPUTIME_ID, exact to the nanosecond, unlike
// getrusage RUSAGE_THREAD, which moves only at scheduler ticks). With the
// goroutine locked to its thread (runtime.LockOSThread), the difference of
// two readings is the goroutine's own work without the time the thread
// waited while other processes ran: the robust measure on a busy machine.
// Garbage collection done by this goroutine (assists) is in it; the
// background mark workers on other threads are not. A reading costs a
// system call (under 1 µs), outside the wall-clock timings.
func threadCPU() (time.Duration, bool) {
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
