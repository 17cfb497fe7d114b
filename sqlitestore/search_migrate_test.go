package sqlitestore

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/storetest"
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
