package sqlitestore_test

import (
	"bytes"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/sqlitestore"
	"github.com/sharedesk/transcript/storage"
)

// erasedMarkers are the texts TestRedactionErasesFiles writes and then redacts: each
// unique, so that a byte of it left anywhere in the database's files shows.
var erasedMarkers = []string{
	"MARKER-small-7f3a9c1e", // a target in its page
	"MARKER-small-edit-2b6", // an edit of it
	"MARKER-large-d41c08aa", // a target over a page, on overflow pages
	"MARKER-large-edit-93e", // an edit of it, over a page too
	"MARKER-fresh-5e0b77c2", // a target written and redacted before any checkpoint
}

// erasedWords are words of the texts TestRedactionErasesFiles redacts, one a text, in
// erasedMarkers' order: each one term, as the search index holds it, and the only one
// beginning with its letter, so that the index, which stores a term after the bytes it
// shares with the one before it, stores the word whole.
var erasedWords = []string{"qjxvtzwk", "zykqjxwv", "jqzxvkwy", "xqzjvkwy", "vqzjxkwy"}

// TestRedactionErasesFiles: once a redaction has committed and the store is closed, no file
// in the database's directory (the database, its write-ahead log and index, anything else
// beside them) holds a byte of the erased texts, the targets' and their edits': neither a
// target checkpointed into the database before the redaction, nor one still only in the
// write-ahead log; nor does the search index hold their words, which no search finds. Another connection keeps the file open across the close, as another
// process would, so that SQLite does not remove the log by itself. An erased edit's key
// still replays.
func TestRedactionErasesFiles(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	path := filepath.Join(dir, "desk.db")
	ana := transcript.Person("ana", "Ana")
	large := strings.Repeat("password lines ", 800) // about 12 KB: overflow pages
	open := func() *sqlitestore.Store {
		t.Helper()
		st, err := sqlitestore.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	add := func(st *sqlitestore.Store, m transcript.Message) transcript.Message {
		t.Helper()
		got, err := st.Append(ctx, "eng", m)
		if err != nil {
			t.Fatalf("Append: %v", err)
		}
		return got
	}
	// written checks that marker, just written, is in a file: else the test would prove
	// nothing (an edit erases its target's former text too).
	written := func(marker string) {
		t.Helper()
		if len(filesHolding(t, dir, marker)) == 0 {
			t.Fatalf("no file holds %q once it is written: the test would find nothing", marker)
		}
	}
	filler := func(st *sqlitestore.Store, n int) {
		for range n {
			add(st, transcript.Message{Author: ana, Content: "an ordinary row sharing the page"})
		}
	}

	st := open()
	filler(st, 20)
	small := add(st, transcript.Message{Author: ana, Content: "password: " + erasedMarkers[0] + " " + erasedWords[0]})
	written(erasedMarkers[0])
	written(erasedWords[0])
	add(st, transcript.Message{Corrects: small.Seq, Author: ana, Content: "password: " + erasedMarkers[1] + " " + erasedWords[1], Key: "edit-small"})
	big := add(st, transcript.Message{Author: ana, Content: large + erasedMarkers[2] + " " + erasedWords[2] + " " + large})
	written(erasedMarkers[2])
	written(erasedWords[2])
	add(st, transcript.Message{Corrects: big.Seq, Author: ana, Content: erasedMarkers[3] + " " + erasedWords[3] + " " + large})
	filler(st, 20)
	if err := st.Close(); err != nil { // checkpoints: the edits are in the database file now
		t.Fatal(err)
	}
	written(erasedMarkers[1])
	written(erasedMarkers[3])
	written(erasedWords[1])
	written(erasedWords[3])

	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var n int
	if err := other.QueryRow(`SELECT count(*) FROM messages`).Scan(&n); err != nil {
		t.Fatal(err)
	}

	st = open()
	fresh := add(st, transcript.Message{Author: ana, Content: "token " + erasedMarkers[4] + " " + erasedWords[4]})
	filler(st, 5)
	written(erasedMarkers[4])
	written(erasedWords[4])
	for _, target := range []transcript.Sequence{small.Seq, big.Seq, fresh.Seq} {
		add(st, transcript.Message{Corrects: target, Author: ana, Redacted: true})
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	for _, marker := range append(erasedMarkers[:len(erasedMarkers):len(erasedMarkers)], erasedWords...) {
		if files := filesHolding(t, dir, marker); len(files) > 0 {
			t.Errorf("after the redactions and Close, %v hold the erased %q", files, marker)
		}
	}

	st = open()
	defer st.Close()
	for _, w := range append(erasedWords, "password", "token") {
		for _, thread := range []transcript.Sequence{0, small.Seq, big.Seq, fresh.Seq} { // the desk, and each target's thread
			res, err := st.Log("eng").(transcript.Searcher).Search(ctx, transcript.SearchQuery{Text: w, Viewer: ana, Thread: thread})
			if err != nil || len(res.Messages) > 0 {
				t.Errorf("search %q in thread %d after the redactions = %d rows, %v; want none", w, thread, len(res.Messages), err)
			}
		}
	}
	got, added, err := st.AppendNew(ctx, "eng", transcript.Message{Corrects: small.Seq, Author: ana, Content: "password: anything", Key: "edit-small"})
	if err != nil || added || !got.Redacted || got.Content != "" || got.Corrects != small.Seq {
		t.Errorf("a replay of an erased edit's key: %+v, new %v, %v; want the erased row, not new", got, added, err)
	}
}

// filesHolding returns the names of the files in dir that hold marker.
func filesHolding(t *testing.T, dir, marker string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var holding []string
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(marker)) {
			holding = append(holding, e.Name())
		}
	}
	return holding
}

// TestRedactionErasesIndexRuns: after redactions commit and the store closes, no file in
// the database's directory holds any run of 4 bytes of an erased word that no live row
// also holds, separators of the search index's interior pages included: FTS5's
// secure-delete clears a leaf's entry, but an interior page keeps a prefix of a term as a
// separator, which kept erased words whole while terms were words. It writes 1,000 rows
// of ordinary words and 2,000 sequential ones (row 1661: "pin for door 51661 is pw61457"),
// erases three of them each in a store opened and closed for it and 700 more in a batch,
// then appends 1,000 rows
// of a random word and a sequential token ("apitoken2000644") one at a time and erases 800
// of them; and scans every file for every
// 4-byte run of every erased word.
func TestRedactionErasesIndexRuns(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("writes 4,000 rows")
	}
	ctx := t.Context()
	dir := t.TempDir()
	path := filepath.Join(dir, "desk.db")
	ana := transcript.Person("ana", "Ana")
	open := func() *sqlitestore.Store {
		t.Helper()
		st, err := sqlitestore.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	var rows []transcript.Message // Seq i+1 at i
	for range 1000 {
		rows = append(rows, transcript.Message{Author: ana, Content: "ordinary words here"})
	}
	for i := 1001; i <= 3000; i++ { // row i
		rows = append(rows, transcript.Message{Author: ana, Content: fmt.Sprintf("pin for door %d is pw%d", i+50000, i*37)})
	}
	st := open()
	if err := st.AppendBatch(ctx, "eng", rows); err != nil {
		t.Fatal(err)
	}
	st.Close()
	erased := map[transcript.Sequence]bool{}
	for _, seq := range []transcript.Sequence{1661, 2321, 2981} {
		st := open()
		if _, err := st.Append(ctx, "eng", transcript.Message{Corrects: seq, Author: ana, Redacted: true}); err != nil {
			t.Fatal(err)
		}
		st.Close()
		erased[seq] = true
		rows = append(rows, transcript.Message{Corrects: seq, Redacted: true})
	}
	// check scans every file for every 4-byte run of a word of an erased row that no live
	// row holds.
	check := func(when string) {
		t.Helper()
		var live strings.Builder
		for i, m := range rows {
			if !erased[transcript.Sequence(i+1)] && !m.IsCorrection() {
				live.WriteString(m.Content + "\n")
			}
		}
		// Every 4-byte run of an erased word that no live row holds, with its word.
		runs := map[string]string{}
		for seq := range erased {
			for _, w := range storage.Terms(rows[seq-1].Content) {
				for i := 0; i+4 <= len(w); i++ {
					if run := w[i : i+4]; !strings.Contains(live.String(), run) {
						runs[run] = w
					}
				}
			}
		}
		if len(runs) < 500 {
			t.Fatalf("%s: only %d runs of erased words to look for", when, len(runs))
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		found := 0
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i+4 <= len(b); i++ {
				if w, ok := runs[string(b[i:i+4])]; ok {
					if found++; found <= 10 {
						t.Errorf("%s holds %q of the erased word %q at byte %d", e.Name(), b[i:i+4], w, i)
					}
				}
			}
		}
		if found > 0 {
			t.Errorf("%s: %d runs of erased words in the files", when, found)
		}
	}
	// And a run of 700 rows, in one batch, so that one of the index's leaves begins with
	// an erased term, however the leaves fall.
	var block []transcript.Message
	for seq := transcript.Sequence(2001); seq <= 2700; seq++ {
		if erased[seq] {
			continue
		}
		erased[seq] = true
		block = append(block, transcript.Message{Corrects: seq, Author: ana, Redacted: true})
	}
	st = open()
	if err := st.AppendBatch(ctx, "eng", block); err != nil {
		t.Fatal(err)
	}
	st.Close()
	rows = append(rows, block...)
	check("after the sequential rows' redactions")
	// Random words from letters that the schema's names hardly hold, so that a run found is
	// the word's, not a table's name.
	r := rand.New(rand.NewPCG(33, 2))
	const letters = "qjxzvkwyfbpg"
	first := transcript.Sequence(len(rows) + 1)
	var words []transcript.Message
	for range 1000 {
		w := make([]byte, 6+r.IntN(7))
		for i := range w {
			w[i] = letters[r.IntN(len(letters))]
		}
		words = append(words, transcript.Message{Author: ana, Content: fmt.Sprintf("note %s apitoken%d", w, 2000000+len(words))})
	}
	st = open()
	for _, m := range words { // a segment each, which FTS5 merges into larger ones
		if _, err := st.Append(ctx, "eng", m); err != nil {
			t.Fatal(err)
		}
	}
	rows = append(rows, words...)
	for i := range words {
		if i%5 == 4 {
			continue // a fifth of them stay
		}
		seq := first + transcript.Sequence(i)
		erased[seq] = true
		if _, err := st.Append(ctx, "eng", transcript.Message{Corrects: seq, Author: ana, Redacted: true}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	check("after the random words' redactions")
}
