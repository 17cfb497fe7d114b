package sqlitestore

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sharedesk/transcript"
)

// TestMigrateFromV7 writes rows with the version 7 schema, which knew no corrections, then
// opens the file: Open migrates it, every row reads back as it was (no Corrects, Redacted
// or Revised) and no row of any table changes, and the old rows take corrections: an edit
// of one, then its redaction, which erases the edit too.
func TestMigrateFromV7(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "v7.db")
	db := openRaw(t, path)
	if found, err := migrate(ctx, db, 7); err != nil || found != 0 {
		t.Fatalf("migrate to version 7: found %d, %v", found, err)
	}
	at := time.Date(2026, 6, 1, 9, 0, 0, 123_000, time.UTC)
	want := []transcript.Message{
		{Seq: 1, Author: opAuthor, Content: "deploy at 22:00", At: at, Key: "slack:1.000001"},
		{Seq: 2, Parent: 1, Author: opAuthor, Content: "between us", At: at.Add(time.Second), Audience: []transcript.Author{triageAgent}},
	}
	for _, stmt := range []string{
		`INSERT INTO desks (id, name) VALUES (1, 'eng')`,
		`INSERT INTO authors (id, kind, ident, label) VALUES (1, 1, '', ''), (2, 3, 'triage', 'Triage')`,
		`INSERT INTO audiences (id, members) VALUES (1, '[{"kind":3,"ident":"triage","label":"Triage"}]')`,
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	for i, m := range want {
		audience, key := []any{nil, 1}[i], []any{m.Key, nil}[i]
		if _, err := db.ExecContext(ctx, `INSERT INTO messages (desk, seq, parent, author, audience, content, at_us, key) VALUES (1, ?, ?, 1, ?, ?, ?, ?)`,
			int64(m.Seq), int64(m.Parent), audience, m.Content, m.At.UnixMicro(), key); err != nil {
			t.Fatal(err)
		}
	}
	before := dumpTables(t, db)
	db.Close()

	st, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open of a version 7 database: %v", err)
	}
	defer st.Close()
	if v := schemaVersion(t, path); v != SchemaVersion {
		t.Errorf("schema version %d after Open, want %d", v, SchemaVersion)
	}
	if diff := cmp.Diff(before, dumpTables(t, st.writer)); diff != "" {
		t.Errorf("the migration changed rows (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(want, readDesk(t, st, "eng")); diff != "" {
		t.Errorf("desk eng after the migration (-want +got):\n%s", diff)
	}

	edit, err := st.Append(ctx, "eng", transcript.Message{Corrects: 2, Author: opAuthor, Content: "between us, at 23:00"})
	if err != nil || edit.Seq != 3 || !cmp.Equal(edit.Audience, []transcript.Author{triageAgent}) {
		t.Fatalf("an edit of an old aside: %+v, %v; want row 3 with the aside's audience", edit, err)
	}
	redaction, err := st.Append(ctx, "eng", transcript.Message{Corrects: 2, Author: opAuthor, Redacted: true})
	if err != nil || redaction.Seq != 4 {
		t.Fatalf("a redaction of an old aside: %+v, %v; want row 4", redaction, err)
	}
	want[1].Content, want[1].Redacted, want[1].Revised = "", true, 4
	edit.Content, edit.Redacted = "", true
	want = append(want, edit, redaction)
	if diff := cmp.Diff(want, readDesk(t, st, "eng")); diff != "" {
		t.Errorf("desk eng after the corrections (-want +got):\n%s", diff)
	}
}
