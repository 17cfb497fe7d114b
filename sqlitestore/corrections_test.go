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
	want := writeOldDesk(t, db, time.Date(2026, 6, 1, 9, 0, 0, 123_000, time.UTC))
	before := dumpTables(t, db)
	db.Close()
	st := openMigrated(t, path, 7, before, want)

	edit, err := st.Append(ctx, "eng", transcript.Message{Corrects: 2, Author: opAuthor, Content: "between us, at 23:00"})
	if err != nil || edit.Seq != 4 || !cmp.Equal(edit.Audience, []transcript.Author{triageAgent}) {
		t.Fatalf("an edit of an old aside: %+v, %v; want row 4 with the aside's audience", edit, err)
	}
	redaction, err := st.Append(ctx, "eng", transcript.Message{Corrects: 2, Author: opAuthor, Redacted: true})
	if err != nil || redaction.Seq != 5 {
		t.Fatalf("a redaction of an old aside: %+v, %v; want row 5", redaction, err)
	}
	want[1].Content, want[1].Redacted, want[1].Revised = "", true, 5
	edit.Content, edit.Redacted = "", true
	want = append(want, edit, redaction)
	if diff := cmp.Diff(want, readDesk(t, st, "eng")); diff != "" {
		t.Errorf("desk eng after the corrections (-want +got):\n%s", diff)
	}
}
