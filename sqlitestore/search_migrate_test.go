package sqlitestore

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/storetest"
	"github.com/sharedesk/transcript/storage"
)

// TestMigrateFromV8 writes rows with the version 8 schema, which had no search index (a
// desk row, asides, an edited row and its edit, an erased row, a blank row, and a second
// desk sharing a word), then opens the file: Open migrates it, no row of any table changes,
// and every search finds what the model finds in the desk as it reads back, for every
// viewer: the edited row by its new words only, the erased and blank rows by nothing, and
// nothing of the other desk.
func TestMigrateFromV8(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "v8.db")
	db := openRaw(t, path)
	if found, err := migrate(ctx, db, 8); err != nil || found != 0 {
		t.Fatalf("migrate to version 8: found %d, %v", found, err)
	}
	at := time.Date(2026, 7, 1, 9, 0, 0, 0, time.UTC)
	want := writeOldDesk(t, db, at)
	// Row 1 edited by row 4 ("deploy at noon?" is now row 4's content), row 5 a Zürich
	// note, row 6 erased by row 7, row 8 blank; desk ops holds "deploy" too.
	want[0].Content, want[0].Revised = "deploy at one, Straße closed", 4
	more := []transcript.Message{
		{Seq: 4, Corrects: 1, Author: opAuthor, Content: "deploy at one, Straße closed", At: at.Add(3 * time.Second)},
		{Seq: 5, Author: triageAgent, Content: "Zürich: deploy NOON ok", At: at.Add(4 * time.Second)},
		{Seq: 6, Author: opAuthor, Content: "", Redacted: true, Revised: 7, At: at.Add(5 * time.Second)},
		{Seq: 7, Corrects: 6, Author: opAuthor, Redacted: true, At: at.Add(6 * time.Second)},
		{Seq: 8, Author: opAuthor, Content: "   ", At: at.Add(7 * time.Second)},
	}
	if _, err := db.ExecContext(ctx, `UPDATE messages SET content = ?, revised = 4 WHERE desk = 1 AND seq = 1`, want[0].Content); err != nil {
		t.Fatal(err)
	}
	for _, m := range more {
		author := map[bool]int{true: 1, false: 2}[m.Author == opAuthor]
		if _, err := db.ExecContext(ctx, `INSERT INTO messages (desk, seq, parent, author, content, at_us, corrects, redacted, revised) VALUES (1, ?, 0, ?, ?, ?, ?, ?, ?)`,
			int64(m.Seq), author, m.Content, m.At.UnixMicro(), int64(m.Corrects), m.Redacted, int64(m.Revised)); err != nil {
			t.Fatal(err)
		}
	}
	for _, stmt := range []string{
		`INSERT INTO desks (id, name) VALUES (2, 'ops')`,
		`INSERT INTO messages (desk, seq, parent, author, content, at_us) VALUES (2, 1, 0, 1, 'deploy noon between agreed', 0)`,
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	want = append(want, more...)
	before := dumpTables(t, db)
	db.Close()
	st := openMigrated(t, path, 8, before, want)
	log := st.Log("eng").(transcript.Searcher)
	found := 0
	for _, text := range []string{"deploy", "noon", "one", "strasse", "STRASSE", "straße", "zurich", "zürich", "between", "agreed", "us between", "closed deploy"} {
		for _, v := range []transcript.Author{{}, opAuthor, triageAgent, transcript.Agent("stranger", "")} {
			q := transcript.SearchQuery{Text: text, Viewer: v}
			got, err := log.Search(ctx, q)
			model, _ := storetest.SearchModel(want, q)
			if err != nil || !cmp.Equal(model, got, cmpopts.EquateEmpty()) {
				t.Errorf("search %q as %v after the migration = %+v, %v; want %+v", text, v, got, err, model)
			}
			found += len(got.Messages)
		}
	}
	if found == 0 {
		t.Fatal("the searches after the migration found nothing")
	}
}

// TestMigrateFromV8Chunks: the migration indexes a file of more rows than one chunk holds,
// every row of every chunk, the rows at the chunks' edges among them.
func TestMigrateFromV8Chunks(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "v8.db")
	db := openRaw(t, path)
	if found, err := migrate(ctx, db, 8); err != nil || found != 0 {
		t.Fatalf("migrate to version 8: found %d, %v", found, err)
	}
	rows := 2*indexChunkRows + 7
	for _, stmt := range []string{
		`INSERT INTO desks (id, name) VALUES (1, 'eng')`,
		`INSERT INTO authors (id, kind, ident, label) VALUES (1, 1, '', '')`,
		fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d)
INSERT INTO messages (desk, seq, parent, author, content, at_us) SELECT 1, i, 0, 1, 'common w' || i, i FROM n`, rows),
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	log := st.Log("eng").(transcript.Searcher)
	for _, seq := range []int{1, 2, indexChunkRows, indexChunkRows + 1, 2 * indexChunkRows, 2*indexChunkRows + 1, rows} {
		res, err := log.Search(ctx, transcript.SearchQuery{Text: fmt.Sprintf("W%d common", seq)})
		if err != nil || len(res.Messages) != 1 || res.Messages[0].Seq != transcript.Sequence(seq) {
			t.Errorf("search for row %d's word after the migration = %+v, %v; want row %d", seq, res, err, seq)
		}
	}
}

// TestTermsVersionRebuild: a file whose search index was computed with other Unicode tables
// than the running program's (its terms version differs) is indexed anew when opened: a
// search finds its rows by their words as computed now, none by an entry of the old
// tables, and an edit afterwards leaves no word of the old content findable.
func TestTermsVersionRebuild(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "desk.db")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	row, err := st.Append(ctx, "eng", transcript.Message{Author: opAuthor, Content: "rota for Zürich"})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	// The entry the old tables computed: "stale" where the word is "rota" now.
	db := openRaw(t, path)
	for _, stmt := range []string{
		`INSERT INTO message_terms (message_terms) VALUES ('delete-all')`,
		`INSERT INTO message_terms (rowid, terms) VALUES (1, '1_stale 1_for 1_zürich')`,
		`UPDATE message_terms_version SET version = 'unicode 1.0.0, norm 1.0.0'`,
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	st, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	find := func(text string) int {
		t.Helper()
		res, err := st.Log("eng").(transcript.Searcher).Search(ctx, transcript.SearchQuery{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		return len(res.Messages)
	}
	if find("rota") != 1 || find("stale") != 0 {
		t.Errorf("after Open with another terms version: rota found %d times, stale %d; want 1 and 0", find("rota"), find("stale"))
	}
	if _, err := st.Append(ctx, "eng", transcript.Message{Corrects: row.Seq, Author: opAuthor, Content: "new text"}); err != nil {
		t.Fatal(err)
	}
	if find("rota") != 0 || find("zürich") != 0 || find("new") != 1 {
		t.Errorf("after the edit: rota %d, zürich %d, new %d; want 0, 0 and 1", find("rota"), find("zürich"), find("new"))
	}
}

// TestMigrateFromV9DropsPlainIndex: a file at schema 9, whose index holds terms as words
// (here one no row holds, as an erased row's word kept in a separator would be), migrates
// to the keyed index: once the store closes, no file holds the word, and every row is
// found by its words.
func TestMigrateFromV9DropsPlainIndex(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	path := filepath.Join(dir, "v9.db")
	db := openRaw(t, path)
	if _, err := migrate(ctx, db, 8); err != nil {
		t.Fatal(err)
	}
	want := writeOldDesk(t, db, time.Date(2026, 7, 1, 9, 0, 0, 0, time.UTC))
	if _, err := migrate(ctx, db, 9); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		`INSERT INTO message_terms (rowid, terms) VALUES (1, '1_qjxzvkwyplain 1_deploy')`,
		`INSERT INTO message_terms_version (version) VALUES ('` + termsVersion + `')`,
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	if len(filesHolding(t, dir, "qjxzvkwyplain")) == 0 {
		t.Fatal("no file holds the plain index's word before the migration: the test would prove nothing")
	}
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range want {
		for _, term := range storage.IndexTerms(&m) {
			res, err := st.Log("eng").(transcript.Searcher).Search(ctx, transcript.SearchQuery{Text: term, Viewer: transcript.Operator(), Limit: 100})
			if err != nil || !slices.ContainsFunc(res.Messages, func(got transcript.Message) bool { return got.Seq == m.Seq }) {
				t.Errorf("search %q after the migration = %+v, %v; want row %d among them", term, res, err, m.Seq)
			}
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if files := filesHolding(t, dir, "qjxzvkwyplain"); len(files) > 0 {
		t.Errorf("after the migration and Close, %v hold the plain index's word", files)
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

// TestMigrateFromV10AddsThreadTokens: a file at schema 10, whose replies' entries hold no
// thread token, migrates to 11 by one rebuild of the index, told to WithIndexProgress:
// afterwards a search within a thread finds its replies, a reply of an aside among them
// for its reader only.
func TestMigrateFromV10AddsThreadTokens(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "v10.db")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []transcript.Message{
		{Author: opAuthor, Content: "deploy plan"},
		{Author: triageAgent, Parent: 1, Content: "deploy at noon"},
		{Author: triageAgent, Parent: 1, Audience: []transcript.Author{opAuthor}, Content: "deploy secretly"},
		{Author: opAuthor, Content: "deploy elsewhere"},
	} {
		if _, err := st.Append(ctx, "eng", m); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	// The file as version 10 left it: its triggers, and its entries computed without
	// parents (the rebuild, run while the rows had none).
	db := openRaw(t, path)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		`DROP TRIGGER messages_deleted_deletes_digests`, // version 13's
		`DROP TRIGGER messages_revised_deletes_digests`, // version 12's
		`DROP TABLE digests`,
		`UPDATE messages SET parent = 0`,
		`DROP TRIGGER messages_insert_keeps_thread_index`,
		`DROP TRIGGER messages_update_keeps_thread_index`,
		`CREATE TRIGGER messages_insert_keeps_keyed_index BEFORE INSERT ON messages BEGIN SELECT sqlitestore_keeps_keyed_index() WHERE 0; END`,
		`CREATE TRIGGER messages_update_keeps_keyed_index BEFORE UPDATE OF content, redacted ON messages BEGIN SELECT sqlitestore_keeps_keyed_index() WHERE 0; END`,
		`UPDATE schema_version SET version = 10`,
	} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	if err := indexStoredRows(ctx, tx); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE messages SET parent = 1 WHERE seq IN (2, 3)`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	db.Close()
	var calls, done, total int64
	st, err = Open(ctx, path, WithIndexProgress(func(d, n int64) { calls, done, total = calls+1, d, n }))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if calls != 1 || done != 4 || total != 4 {
		t.Errorf("the rebuild told %d times, last %d of %d rows; want once, 4 of 4", calls, done, total)
	}
	if v := schemaVersion(t, path); v != SchemaVersion {
		t.Errorf("schema version %d after Open, want %d", v, SchemaVersion)
	}
	for _, c := range []struct {
		viewer transcript.Author
		want   []transcript.Sequence
	}{{triageAgent, []transcript.Sequence{3, 2, 1}}, {transcript.Agent("stranger", ""), []transcript.Sequence{2, 1}}} {
		res, err := st.Log("eng").(transcript.Searcher).Search(ctx, transcript.SearchQuery{Text: "deploy", Thread: 1, Viewer: c.viewer})
		var got []transcript.Sequence
		for _, m := range res.Messages {
			got = append(got, m.Seq)
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("search in thread 1 as %v after the migration = %v, %v; want %v", c.viewer, got, err, c.want)
		}
	}
}
