package pgstore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/storetest"
	"github.com/sharedesk/transcript/pgstore"
	"github.com/sharedesk/transcript/storage"
)

// searchWork returns the work (SearchWork) of one search of desk for q, failing t on an
// error.
func searchWork(t *testing.T, st *pgstore.Store, desk string, q transcript.SearchQuery) [2]int64 {
	t.Helper()
	log := st.Log(desk)
	counter := log.(interface{ SearchWork() (int64, int64) })
	e0, r0 := counter.SearchWork()
	if _, err := log.(transcript.Searcher).Search(context.Background(), q); err != nil {
		t.Fatalf("search %q of %s as %v: %v", q.Text, desk, q.Viewer, err)
	}
	e1, r1 := counter.SearchWork()
	return [2]int64{e1 - e0, r1 - r0}
}

// openUnvacuumedStore is openStore on a database whose searched tables autovacuum leaves
// alone. A search's work counts the index entries of row versions no longer visible that
// its scans meet, which a vacuum removes: one between the appends to the two desks a test
// compares would make their work differ by what it removed, not by the asides.
func openUnvacuumedStore(t *testing.T) *pgstore.Store {
	t.Helper()
	st, dsn := openStore(t)
	pool := connect(t, dsn)
	for _, table := range []string{"transcript_desks", "transcript_messages", "transcript_terms", "transcript_term_readers"} {
		if _, err := pool.Exec(t.Context(), "ALTER TABLE "+table+" SET (autovacuum_enabled = off)"); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

// TestSearchWorkOutsider: on a desk of 4,000 rows, half of them asides from agent:alice to
// agent:bob holding "acmecorp", beside another desk whose 2,000 rows hold "globex", the
// work of agent:eve's and the zero Author's searches (index entries and rows read, as the
// store counts them) for acmecorp, for globex, and for words of the asides' rows together,
// is the work of a search for a word in no row, and every search's work on the desk is
// its work on the same desk with the asides replaced by blank rows; bob's search for
// acmecorp reads the asides' entries and rows.
func TestSearchWorkOutsider(t *testing.T) {
	t.Parallel()
	st := openUnvacuumedStore(t)
	ctx := t.Context()
	var (
		aliceAgent = transcript.Agent("alice", "Alice")
		bob        = transcript.Agent("bob", "Bob")
		eve        = transcript.Agent("eve", "Eve")
	)
	const rows = 4000
	var withAsides, blind, other []transcript.Message
	for i := range rows {
		m := transcript.Message{Author: aliceAgent, Content: fmt.Sprintf("status update %d of the week", i)}
		b := m
		if i%2 == 1 {
			m = transcript.Message{Author: aliceAgent, Audience: []transcript.Author{bob}, Content: fmt.Sprintf("acmecorp deal %d of the week", i)}
			b = transcript.Message{Author: aliceAgent, Content: " "}
		}
		withAsides, blind = append(withAsides, m), append(blind, b)
	}
	for i := range rows / 2 {
		other = append(other, transcript.Message{Author: eve, Content: fmt.Sprintf("globex %d", i)})
	}
	for desk, msgs := range map[string][]transcript.Message{"eng": withAsides, "eng-blind": blind, "other": other} {
		for from := 0; from < len(msgs); from += 1000 {
			if err := st.AppendBatch(ctx, desk, msgs[from:from+1000]); err != nil {
				t.Fatal(err)
			}
		}
	}
	// An edit and a redaction of a desk row and of an aside: row versions no longer visible.
	for desk, msgs := range map[string][]transcript.Message{
		"eng":       {{Author: aliceAgent, Corrects: 3001, Content: "status edited"}, {Author: aliceAgent, Corrects: 3003, Redacted: true}, {Author: aliceAgent, Corrects: 3002, Content: "acmecorp edited"}, {Author: aliceAgent, Corrects: 3004, Redacted: true}},
		"eng-blind": {{Author: aliceAgent, Corrects: 3001, Content: "status edited"}, {Author: aliceAgent, Corrects: 3003, Redacted: true}, {Author: aliceAgent, Content: " "}, {Author: aliceAgent, Content: " "}},
	} {
		for _, m := range msgs {
			if _, err := st.Append(ctx, desk, m); err != nil {
				t.Fatal(err)
			}
		}
	}

	for _, viewer := range []transcript.Author{eve, {}} {
		none := searchWork(t, st, "eng", transcript.SearchQuery{Text: "zzqnowhere", Viewer: viewer})
		for _, text := range []string{"acmecorp", "globex", "acmecorp deal", "deal", "edited acmecorp"} {
			if got := searchWork(t, st, "eng", transcript.SearchQuery{Text: text, Viewer: viewer}); got != none {
				t.Errorf("search for %q as %v: work (entries, rows) %v, want %v, a word in no row's", text, viewer, got, none)
			}
		}
		for _, q := range []transcript.SearchQuery{
			{Text: "zzqnowhere"}, {Text: "acmecorp"}, {Text: "week"}, {Text: "status"}, {Text: "of the"},
			{Text: "week", Before: 2001}, {Text: "week", Limit: 3}, {Text: "update", Before: 5},
			{Text: "week", Thread: 3}, {Text: "acmecorp", Thread: 3999},
		} {
			q.Viewer = viewer
			with, without := searchWork(t, st, "eng", q), searchWork(t, st, "eng-blind", q)
			if with != without {
				t.Errorf("%+v: work (entries, rows) %v with the asides, %v without them", q, with, without)
			}
			if with[1] == 0 {
				t.Errorf("%+v: no row read", q)
			}
		}
	}
	none := searchWork(t, st, "eng", transcript.SearchQuery{Text: "zzqnowhere", Viewer: bob, Before: 3000})
	if got := searchWork(t, st, "eng", transcript.SearchQuery{Text: "1001", Viewer: bob, Before: 3000}); got[0] <= none[0] || got[1] <= none[1] {
		t.Errorf("bob's search for a word of one aside: work (entries, rows) %v, want more than %v, a word in no row's", got, none)
	}
}

// TestSearchWorkCases: for the shared search cases (random desks of asides, their replies,
// edits and redactions), every search of the outsider and of the zero Author, of the
// whole desk and of threads, does the same work on the desk and on the same desk with the
// asides replaced by blank rows.
func TestSearchWorkCases(t *testing.T) {
	t.Parallel()
	st := openUnvacuumedStore(t)
	for seed := range uint64(4) {
		c := storetest.NewSearchCase(seed, 120)
		desk, blind := fmt.Sprintf("case-%d", seed), fmt.Sprintf("case-%d-blind", seed)
		for name, msgs := range map[string][]transcript.Message{desk: c.Inputs, blind: c.Blinded} {
			for i, m := range msgs {
				if _, err := st.Append(t.Context(), name, m); err != nil {
					t.Fatalf("desk %s, input %d: %v", name, i, err)
				}
			}
		}
		for _, text := range c.Texts {
			if _, err := storage.PlanSearch(transcript.SearchQuery{Text: text}); err != nil {
				continue
			}
			for _, thread := range c.Threads {
				for _, viewer := range []transcript.Author{{}, storetest.SearchOutsider} {
					for _, before := range []transcript.Sequence{0, transcript.Sequence(len(c.Rows) / 2)} {
						q := transcript.SearchQuery{Text: text, Thread: thread, Viewer: viewer, Before: before, Limit: 3}
						if with, without := searchWork(t, st, desk, q), searchWork(t, st, blind, q); with != without {
							t.Errorf("seed %d, %+v: work (entries, rows) %v with the asides, %v without them", seed, q, with, without)
						}
					}
				}
			}
		}
	}
}
