package pgstore

import (
	"context"
	"math"

	"github.com/sharedesk/transcript"
)

// The digests' statements, for the tests of their plans.
const (
	DigestSQL    = digestSQL
	PutDigestSQL = putDigestSQL

	PageDigestSQL      = pageDigestSQL
	PageDigestGatedSQL = pageDigestGatedSQL
)

// ReadPageDigest runs the statement of a view's first read with its digest on s's
// primary, for up to n of desk's newest rows and c's newest digest: the page's rows, as a
// page read scans them, and the digest, with false when the scan ended before its row.
func ReadPageDigest(ctx context.Context, s *Store, desk string, n int, c transcript.Conversation) ([]transcript.Message, transcript.Digest, bool, error) {
	msgs, lead, err := readPageDigest(ctx, s.pool, &s.audiences, pageDigestArgs{desk, math.MaxInt64, n, c, 0})
	if err != nil || lead == nil {
		return msgs, transcript.Digest{}, false, err
	}
	d, _ := digestOfRow(c, *lead)
	return msgs, d, true, nil
}

// PlanCounts returns how many times the session of one of s's connections planned the
// prepared statement sql generically and how many times for its arguments: with a pool of
// one connection, the session of every statement s runs.
func PlanCounts(ctx context.Context, s *Store, sql string) (generic, custom int64, err error) {
	err = s.pool.QueryRow(ctx, `SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = $1`, sql).Scan(&generic, &custom)
	return generic, custom, err
}
