//go:build !unix

package server

// fdLimit returns fallbackFDLimit: the system has no RLIMIT_NOFILE.
func fdLimit() uint64 { return fallbackFDLimit }
