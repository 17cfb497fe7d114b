package pgstore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/pgstore"
)

// copyTerms bulk-loads into transcript_terms, with COPY in tx, the terms an append would
// have stored for the rows of desk that row(i) returns, i from 0 to n-1, and the reader
// sets of its asides: what makes a desk loaded with COPY searchable as an appended one.
func copyTerms(tb testing.TB, tx pgx.Tx, desk string, n int, row func(i int) transcript.Message) {
	tb.Helper()
	var (
		readers [][]any
		seen    = map[string]bool{}
	)
	key, err := pgstore.SearchKeyOf(tb.Context(), tx)
	if err != nil {
		tb.Fatal(err)
	}
	i := 0
	src := pgx.CopyFromFunc(func() ([]any, error) {
		for ; i < n; i++ {
			m := row(i)
			r, sets := pgstore.TermsRow(key, desk, &m)
			for _, s := range sets {
				if k := fmt.Sprint(s[1:]...); !seen[k] {
					seen[k] = true
					readers = append(readers, s)
				}
			}
			if r != nil {
				i++
				return r, nil
			}
		}
		return nil, nil
	})
	if _, err := tx.CopyFrom(context.Background(), pgx.Identifier{"transcript_terms"}, []string{"desk", "readers", "seq", "parent", "terms", "keys"}, src); err != nil {
		tb.Fatal(err)
	}
	for _, r := range readers {
		if _, err := tx.Exec(context.Background(), `INSERT INTO transcript_term_readers (desk, kind, id, readers) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, r...); err != nil {
			tb.Fatal(err)
		}
	}
}
