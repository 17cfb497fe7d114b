//go:build !unix

package sqlitestore

import "testing"

// benchCPU reports nothing where getrusage is missing.
func benchCPU(*testing.B) func() { return func() {} }
