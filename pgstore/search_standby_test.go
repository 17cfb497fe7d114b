package pgstore_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/pgtest"
	"github.com/sharedesk/transcript/pgstore"
)

// TestSearchOnStandby: in a Store with a standby, searches are reads: once the standby has
// replayed the desk they are answered there, not on the primary (and a read-only Store
// opened on the standby searches it too); and right after an append
// the Store made, a search shows it, and right after a redaction never finds the erased
// words, though the standby may not have replayed either yet: a search waits for the
// commits the Store knows of, or asks the primary.
func TestSearchOnStandby(t *testing.T) {
	t.Parallel()
	pgtest.StandbyServerDSN(t, "pgstore")
	st, primary, standby := openRouted(t)
	ctx := t.Context()
	search := func(text string) []transcript.Sequence {
		t.Helper()
		return searchSeqs(t, st, "eng", text, alice)
	}
	first, err := st.Append(ctx, "eng", transcript.Message{Author: alice, Content: "the rota"})
	if err != nil {
		t.Fatal(err)
	}
	caughtUp(t, primary, standby)
	before, primaryBefore := pgstore.StandbyReads(st)
	for range 5 {
		if got := search("rota"); !slices.Equal(got, []transcript.Sequence{first.Seq}) {
			t.Fatalf("search after the standby caught up: rows %v, want [%d]", got, first.Seq)
		}
	}
	after, primaryAfter := pgstore.StandbyReads(st)
	if after[0]-before[0] != 5 || primaryAfter != primaryBefore {
		t.Errorf("of 5 searches once the standby caught up, the standby answered %d and the primary %d: want all on the standby", after[0]-before[0], primaryAfter-primaryBefore)
	}
	if got := searchSeqs(t, mustOpen(t, standby), "eng", "rota", alice); !slices.Equal(got, []transcript.Sequence{first.Seq}) {
		t.Errorf("search of a read-only Store opened on the standby: rows %v, want [%d]", got, first.Seq)
	}
	for i := range 20 {
		word := fmt.Sprintf("secret%d", i)
		m, err := st.Append(ctx, "eng", transcript.Message{Author: alice, Content: word})
		if err != nil {
			t.Fatal(err)
		}
		if got := search(word); !slices.Equal(got, []transcript.Sequence{m.Seq}) {
			t.Fatalf("search right after appending %q: rows %v, want [%d]", word, got, m.Seq)
		}
		if _, err := st.Append(ctx, "eng", transcript.Message{Author: alice, Corrects: m.Seq, Redacted: true}); err != nil {
			t.Fatal(err)
		}
		if got := search(word); len(got) != 0 {
			t.Fatalf("search right after redacting %q: rows %v, want none", word, got)
		}
	}
}
