//go:build !unix

package server_test

// benchProcessCPU reports nothing where getrusage is missing.
func benchProcessCPU() (int64, bool) { return 0, false }
