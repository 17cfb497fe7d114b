package sqlitestore

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
)

// TestMigrateFromV11 opens a file as version 11 left it, without digests, holding a desk
// with a thread and an aside: Open migrates it, no row of any table changes, and the desk
// then keeps digests, which a correction deletes, through Append and through a writer
// that knows nothing of digests (a process of version 11 still running revises a row with
// its own UPDATE: the schema's trigger deletes them all the same).
func TestMigrateFromV11(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "v11.db")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []transcript.Message{
		{Author: opAuthor, Content: "deploy at noon?"},
		{Author: triageAgent, Parent: 1, Content: "yes"},
		{Author: opAuthor, Content: "between us", Audience: []transcript.Author{triageAgent}},
		{Author: triageAgent, Parent: 1, Content: "done"},
		{Author: opAuthor, Content: "thanks"},
	} {
		if _, err := st.Append(ctx, "eng", m); err != nil {
			t.Fatal(err)
		}
	}
	want := readDesk(t, st, "eng")
	st.Close()
	db := openRaw(t, path)
	for _, stmt := range []string{
		`DROP TRIGGER messages_deleted_deletes_digests`, // version 13's
		`DROP TRIGGER messages_revised_deletes_digests`,
		`DROP TABLE digests`,
		`UPDATE schema_version SET version = 11`,
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	before := dumpTables(t, db)
	db.Close()

	st = openMigrated(t, path, 11, before, want)
	log := st.Log("eng").(digest.Store)
	channel, thread := transcript.Conversation{Desk: "eng"}, transcript.Conversation{Desk: "eng", Thread: 1}
	read, err := log.DigestRead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []transcript.Digest{
		{Conversation: channel, Through: 2, Rows: 2, Generation: 1, Digester: "extractive", Text: "deploy at noon? yes"},
		{Conversation: thread, Through: 2, Rows: 1, Generation: 1, Digester: "extractive", Text: "yes"},
		{Conversation: thread, Through: 4, Rows: 2, Generation: 2, Digester: "extractive", Text: "yes, done"},
	} {
		if err := log.PutDigest(ctx, d, read); err != nil {
			t.Fatalf("PutDigest after the migration: %v", err)
		}
	}
	newest := func(c transcript.Conversation) (transcript.Sequence, bool) {
		t.Helper()
		d, ok, err := log.Digest(ctx, c, 0)
		if err != nil {
			t.Fatal(err)
		}
		return d.Through, ok
	}
	if through, ok := newest(thread); !ok || through != 4 {
		t.Fatalf("the thread's newest digest after the migration: through %d, %v; want 4", through, ok)
	}
	if _, err := st.Append(ctx, "eng", transcript.Message{Corrects: 4, Author: triageAgent, Content: "done, at 12:05"}); err != nil {
		t.Fatal(err)
	}
	if through, ok := newest(thread); !ok || through != 2 {
		t.Errorf("the thread's newest digest after an edit of row 4: through %d, %v; want 2", through, ok)
	}
	if through, ok := newest(channel); !ok || through != 2 {
		t.Errorf("the channel's newest digest after an edit of row 4: through %d, %v; want 2", through, ok)
	}
	// A writer of version 11 revises row 2 as its reviseSQL does.
	if _, err := st.writer.ExecContext(ctx, `UPDATE messages SET revised = 7 WHERE desk = (SELECT id FROM desks WHERE name = 'eng') AND seq = 2`); err != nil {
		t.Fatal(err)
	}
	for _, c := range []transcript.Conversation{channel, thread} {
		if through, ok := newest(c); ok {
			t.Errorf("%+v's newest digest after a revision of row 2 by another writer: through %d, want none", c, through)
		}
	}
}

// TestMigrateFromV12 opens a file as version 12 left it once a process of version 11
// deleted a desk (its rows, its desks row renamed) and so left the desk's digests: Open
// deletes those, keeps every other row as it was, the other desk's digests among them,
// and rows deleted afterwards take their desk's digests (the schema's trigger).
func TestMigrateFromV12(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "v12.db")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, desk := range []string{"eng", "gone"} {
		for _, text := range []string{"one", "two", "three"} {
			if _, err := st.Append(ctx, desk, transcript.Message{Author: opAuthor, Content: text}); err != nil {
				t.Fatal(err)
			}
		}
		log := st.Log(desk).(digest.Store)
		read, err := log.DigestRead(ctx)
		if err != nil {
			t.Fatal(err)
		}
		d := transcript.Digest{Conversation: transcript.Conversation{Desk: desk}, Through: 2, Rows: 2, Generation: 1, Digester: "extractive", Text: desk + ": one, two"}
		if err := log.PutDigest(ctx, d, read); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	db := openRaw(t, path)
	var gone int64
	if err := db.QueryRowContext(ctx, `SELECT id FROM desks WHERE name = 'gone'`).Scan(&gone); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		`DROP TRIGGER messages_deleted_deletes_digests`,
		`UPDATE schema_version SET version = 12`,
		`DELETE FROM messages WHERE desk = ?1`, // version 11's DeleteDesk
		`UPDATE desks SET name = ' deleted ' || id WHERE id = ?1`,
	} {
		if _, err := db.ExecContext(ctx, stmt, gone); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	before := dumpTables(t, db)
	db.Close()
	if len(before["digests"]) != 2 {
		t.Fatalf("before the migration, %d digests, want both desks' 2", len(before["digests"]))
	}

	st, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("Open of a version 12 database: %v", err)
	}
	defer st.Close()
	if v := schemaVersion(t, path); v != SchemaVersion {
		t.Errorf("schema version %d after Open, want %d", v, SchemaVersion)
	}
	after := dumpTables(t, st.writer)
	if len(after["digests"]) != 1 {
		t.Errorf("after the migration, digests %q; want eng's alone", after["digests"])
	}
	delete(before, "digests")
	delete(after, "digests")
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("the migration changed rows besides the deleted desk's digests (-before +after):\n%s", diff)
	}
	if d, ok, err := st.Log("eng").(digest.Store).Digest(ctx, transcript.Conversation{Desk: "eng"}, 0); err != nil || !ok || d.Text != "eng: one, two" {
		t.Errorf("desk eng's digest after the migration = %q, %v, %v; want its own", d.Text, ok, err)
	}
	if _, err := st.writer.ExecContext(ctx, `DELETE FROM messages WHERE desk = (SELECT id FROM desks WHERE name = 'eng')`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := st.writer.QueryRowContext(ctx, `SELECT count(*) FROM digests`).Scan(&n); err != nil || n != 0 {
		t.Errorf("after desk eng's rows were deleted, %d digests, %v; want none", n, err)
	}
}
