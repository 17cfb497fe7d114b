package pgstore_test

import (
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/pgstore"
	"github.com/sharedesk/transcript/token"
)

// TestReadsTakeGenericPlans: PostgreSQL plans a view's first read, with its digest or
// without, with a pending token or without, for its arguments only at its first executions
// and then takes the statement's generic plan, rather than planning it afresh at every
// read, on an analyzed desk large enough that the plans' guesses differ, after reads of a
// small desk, whose custom plans look cheap.
func TestReadsTakeGenericPlans(t *testing.T) {
	t.Parallel()
	_, dsn := openStore(t)
	st := mustOpen(t, withParam(dsn, "pool_max_conns", "1"))
	ctx := t.Context()
	rows := make([]transcript.Message, 20_000)
	for i := range rows {
		rows[i] = loadRow(int64(i + 1))
	}
	pool := connect(t, dsn)
	copyDesk(t, pool, "eng", rows)
	copyDesk(t, pool, "ops", rows[:10]) // each copy analyzes the table
	foldChannel(t, st, digest.Policy{})
	const reads = 12
	for _, withDigest := range []bool{false, true} {
		for i := range reads {
			desk := "eng"
			if i < 5 { // the first reads a small desk's, whose custom plans look cheap
				desk = "ops"
			}
			q := transcript.Query{Conversation: transcript.Conversation{Desk: desk}, Viewer: alice, Digest: withDigest}
			if _, err := transcript.Project(ctx, st.Log(desk), q); err != nil {
				t.Fatal(err)
			}
			p, _ := pendingFor(t, st)
			if _, err := transcript.Project(token.WithPending(ctx, p), st.Log(desk), q); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range []struct{ name, sql string }{
		{"a page", pgstore.ReadBeforeSQL},
		{"a page, gated", pgstore.ReadBeforeGatedSQL},
		{"a page with its digest", pgstore.PageDigestSQL},
		{"a page with its digest, gated", pgstore.PageDigestGatedSQL},
	} {
		generic, custom, err := pgstore.PlanCounts(ctx, st, c.sql)
		switch {
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
		case custom > 5 || generic < reads-5:
			t.Errorf("%s: %d reads planned for their arguments, %d generic; want at most 5 planned so, the rest generic", c.name, custom, generic)
		}
	}
}
