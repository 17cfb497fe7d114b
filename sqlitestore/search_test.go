package sqlitestore_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/proptest"
	"github.com/sharedesk/transcript/internal/storetest"
	"github.com/sharedesk/transcript/sqlitestore"
)

// TestSearchRuleBatches: searches are the model's on desks written by AppendBatch in
// chunks that alternate between a desk and its blinded copy, so that the two desks' ids
// interleave and a chunk spans several of a batch's INSERTs. A desk of 400 rows is two
// chunks: a whole one, which spans two INSERTs, and a part. Under the race detector it asks
// the first 42 of the case's texts (proptest.Desks; the checks ask one search at a time):
// every pairing of thread, limit and bound among them.
func TestSearchRuleBatches(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := openTemp(t)
	const chunk = 300 // above a batch's INSERT of 256 rows
	for _, seed := range storetest.SearchSeeds[:1] {
		c := storetest.NewSearchCase(seed, 400)
		desk, blind := fmt.Sprintf("batch-%d", seed), fmt.Sprintf("batch-%d-blind", seed)
		for i := 0; i < len(c.Inputs); i += chunk {
			for name, msgs := range map[string][]transcript.Message{desk: c.Inputs, blind: c.Blinded} {
				if err := st.AppendBatch(ctx, name, msgs[i:min(i+chunk, len(msgs))]); err != nil {
					t.Fatalf("AppendBatch to %s from input %d: %v", name, i, err)
				}
			}
		}
		s, sb := st.Log(desk).(transcript.Searcher), st.Log(blind).(transcript.Searcher)
		for i, text := range c.Texts[:proptest.Desks(len(c.Texts), 42)] {
			q := transcript.SearchQuery{Text: text, Thread: c.Threads[i%len(c.Threads)], Limit: []int{0, 3, 100}[i%3]}
			if i%2 == 1 {
				q.Before = transcript.Sequence(len(c.Rows) / 3)
			}
			storetest.SearchCheck(t, c, s, sb, q)
		}
	}
}

// trickyContents are rows whose words an FTS5 tokenizer of its own would split, fold or
// join otherwise than storage.Terms: marks composed and decomposed, full-width forms,
// Devanagari with its vowel signs and virama, Hangul syllables and conjoining jamo, words
// against emoji and punctuation, FTS5's own operators, and terms of 64 and 65 bytes.
var trickyContents = []string{
	"café naïve", "cafe\u0301 nai\u0308ve", "cafe naive",
	"ＤＥＰＬＯＹ ｄｅｐｌｏｙ", "deploy",
	"नमस्ते दुनिया", "नमस ते",
	"한국어 검색", "\u1112\u1161\u11ab\u1100\u1173\u11af", "한글",
	"deploy🚀now", "🚀launch🚀", "snake_case", "it's co-op", "v1.2.3",
	"AND OR NOT NEAR", `"quoted" ^caret *star* (paren) col:umn`,
	"Straße STRASSE", "ΣΟΦΊΑ σοφία", "İstanbul", "K Kelvin", "٣ ٤ digits",
	strings.Repeat("é", 32), strings.Repeat("é", 32) + "x", strings.Repeat("a", 64), strings.Repeat("a", 65),
	"_1 _2 desk tokens",
}

// TestSearchTrickyTerms: every term of every tricky content, written as it was, upper
// case, decomposed and composed, finds exactly the rows the model finds, in one desk and
// not in another holding the same rows; and a 65-byte term, which no search holds, is
// refused rather than matched.
func TestSearchTrickyTerms(t *testing.T) {
	ctx := t.Context()
	st := openTemp(t)
	var rows []transcript.Message
	for _, desk := range []string{"other", "tricky"} {
		for i, c := range trickyContents {
			m, err := st.Append(ctx, desk, transcript.Message{Author: transcript.Operator(), Content: c})
			if err != nil {
				t.Fatalf("appending tricky content %d: %v", i, err)
			}
			if desk == "tricky" {
				rows = append(rows, m)
			}
		}
	}
	log := st.Log("tricky").(transcript.Searcher)
	seen := map[string]bool{}
	found := 0
	for _, c := range trickyContents {
		for _, text := range append(strings.Fields(c), c, strings.ToUpper(c)) {
			if seen[text] {
				continue
			}
			seen[text] = true
			q := transcript.SearchQuery{Text: text, Viewer: transcript.Operator(), Limit: transcript.MaxSearchLimit}
			want, wantErr := storetest.SearchModel(rows, q)
			got, err := log.Search(ctx, q)
			if (wantErr != nil) != (err != nil) || wantErr != nil && !errors.Is(err, transcript.ErrBadSearch) {
				t.Errorf("search %+q: error %v, want %v", text, err, wantErr)
				continue
			}
			if !cmp.Equal(want, got, cmpopts.EquateEmpty()) {
				t.Errorf("search %+q = %v, want the model's %v", text, seqs(got), seqs(want))
			}
			found += len(got.Messages)
		}
	}
	if found < len(trickyContents) {
		t.Fatalf("the searches found %d rows in all, fewer than the contents", found)
	}
}

// seqs returns the Seqs of res's messages, and its Next.
func seqs(res transcript.SearchResult) string {
	var s []transcript.Sequence
	for _, m := range res.Messages {
		s = append(s, m.Seq)
	}
	return fmt.Sprintf("%v next %d", s, res.Next)
}

// TestSearchCorrections: an edited row is found by its new words, never by its old ones,
// with a batch's edits too; a redacted row by neither; a correction by nothing; and a
// refused batch leaves nothing in the index.
func TestSearchCorrections(t *testing.T) {
	ctx := t.Context()
	st := openTemp(t)
	ana := transcript.Person("ana", "Ana")
	add := func(m transcript.Message) transcript.Message {
		t.Helper()
		got, err := st.Append(ctx, "eng", m)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	find := func(text string) []transcript.Sequence {
		t.Helper()
		res, err := st.Log("eng").(transcript.Searcher).Search(ctx, transcript.SearchQuery{Text: text, Viewer: ana})
		if err != nil {
			t.Fatal(err)
		}
		var s []transcript.Sequence
		for _, m := range res.Messages {
			s = append(s, m.Seq)
		}
		return s
	}
	row := add(transcript.Message{Author: ana, Content: "rota oldword"})
	add(transcript.Message{Corrects: row.Seq, Author: ana, Content: "rota newword"})
	if err := st.AppendBatch(ctx, "eng", []transcript.Message{
		{Author: ana, Content: "batchold"},
		{Corrects: transcript.BatchParent(0), Author: ana, Content: "batchnew"},
	}); err != nil {
		t.Fatal(err)
	}
	gone := add(transcript.Message{Author: ana, Content: "secretword rota"})
	add(transcript.Message{Corrects: gone.Seq, Author: ana, Redacted: true})
	err := st.AppendBatch(ctx, "eng", []transcript.Message{
		{Author: ana, Content: "refusedword"},
		{Parent: 999, Author: ana, Content: "refusedword too"},
	})
	if !errors.Is(err, transcript.ErrInvalidMessage) {
		t.Fatalf("a batch replying to a missing row: %v, want ErrInvalidMessage", err)
	}
	for text, want := range map[string][]transcript.Sequence{
		"oldword": nil, "newword": {1}, "rota": {1}, "batchold": nil, "batchnew": {3},
		"secretword": nil, "refusedword": nil,
	} {
		if got := find(text); !cmp.Equal(got, want, cmpopts.EquateEmpty()) {
			t.Errorf("search %q = %v, want %v", text, got, want)
		}
	}
}

// fuzzSearch is the search cases whose desks FuzzSearch's store holds, by seed.
var fuzzSearch struct {
	mu    sync.Mutex
	cases map[uint64]storetest.SearchCase
}

// fuzzSeeds bounds the desks FuzzSearch appends: a seed is taken modulo it.
const fuzzSeeds = 8

// fuzzCase returns the search case of seed, appending its desks to the fuzz store the
// first time.
func fuzzCase(t *testing.T, st *sqlitestore.Store, seed uint64) (storetest.SearchCase, string) {
	fuzzSearch.mu.Lock()
	defer fuzzSearch.mu.Unlock()
	desk := fmt.Sprintf("fuzz-%d", seed)
	if c, ok := fuzzSearch.cases[seed]; ok {
		return c, desk
	}
	c := storetest.NewSearchCase(seed, 60)
	for desk, msgs := range map[string][]transcript.Message{desk: c.Inputs, desk + "-blind": c.Blinded} {
		for i, m := range msgs {
			if _, err := st.Append(context.Background(), desk, m); err != nil {
				t.Fatalf("appending input %d to %s: %v", i, desk, err)
			}
		}
	}
	if fuzzSearch.cases == nil {
		fuzzSearch.cases = make(map[uint64]storetest.SearchCase)
	}
	fuzzSearch.cases[seed] = c
	return c, desk
}

// FuzzSearch: for any text, thread, bound and limit on a random desk, every viewer's
// answer is the model's and pages to the end, no answer's JSON holds a word of a row the
// viewer may not read, and an outsider's answers are those of the desk without its asides.
func FuzzSearch(f *testing.F) {
	f.Add(uint64(1), "deploy", uint64(0), uint64(0), 3)
	f.Add(uint64(2), "Café NAÏVE", uint64(5), uint64(40), 1)
	f.Add(uint64(3), "qz7x straße", uint64(0), uint64(30), 0)
	f.Add(uint64(4), `"and" OR near*`, uint64(2), uint64(0), 200)
	st, err := sqlitestore.Open(f.Context(), filepath.Join(f.TempDir(), "fuzz.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	f.Fuzz(func(t *testing.T, seed uint64, text string, thread, before uint64, limit int) {
		c, desk := fuzzCase(t, st, seed%fuzzSeeds)
		s := st.Log(desk).(transcript.Searcher)
		sb := st.Log(desk + "-blind").(transcript.Searcher)
		q := transcript.SearchQuery{Text: text, Thread: transcript.Sequence(thread), Before: transcript.Sequence(before), Limit: limit}
		storetest.SearchCheck(t, c, s, sb, q)
	})
}
