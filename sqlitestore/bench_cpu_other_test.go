//go:build !unix

package sqlitestore

import "testing"

// benchCPU reports nothing where getrusage is missing.
func benchCPU(*testing.B) func() { return func() {} }

// processCPU is 0 where getrusage is missing.
func processCPU() int64 { return 0 }
