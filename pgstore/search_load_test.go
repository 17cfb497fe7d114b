package pgstore_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sharedesk/transcript"
)

// copyTerms bulk-loads into transcript_terms, with COPY in tx, the terms an append would
// have stored for the rows of desk that row(i) returns, i from 0 to n-1: what makes a
// desk loaded with COPY searchable as an appended one.
func copyTerms(tb testing.TB, tx pgx.Tx, desk string, n int, row func(i int) transcript.Message) {
	tb.Helper()
	i := 0
	src := pgx.CopyFromFunc(func() ([]any, error) {
		for ; i < n; i++ {
			m := row(i)
			if terms := transcript.IndexTerms(&m); len(terms) > 0 {
				i++
				return []any{desk, int64(m.Seq), terms}, nil
			}
		}
		return nil, nil
	})
	if _, err := tx.CopyFrom(context.Background(), pgx.Identifier{"transcript_terms"}, []string{"desk", "seq", "terms"}, src); err != nil {
		tb.Fatal(err)
	}
}
