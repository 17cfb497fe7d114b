package sqlitestore

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/internal/storetest"
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

// TestMigrateFromV13 opens a file as version 13 left it, holding digests whose ids have
// gaps: Open migrates it, keeps every row, each digest with its id, and the schema but the
// digests table's AUTOINCREMENT (and version 15's condition on its revision trigger) as it
// was; then a digest stored after the newest were
// deleted takes an id above every id the table ever gave.
func TestMigrateFromV13(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "v13.db")
	db := openRaw(t, path)
	if _, err := migrate(ctx, db, 8); err != nil {
		t.Fatal(err)
	}
	want := writeOldDesk(t, db, time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
	if found, err := migrate(ctx, db, 13); err != nil || found != 8 {
		t.Fatalf("migrate to version 13: found %d, %v", found, err)
	}
	for _, stmt := range []string{
		`INSERT INTO digests (id, desk, thread, generation, through, row_count, digester, content) VALUES (3, 1, 0, 1, 1, 1, 'extractive', 'deploy at noon?')`,
		`INSERT INTO digests (id, desk, thread, generation, through, row_count, digester, content) VALUES (7, 1, 1, 1, 2, 1, 'extractive', 'between us')`,
		`INSERT INTO digests (id, desk, thread, generation, through, row_count, digester, content) VALUES (8, 1, 0, 2, 3, 1, 'extractive', 'deploy at noon? agreed')`,
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	before := dumpTables(t, db)
	schema := schemaObjects(t, db)
	db.Close()

	st := openMigrated(t, path, 13, before, want)
	wantSchema := []string{"table sqlite_sequence: CREATE TABLE sqlite_sequence(name,seq)"}
	for _, o := range schema {
		if strings.HasPrefix(o, "table digests: ") {
			autoincrement := strings.Replace(o, "id         INTEGER PRIMARY KEY,", "id         INTEGER PRIMARY KEY AUTOINCREMENT,", 1)
			if autoincrement == o {
				t.Fatalf("version 13's digests table has no INTEGER PRIMARY KEY id: %s", o)
			}
			o = autoincrement
		}
		if strings.HasPrefix(o, "trigger messages_revised_deletes_digests: ") { // version 15's condition
			aside := strings.Replace(o, "WHEN NEW.revised <> OLD.revised\n", "WHEN NEW.revised <> OLD.revised AND NEW.audience IS NULL\n", 1)
			if aside == o {
				t.Fatalf("version 13's trigger has no condition on revised alone: %s", o)
			}
			o = aside
		}
		wantSchema = append(wantSchema, o)
	}
	got := schemaObjects(t, st.writer)
	slices.Sort(wantSchema)
	slices.Sort(got)
	if diff := cmp.Diff(wantSchema, got); diff != "" {
		t.Errorf("the schema after the migration (-version 13's with AUTOINCREMENT and version 15's trigger +got):\n%s", diff)
	}

	if got := dumpTables(t, st.writer)["digests"]; len(got) != 3 {
		t.Fatalf("after the migration, digests %q; want the 3 of version 13", got)
	}
	var sequence int64
	if err := st.writer.QueryRowContext(ctx, `SELECT seq FROM sqlite_sequence WHERE name = 'digests'`).Scan(&sequence); err != nil || sequence != 8 {
		t.Errorf("after the migration, the digests' sequence is %d, %v; want 8, the largest id held", sequence, err)
	}

	log := st.Log("eng").(digest.Store)
	channel := transcript.Conversation{Desk: "eng"}
	put := func(generation int, through transcript.Sequence) int64 {
		t.Helper()
		d := transcript.Digest{Conversation: channel, Through: through, Rows: 1, Generation: generation, Digester: "extractive", Text: "deploy at noon?"}
		if err := log.PutDigest(ctx, d, storetest.MustDigestRead(t, log)); err != nil {
			t.Fatalf("PutDigest after the migration: %v", err)
		}
		var id int64
		if err := st.writer.QueryRowContext(ctx, `SELECT id FROM digests WHERE desk = 1 AND thread = 0 AND generation = ?1`, generation).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	if _, err := st.Append(ctx, "eng", transcript.Message{Author: opAuthor, Content: "deployed"}); err != nil {
		t.Fatal(err)
	}
	if id := put(3, 4); id != 9 {
		t.Errorf("the first digest stored after the migration has id %d, want 9", id)
	}
	// The edit of row 1 deletes every digest of the channel, 3, 8 and 9: the newest.
	if _, err := st.Append(ctx, "eng", transcript.Message{Corrects: 1, Author: opAuthor, Content: "deploy at 12:05?"}); err != nil {
		t.Fatal(err)
	}
	if got := dumpTables(t, st.writer)["digests"]; len(got) != 1 {
		t.Fatalf("after the edit of row 1, digests %q; want the thread's alone", got)
	}
	if id := put(1, 4); id <= 9 {
		t.Errorf("a digest stored after the newest were deleted has id %d, want one above 9, every id given", id)
	}
}

// TestMigrateFromV14 opens a file as version 14 left it, holding a digest of a channel
// with asides at or below its through: Open migrates it, keeps every row, and leaves the
// schema as a new file's, whose trigger deletes no digest for a correction of an aside:
// the digest stays through an edit of an aside by Append and a revision of one by a writer
// that knows only version 14, and goes with an edit of a desk row.
func TestMigrateFromV14(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "v14.db")
	db := openRaw(t, path)
	if _, err := migrate(ctx, db, 8); err != nil {
		t.Fatal(err)
	}
	want := writeOldDesk(t, db, time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	if found, err := migrate(ctx, db, 14); err != nil || found != 8 {
		t.Fatalf("migrate to version 14: found %d, %v", found, err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO digests (desk, thread, generation, through, row_count, digester, content) VALUES (1, 0, 1, 3, 1, 'extractive', 'deploy at noon?')`); err != nil {
		t.Fatal(err)
	}
	before := dumpTables(t, db)
	v14 := schemaObjects(t, db)
	db.Close()
	fresh := openRaw(t, filepath.Join(t.TempDir(), "fresh.db"))
	defer fresh.Close()
	if _, err := migrate(ctx, fresh, SchemaVersion); err != nil {
		t.Fatal(err)
	}
	wantSchema := schemaObjects(t, fresh)
	if cmp.Equal(v14, wantSchema) {
		t.Fatal("version 14's schema is the new one")
	}

	st := openMigrated(t, path, 14, before, want)
	if diff := cmp.Diff(wantSchema, schemaObjects(t, st.writer)); diff != "" {
		t.Errorf("the schema after the migration (-a new file's +got):\n%s", diff)
	}
	log := st.Log("eng").(digest.Store)
	channel := transcript.Conversation{Desk: "eng"}
	wantKept := func(what string) {
		t.Helper()
		if d, ok, err := log.Digest(ctx, channel, 0); err != nil || !ok || d.Through != 3 || d.Generation != 1 {
			t.Errorf("the channel's digest after %s: through %d generation %d, %v, %v; want through 3 generation 1", what, d.Through, d.Generation, ok, err)
		}
	}
	wantKept("the migration")
	if _, err := st.Append(ctx, "eng", transcript.Message{Corrects: 2, Author: opAuthor, Content: "between us, edited"}); err != nil {
		t.Fatal(err)
	}
	wantKept("an edit of aside 2")
	// A writer of version 14 revises aside 3 as its reviseSQL does.
	if _, err := st.writer.ExecContext(ctx, `UPDATE messages SET revised = 9 WHERE desk = 1 AND seq = 3`); err != nil {
		t.Fatal(err)
	}
	wantKept("a revision of aside 3 by another writer")
	if _, err := st.Append(ctx, "eng", transcript.Message{Corrects: 1, Author: opAuthor, Content: "deploy at 12:05?"}); err != nil {
		t.Fatal(err)
	}
	if d, ok, err := log.Digest(ctx, channel, 0); err != nil || ok {
		t.Errorf("the channel's digest after an edit of root 1: through %d, %v, %v; want none", d.Through, ok, err)
	}
}
