package transcript_test

// propertyDesks returns n, how many random desks a property test draws, or under the race
// detector a fifth of n, but no fewer than least (the test's count under -short). The walks
// these tests drive run on one goroutine, where the detector has nothing to check and makes
// each desk several times slower; make test runs them both ways: the fewer with the race
// detector (test-go), all n without it (test-root).
func propertyDesks(n, least int) int {
	if raceEnabled {
		return max(least, n/5)
	}
	return n
}
