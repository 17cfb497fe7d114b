//go:build unix

package sqlitestore

import (
	"syscall"
	"testing"
)

// benchCPU starts counting the process's CPU time (user and system, all threads) and returns
// a function that reports it per op as cpu-ns/op; call it as defer benchCPU(b)(). On a shared
// machine CPU time is less disturbed by other processes than wall time, which also counts the
// time spent waiting for a CPU.
func benchCPU(b *testing.B) func() {
	start := processCPU()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
