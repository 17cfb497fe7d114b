package transcript

import "context"

// fixedReads asks for PageSize rows in every read: the plan Project's growing reads are
// measured against in bench_test.go.
var fixedReads = readPlan{first: func(int) int { return PageSize }}

// ProjectFixedReads is Project with every read asking for PageSize rows (or the scan budget
// left), for the external benchmarks.
func ProjectFixedReads(ctx context.Context, log Log, q Query) (Projection, error) {
	return project(ctx, log, q, fixedReads)
}

// Elide is elide, for the tests of the grouping.
var Elide = elide
