// Package proptest sizes the module's property tests. A property test draws random desks
// and drives walks that run on one goroutine, where the race detector has nothing to check
// and makes each desk several times slower; make test runs such tests both ways: a few
// desks with the race detector (test-go), all of them without it (test-root).
package proptest

// Desks returns n, how many random desks a property test draws, or under the race detector
// a fifth of n, but no fewer than least (the test's count under -short).
func Desks(n, least int) int {
	if raceEnabled {
		return max(least, n/5)
	}
	return n
}
