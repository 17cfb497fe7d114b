//go:build unix

package server

import "syscall"

// fdLimit returns the process's soft limit on open file descriptors.
func fdLimit() uint64 {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return fallbackFDLimit
	}
	return uint64(lim.Cur) // uint64 on most systems; int64 on some BSDs
}
