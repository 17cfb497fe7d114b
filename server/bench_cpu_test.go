//go:build unix

package server_test

import "syscall"

// benchProcessCPU returns the CPU time, user and system, of every thread the process has
// run (those that exited included), in nanoseconds, from getrusage; false where it fails.
// In these benchmarks the process is the server and its clients both, so this is the CPU
// a loopback exchange costs its two ends.
func benchProcessCPU() (int64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}
