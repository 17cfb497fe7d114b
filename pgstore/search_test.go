package pgstore_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/storetest"
	"github.com/sharedesk/transcript/pgstore"
)

// fuzzSearchDesks are FuzzSearch's store and the desks of the cases it appended to it, by
// seed: each case is appended once, however many inputs ask for it.
var fuzzSearchDesks struct {
	mu    sync.Mutex
	st    *pgstore.Store
	cases map[uint64]storetest.SearchCase
}

// searchCaseDesks returns the case of seed and the store's searchers of its desk and of
// the same desk without its asides, appending them on first use.
func searchCaseDesks(t *testing.T, seed uint64) (storetest.SearchCase, transcript.Searcher, transcript.Searcher) {
	t.Helper()
	d := &fuzzSearchDesks
	d.mu.Lock()
	defer d.mu.Unlock()
	desk, blind := fmt.Sprintf("fuzz-%d", seed), fmt.Sprintf("fuzz-%d-blind", seed)
	c, ok := d.cases[seed]
	if !ok {
		c = storetest.NewSearchCase(seed, 30)
		for name, msgs := range map[string][]transcript.Message{desk: c.Inputs, blind: c.Blinded} {
			for i, m := range msgs {
				if _, err := d.st.Append(context.Background(), name, m); err != nil {
					t.Fatalf("desk %s, input %d: %v", name, i, err)
				}
			}
		}
		d.cases[seed] = c
	}
	return c, d.st.Log(desk).(transcript.Searcher), d.st.Log(blind).(transcript.Searcher)
}

// FuzzSearch: the leak property, fuzzed. For any desk (of 8, by seed), text, scope, bound
// and limit, no answer to any viewer holds a word of a row that viewer may not read, or of
// erased content; an outsider's answers, messages and Next, are those of the same desk
// without its asides; and every answer is the model's.
func FuzzSearch(f *testing.F) {
	st, _ := openStore(f)
	fuzzSearchDesks.st, fuzzSearchDesks.cases = st, map[uint64]storetest.SearchCase{}
	f.Add(uint64(1), "deploy", uint8(0), uint8(0), int8(0))
	f.Add(uint64(2), "qz7x", uint8(3), uint8(5), int8(1))
	f.Add(uint64(3), "CAFÉ straße", uint8(1), uint8(0), int8(3))
	f.Add(uint64(4), "!!!", uint8(0), uint8(0), int8(-1))
	f.Add(uint64(5), "σοφια ΠΡΙΒΕΤ", uint8(0), uint8(20), int8(2))
	f.Fuzz(func(t *testing.T, seed uint64, text string, thread, before uint8, limit int8) {
		c, s, sb := searchCaseDesks(t, seed%8)
		q := transcript.SearchQuery{Text: text, Thread: transcript.Sequence(thread) % 40, Before: transcript.Sequence(before) % 40, Limit: int(limit)}
		storetest.SearchCheck(t, c, s, sb, q)
	})
}

// searchSeqs returns the Seqs of desk's matches of text for viewer, newest first, failing
// t on an error.
func searchSeqs(t *testing.T, st *pgstore.Store, desk, text string, viewer transcript.Author) []transcript.Sequence {
	t.Helper()
	res, err := st.Log(desk).(transcript.Searcher).Search(t.Context(), transcript.SearchQuery{Text: text, Viewer: viewer})
	if err != nil {
		t.Fatalf("search %q as %v: %v", text, viewer, err)
	}
	var seqs []transcript.Sequence
	for _, m := range res.Messages {
		seqs = append(seqs, m.Seq)
	}
	return seqs
}

// TestSearchFollowsCorrections: an edited row is found by its new words, never by its old
// ones; a redacted row by none of its words, in an append of one correction and in a
// batch; and the corrections themselves by nothing.
func TestSearchFollowsCorrections(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	ctx := t.Context()
	for _, m := range []transcript.Message{
		{Author: alice, Content: "the rota for monday"},        // 1, edited by 3
		{Author: bot, Content: "the migration failed at noon"}, // 2, redacted by 4
		{Author: alice, Corrects: 1, Content: "the schedule for tuesday"},
		{Author: bot, Corrects: 2, Redacted: true},
	} {
		if _, err := st.Append(ctx, "eng", m); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.AppendBatch(ctx, "eng", []transcript.Message{
		{Author: alice, Content: "deploy friday"}, // 5, edited by 6
		{Author: alice, Corrects: transcript.BatchParent(0), Content: "deploy saturday"},
		{Author: bot, Content: "secret plan friday"}, // 7, redacted by 8
		{Author: bot, Corrects: transcript.BatchParent(2), Redacted: true},
	}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		text string
		want []transcript.Sequence
	}{
		{"rota", nil},
		{"monday", nil},
		{"schedule", []transcript.Sequence{1}},
		{"tuesday", []transcript.Sequence{1}},
		{"migration", nil},
		{"noon", nil},
		{"the", []transcript.Sequence{1}},
		{"friday", nil},
		{"saturday", []transcript.Sequence{5}},
		{"deploy", []transcript.Sequence{5}},
		{"secret", nil},
	} {
		for _, viewer := range []transcript.Author{{}, alice, transcript.Operator()} {
			if got := searchSeqs(t, st, "eng", c.text, viewer); !slices.Equal(got, c.want) {
				t.Errorf("search %q as %v: rows %v, want %v", c.text, viewer, got, c.want)
			}
		}
	}
}

// storedTerms returns every term transcript_terms holds, of every row of every desk.
func storedTerms(t *testing.T, pool *pgxpool.Pool) []string {
	t.Helper()
	var terms []string
	if err := pool.QueryRow(t.Context(), `SELECT coalesce(array_agg(term ORDER BY term), '{}') FROM transcript_terms, unnest(terms) AS term`).Scan(&terms); err != nil {
		t.Fatal(err)
	}
	return terms
}

// TestSearchIndexErasure: a redaction takes the erased row's words out of the terms table
// in its transaction (a query of the table itself finds none of them, of the row or of
// its earlier edits), and the desk restored from its export brings none in; the words of
// the other rows stay.
func TestSearchIndexErasure(t *testing.T) {
	t.Parallel()
	st, dsn := openStore(t)
	ctx := t.Context()
	for _, m := range []transcript.Message{
		{Author: bot, Content: "password hunter2"},                                  // 1
		{Author: bot, Corrects: 1, Content: "password swordfish"},                   // 2: an edit, then erased
		{Author: alice, Content: "kept words"},                                      // 3
		{Author: bot, Corrects: 1, Redacted: true},                                  // 4
		{Author: alice, Content: "aside words", Audience: []transcript.Author{bot}}, // 5, redacted by 6
		{Author: alice, Corrects: 5, Redacted: true},
	} {
		if _, err := st.Append(ctx, "eng", m); err != nil {
			t.Fatal(err)
		}
	}
	export := readDesk(t, st, "eng")
	for i := range export {
		export[i].Seq = 0
	}
	if err := st.RestoreBatch(ctx, "restored", export); err != nil {
		t.Fatal(err)
	}
	got := storedTerms(t, connect(t, dsn))
	if want := []string{"kept", "kept", "words", "words"}; !slices.Equal(got, want) {
		t.Errorf("terms stored: %q, want %q (no word of an erased row)", got, want)
	}
}

// TestSearchViewerNoRowNames: a viewer whose id PostgreSQL's text cannot hold (a NUL byte,
// bytes that are not UTF-8), which no stored row can name, reads the desk rows, as memlog
// would have it read them, and the search does not fail.
func TestSearchViewerNoRowNames(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	ctx := t.Context()
	for _, m := range []transcript.Message{
		{Author: alice, Content: "hello all"},
		{Author: bot, Content: "hello alice", Audience: []transcript.Author{alice}},
	} {
		if _, err := st.Append(ctx, "eng", m); err != nil {
			t.Fatal(err)
		}
	}
	for _, viewer := range []transcript.Author{transcript.Agent("bot\x00", "Bot"), transcript.Person("\xffalice", "Alice")} {
		if got := searchSeqs(t, st, "eng", "hello", viewer); !slices.Equal(got, []transcript.Sequence{1}) {
			t.Errorf("search as %q: rows %v, want [1]", viewer.ID, got)
		}
	}
}
