package sqlitestore_test

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/sqlitestore"
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
