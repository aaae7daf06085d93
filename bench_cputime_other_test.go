//go:build !linux

package xs2a_test

import "time"

// threadCPU has no per-thread CPU clock outside Linux: the CPU-time ratios
// are then not reported.
func threadCPU() (time.Duration, bool) { return 0, false }
