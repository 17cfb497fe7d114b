// Package proptest sizes the module's property tests. A property test draws random desks
// (or cases, or seeds) and drives checks that run on one goroutine, where the race detector
// has little to check and makes each draw several times slower; make test runs such tests
// both ways: a few draws with the race detector (test-go), all of them without it
// (test-draws, which names the tests it runs).
package proptest

// Desks returns n, how many random desks a property test draws, or under the race detector
// a fifth of n, but no fewer than least (the test's count under -short).
func Desks(n, least int) int {
	if raceEnabled {
		return max(least, n/5)
	}
	return n
}
