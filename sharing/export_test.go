package sharing

import (
	"context"

	"github.com/sharedesk/transcript"
)

// PrepareFixedReads is Prepare with every read asking for PageSize rows (or the scan budget
// left): the baseline Prepare's growing reads are measured against in bench_test.go.
func PrepareFixedReads(ctx context.Context, log transcript.Log, q Query) (Plan, error) {
	return prepare(ctx, log, q, transcript.PageSize)
}
