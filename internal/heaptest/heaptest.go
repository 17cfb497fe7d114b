// Package heaptest sets apart the tests that measure the Go heap. Such a test counts every
// allocation of its process, so it runs only where nothing else runs beside it: `make
// test-heap` runs each package's heap tests in a process of their own (-run Heap), one
// package at a time (-p 1), with TRANSCRIPT_HEAP_TESTS=1; everywhere else (`make test-go`,
// a plain `go test ./...`) they skip.
//
// A heap test calls Serial first and has Heap in its name (TestWalkHeapBound,
// TestSlowClientHeap), so that the target's -run finds it.
package heaptest

import (
	"os"
	"testing"
)

// Env is the variable that lets heap tests run when set to 1.
const Env = "TRANSCRIPT_HEAP_TESTS"

// Serial skips t unless TRANSCRIPT_HEAP_TESTS=1.
func Serial(t testing.TB) {
	t.Helper()
	if os.Getenv(Env) != "1" {
		t.Skip("measures the heap: runs alone, in make test-heap (" + Env + "=1)")
	}
}
