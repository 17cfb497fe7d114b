package sqlitestore_test

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/internal/storetest"
	"github.com/sharedesk/transcript/sharing"
	"github.com/sharedesk/transcript/sqlitestore"
	"github.com/sharedesk/transcript/token"
)

var _ storetest.DeskDeleter = (*sqlitestore.Store)(nil)

func TestDeleteDeskRule(t *testing.T) {
	storetest.DeleteDeskRule(t, openTemp(t))
}

// deskTables says, for every table of a store's file, how to count the rows it keeps of
// the desk named ?1 (whose id is ?2), or "" for a table that keeps nothing of any one desk
// (the schema's, the search key's, SQLite's largest digest id) or, by DeleteDesk's contract, stays (the authors and
// audiences, which name participants without content; the desks row, renamed, so that
// its id is never another desk's). A table missing
// here fails TestDeleteDeskLeavesNothing: a new table must say what it keeps of a desk.
var deskTables = map[string]string{
	"schema_version":        "",
	"sqlite_sequence":       "",
	"desks":                 `SELECT count(*) FROM desks WHERE name = ?1 OR (id = ?2 AND name <> ' deleted ' || id)`,
	"messages":              `SELECT count(*) FROM messages WHERE desk = ?2`,
	"authors":               "",
	"audiences":             "",
	"tokens":                `SELECT count(*) FROM tokens WHERE desk = ?1`,
	"books":                 `SELECT count(*) FROM books WHERE desk = ?1`,
	"message_terms_version": "",
	"search_key":            "",
	"reader_sets":           `SELECT count(*) FROM reader_sets WHERE desk = ?2`,
	"reader_set_members":    `SELECT count(*) FROM reader_set_members WHERE desk = ?2`,
	"digests":               `SELECT count(*) FROM digests WHERE desk = ?2`,
	// The search index: its entries are counted through the messages they index (see the
	// test), its shadow tables hold its pages.
	"message_terms":         "",
	"message_terms_data":    "",
	"message_terms_idx":     "",
	"message_terms_config":  "",
	"message_terms_docsize": "",
	"message_terms_content": "",
}

// TestDeleteDeskLeavesNothing: once DeleteDesk has deleted a desk that held rows (desk rows,
// asides, an edit, a large row over a page, a redaction), a digest, books and tokens, and the store
// is closed, no table keeps a row of it (every table of the file is accounted for in
// deskTables), and no file in the database's directory holds a byte of the deleted desk's texts, while the
// kept desk's are all still there.
func TestDeleteDeskLeavesNothing(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	path := filepath.Join(dir, "desk.db")
	st, err := sqlitestore.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	ana, bot := transcript.Person("ana", "Ana"), transcript.Agent("triage", "Triage")
	large := strings.Repeat("filler words ", 900) // over a page
	fill := func(desk, marker string) {
		t.Helper()
		rows := []transcript.Message{
			{Author: ana, Content: "plain MARK-" + marker + "-a"},
			{Author: ana, Content: "aside MARK-" + marker + "-b", Audience: []transcript.Author{bot}},
			{Author: bot, Parent: 1, Content: large + " MARK-" + marker + "-c " + large},
			{Author: ana, Corrects: 1, Content: "edited MARK-" + marker + "-d"},
			{Author: ana, Content: "erased MARK-" + marker + "-e"},
			{Author: ana, Corrects: 5, Redacted: true},
			{Author: bot, Content: "keyed MARK-" + marker + "-f", Key: "key-" + marker},
		}
		for _, m := range rows {
			if _, err := st.Append(ctx, desk, m); err != nil {
				t.Fatalf("Append to %s: %v", desk, err)
			}
		}
		dg := transcript.Digest{Conversation: transcript.Conversation{Desk: desk}, Through: 3, Rows: 2, Generation: 1, Digester: "extractive",
			Text: "digest MARK-" + marker + "-g " + large}
		if err := st.Log(desk).(digest.Store).PutDigest(ctx, dg, storetest.MustDigestRead(t, st.Log(desk).(digest.Store))); err != nil {
			t.Fatal(err)
		}
		if _, err := st.SaveBook(ctx, desk, bot, storetest.BookOf(t, sharing.Initialized(transcript.Conversation{Desk: desk}, 7)), 0); err != nil {
			t.Fatal(err)
		}
		_, tok, err := token.New(desk, bot, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := st.AddToken(ctx, tok); err != nil {
			t.Fatal(err)
		}
	}
	fill("kept", "kept7q")
	fill("gone", "gone3x")
	var goneID int64
	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.QueryRow(`SELECT id FROM desks WHERE name = 'gone'`).Scan(&goneID); err != nil {
		t.Fatal(err)
	}
	if files := filesHolding(t, dir, "MARK-gone3x-a"); len(files) == 0 {
		t.Fatal("no file holds the desk's text once written: the test would find nothing")
	}
	if n, err := st.DeleteDesk(ctx, "gone", true); err != nil || n != 7 {
		t.Fatalf("DeleteDesk = %d, %v; want 7 rows", n, err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	tables, err := other.Query(`SELECT name FROM sqlite_schema WHERE type = 'table'`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for tables.Next() {
		var name string
		if err := tables.Scan(&name); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	tables.Close()
	for _, name := range names {
		count, ok := deskTables[name]
		switch {
		case !ok:
			t.Errorf("table %s is not in deskTables: say what it keeps of a desk, and have DeleteDesk delete it", name)
		case count != "":
			var n int
			if err := other.QueryRow(count, "gone", goneID).Scan(&n); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if n != 0 {
				t.Errorf("after DeleteDesk, table %s holds %d rows of the desk", name, n)
			}
		}
	}
	other.Close()

	for _, c := range "abcdefg" {
		gone, kept := fmt.Sprintf("MARK-gone3x-%c", c), fmt.Sprintf("MARK-kept7q-%c", c)
		if files := filesHolding(t, dir, gone); len(files) > 0 {
			t.Errorf("after DeleteDesk and Close, %v hold the deleted desk's %q", files, gone)
		}
		if c != 'a' && c != 'e' && len(filesHolding(t, dir, kept)) == 0 { // a and e were erased by the kept desk's own corrections
			t.Errorf("no file holds the kept desk's %q", kept)
		}
	}
}

// TestDeleteDeskIDNotReused: the id of a deleted desk, the newest one, is never another
// desk's, whatever its name, so that nothing known of the deleted desk by its id (its reader
// sets, cached by any process with the file open) can be taken for a later desk's; no list
// shows the deleted desk, and a desk made under its name starts at row 1.
func TestDeleteDeskIDNotReused(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "desk.db")
	st, err := sqlitestore.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ana, bot := transcript.Person("ana", "Ana"), transcript.Agent("triage", "Triage")
	for _, desk := range []string{"kept", "gone"} {
		if _, err := st.Append(ctx, desk, transcript.Message{Author: ana, Content: "to the bot", Audience: []transcript.Author{bot}}); err != nil {
			t.Fatal(err)
		}
	}
	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	idOf := func(desk string) (id int64) {
		t.Helper()
		if err := other.QueryRow(`SELECT id FROM desks WHERE name = ?`, desk).Scan(&id); err != nil {
			t.Fatalf("the id of desk %s: %v", desk, err)
		}
		return id
	}
	gone := idOf("gone")
	if _, err := st.DeleteDesk(ctx, "gone", true); err != nil {
		t.Fatal(err)
	}
	var sets int
	if err := other.QueryRow(`SELECT count(*) FROM reader_sets WHERE desk = ?`, gone).Scan(&sets); err != nil || sets != 0 {
		t.Errorf("the deleted desk keeps %d reader sets (%v), want 0", sets, err)
	}
	for _, desk := range []string{"next", "gone"} {
		m, err := st.Append(ctx, desk, transcript.Message{Author: bot, Content: "hello"})
		if err != nil {
			t.Fatal(err)
		}
		if id := idOf(desk); id == gone || m.Seq != 1 {
			t.Errorf("desk %s made after the delete: id %d (the deleted desk's: %d), first row %d", desk, id, gone, m.Seq)
		}
	}
	desks, err := st.Desks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"gone", "kept", "next"}; fmt.Sprint(desks) != fmt.Sprint(want) {
		t.Errorf("Desks = %q, want %q", desks, want)
	}
}
