package pgstore_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/internal/pgtest"
	"github.com/sharedesk/transcript/internal/storetest"
	"github.com/sharedesk/transcript/pgstore"
)

// TestMigrateFromVersion9 opens a database as version 9 left it, without digests, holding
// a desk with a thread: Open migrates it without rewriting or changing a row, and the desk
// then keeps digests, which a correction deletes, through Append and through a writer
// that knows nothing of digests (a process of version 9 still running revises a row with
// its own UPDATE: the schema's trigger deletes them all the same).
func TestMigrateFromVersion9(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := newDatabase(t)
	st, err := pgstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	ana, bot := transcript.Person("ana", "Ana"), transcript.Agent("triage", "Triage")
	for _, m := range []transcript.Message{
		{Author: ana, Content: "deploy at noon?"},
		{Author: bot, Parent: 1, Content: "yes"},
		{Author: ana, Content: "between us", Audience: []transcript.Author{bot}},
		{Author: bot, Parent: 1, Content: "done"},
		{Author: ana, Content: "thanks"},
	} {
		if _, err := st.Append(ctx, "eng", m); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	pool := connect(t, dsn)
	for _, stmt := range []string{
		`ALTER INDEX transcript_terms_keys SET (fastupdate = on)`, // version 13's
		`DELETE FROM transcript_schema_version WHERE version = 13`,
		`DELETE FROM transcript_schema_version WHERE version = 12`,         // version 12 changed version 10's trigger alone
		`DROP TRIGGER transcript_digests_desk_deleted ON transcript_desks`, // version 11's
		`DROP FUNCTION transcript_digests_desk_deleted()`,
		`ALTER TABLE transcript_desks DROP COLUMN id`,
		`DELETE FROM transcript_schema_version WHERE version = 11`,
		`DROP TRIGGER transcript_digests_forget ON transcript_messages`,
		`DROP FUNCTION transcript_digests_forget()`,
		`DROP TABLE transcript_digests`,
		`DELETE FROM transcript_schema_version WHERE version = 10`,
	} {
		mustExec(t, pool, stmt)
	}
	if versions, _ := schemaVersions(t, pool); !slices.Equal(versions, latestVersions()[:9]) {
		t.Fatalf("the database left at versions %v", versions)
	}

	st = openMigrated(t, pool, dsn, 9)
	log := st.Log("eng").(digest.Store)
	channel, thread := transcript.Conversation{Desk: "eng"}, transcript.Conversation{Desk: "eng", Thread: 1}
	read := storetest.MustDigestRead(t, log)
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
	if _, err := st.Append(ctx, "eng", transcript.Message{Corrects: 4, Author: bot, Content: "done, at 12:05"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []transcript.Conversation{channel, thread} {
		if through, ok := newest(c); !ok || through != 2 {
			t.Errorf("%+v's newest digest after an edit of row 4: through %d, %v; want 2", c, through, ok)
		}
	}
	// A writer of version 9 revises row 2 as its reviseSQL does.
	mustExec(t, pool, `UPDATE transcript_messages SET revised = 7 WHERE desk = 'eng' AND seq = 2`)
	for _, c := range []transcript.Conversation{channel, thread} {
		if through, ok := newest(c); ok {
			t.Errorf("%+v's newest digest after a revision of row 2 by another writer: through %d, want none", c, through)
		}
	}
}

// version10ForgetTrigger makes the trigger transcript_digests_forget as version 10 made it,
// before version 12 gave it its condition on the audience.
const version10ForgetTrigger = `CREATE TRIGGER transcript_digests_forget AFTER UPDATE OF revised ON transcript_messages
FOR EACH ROW WHEN (OLD.revised IS DISTINCT FROM NEW.revised)
EXECUTE FUNCTION transcript_digests_forget()`

// TestMigrateFromVersion10 opens a database as version 10 left it once a process of
// version 9 deleted a desk (its desk row and its rows) and so left the desk's digests: Open
// gives every desk an id without changing a row, deletes the deleted desk's digests and
// keeps the other's, and a desk row deleted afterwards takes its desk's digests.
func TestMigrateFromVersion10(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := newDatabase(t)
	st, err := pgstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	for _, desk := range []string{"eng", "gone"} {
		for _, text := range []string{"one", "two", "three"} {
			if _, err := st.Append(ctx, desk, transcript.Message{Author: transcript.Operator(), Content: text}); err != nil {
				t.Fatal(err)
			}
		}
		log := st.Log(desk).(digest.Store)
		d := transcript.Digest{Conversation: transcript.Conversation{Desk: desk}, Through: 2, Rows: 2, Generation: 1, Digester: "extractive", Text: desk + ": one, two"}
		if err := log.PutDigest(ctx, d, storetest.MustDigestRead(t, log)); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	pool := connect(t, dsn)
	for _, stmt := range []string{
		`ALTER INDEX transcript_terms_keys SET (fastupdate = on)`, // version 13's
		`DELETE FROM transcript_schema_version WHERE version = 13`,
		`DROP TRIGGER transcript_digests_forget ON transcript_messages`, // version 12's, made as version 10 did
		version10ForgetTrigger,
		`DELETE FROM transcript_schema_version WHERE version = 12`,
		`DROP TRIGGER transcript_digests_desk_deleted ON transcript_desks`,
		`DROP FUNCTION transcript_digests_desk_deleted()`,
		`ALTER TABLE transcript_desks DROP COLUMN id`,
		`DELETE FROM transcript_schema_version WHERE version = 11`,
		`DELETE FROM transcript_desks WHERE name = 'gone'`, // version 9's DeleteDesk
		`DELETE FROM transcript_messages WHERE desk = 'gone'`,
	} {
		mustExec(t, pool, stmt)
	}
	if versions, _ := schemaVersions(t, pool); !slices.Equal(versions, latestVersions()[:10]) {
		t.Fatalf("the database left at versions %v", versions)
	}
	count := func(desk string) int {
		t.Helper()
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM transcript_digests WHERE desk = $1`, desk).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if count("gone") != 1 {
		t.Fatalf("before the migration, desk gone keeps %d digests, want the 1 left behind", count("gone"))
	}

	st = openMigrated(t, pool, dsn, 10)
	if n := count("gone"); n != 0 {
		t.Errorf("after the migration, %d digests of the deleted desk remain, want none", n)
	}
	log := st.Log("eng").(digest.Store)
	if d, ok, err := log.Digest(ctx, transcript.Conversation{Desk: "eng"}, 0); err != nil || !ok || d.Text != "eng: one, two" {
		t.Errorf("desk eng's digest after the migration = %q, %v, %v; want its own", d.Text, ok, err)
	}
	if r := storetest.MustDigestRead(t, log); r.Desk == 0 || r.Head != 3 {
		t.Errorf("DigestRead of desk eng after the migration = %+v, want head 3 and an id", r)
	}
	mustExec(t, pool, `DELETE FROM transcript_desks WHERE name = 'eng'`)
	if n := count("eng"); n != 0 {
		t.Errorf("after desk eng's row was deleted, %d of its digests remain, want none", n)
	}
}

// TestCompactDigests: on a server of its own with the settings the documentation names,
// the digests storetest.DigestErasure deletes with a redaction are in the data directory's
// files (dead rows, the WAL) until Compact, and in none after it.
func TestCompactDigests(t *testing.T) {
	t.Parallel()
	server, st, admin := compactServer(t, pgtest.ErasureConf)
	storetest.DigestErasure(t, storetest.DigestDeskOf(t, st, "eng"))
	mustExec(t, admin, `CHECKPOINT`)
	words := storetest.DigestErasedWords
	found := filesHolding(t, server, words)
	for _, w := range words {
		if len(found[w]) == 0 {
			t.Fatalf("before Compact, no file of the data directory holds %q: the scan finds nothing", w)
		}
	}
	done, err := st.Compact(t.Context())
	if err != nil {
		t.Fatalf("Compact: %v", err)
	}
	if !slices.Contains(done.Tables, "transcript_digests") {
		t.Errorf("Compact rewrote %v, not transcript_digests", done.Tables)
	}
	found = filesHolding(t, server, words)
	for _, w := range words {
		if len(found[w]) > 0 {
			t.Errorf("after Compact, erased %q is in %v", w, found[w])
		}
	}
	if _, ok, err := st.Log("eng").(digest.Store).Digest(t.Context(), transcript.Conversation{Desk: "eng"}, 0); err != nil || !ok {
		t.Errorf("after Compact, the kept digest: %v, %v", ok, err)
	}
}

// TestPutDigestReadOnly: a read-only Store refuses PutDigest with ErrReadOnly and reads
// digests.
func TestPutDigestReadOnly(t *testing.T) {
	t.Parallel()
	st, dsn := openStore(t)
	ctx := t.Context()
	if _, err := st.Append(ctx, "eng", transcript.Message{Author: transcript.Operator(), Content: "a row"}); err != nil {
		t.Fatal(err)
	}
	d := transcript.Digest{Conversation: transcript.Conversation{Desk: "eng"}, Through: 1, Rows: 1, Generation: 1, Digester: "extractive", Text: "a row"}
	if err := st.Log("eng").(digest.Store).PutDigest(ctx, d, storetest.MustDigestRead(t, st.Log("eng").(digest.Store))); err != nil {
		t.Fatal(err)
	}
	ro, err := pgstore.Open(ctx, dsn, pgstore.ReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	log := ro.Log("eng").(digest.Store)
	next := d
	next.Generation, next.Through = 2, 1
	if err := log.PutDigest(ctx, next, storetest.MustDigestRead(t, log)); !errors.Is(err, pgstore.ErrReadOnly) {
		t.Errorf("PutDigest through a read-only Store: %v, want ErrReadOnly", err)
	}
	if got, ok, err := log.Digest(ctx, d.Conversation, 0); err != nil || !ok || got != d {
		t.Errorf("Digest through a read-only Store = %+v, %v, %v; want %+v", got, ok, err, d)
	}
}

// digestPlanIndexes are the indexes the digests' statements read each table through.
var digestPlanIndexes = map[string]string{
	"transcript_digests":  "transcript_digests_through",
	"transcript_messages": "transcript_messages_pkey",
	"transcript_desks":    "transcript_desks_pkey",
	"transcript_tokens":   "transcript_tokens_hash_key",
}

// TestDigestPlans shows, with EXPLAIN ANALYZE on a desk of 50,000 rows whose every tenth
// row is a correction and 2,000 digests of its channel, that Digest's read probes the
// (desk, thread, through) index for its one row, as a page and its digest read in one
// statement do (with the token's probe when gated) besides the page's rows, and that
// PutDigest's statement reads no table whole: its check of the corrections after the
// fold's read reads only the rows appended since; the read under the custom plans and the
// generic plan alike, the put under its custom plan, the one it runs.
func TestDigestPlans(t *testing.T) {
	t.Parallel()
	_, dsn := openStore(t)
	pool := connect(t, dsn)
	const rows = 50_000
	msgs := make([]transcript.Message, rows)
	for i := range msgs {
		msgs[i] = loadRow(int64(i + 1))
		if seq := i + 1; seq%10 == 5 {
			msgs[i].Parent, msgs[i].Corrects = 0, transcript.Sequence(seq-seq%100+1)
		}
	}
	copyDesk(t, pool, "eng", msgs)
	mustExec(t, pool, `INSERT INTO transcript_digests (desk, thread, generation, through, row_count, digester, content)
		SELECT 'eng', 0, g, 20 * g, 15 * g, 'extractive', 'digest ' || g FROM generate_series(1, 2000) AS g`)
	mustExec(t, pool, `INSERT INTO transcript_tokens (id, hash, desk, author_kind, author_id, author_label, created)
		SELECT 'tok_' || lpad(to_hex(g), 12, '0'), CASE g WHEN 1 THEN decode(repeat('ab', 32), 'hex') ELSE sha256(g::text::bytea) END,
		       'eng', 3, 'ada', 'Ada', now()
		FROM generate_series(1, 2000) AS g`)
	mustExec(t, pool, `ANALYZE transcript_digests, transcript_messages, transcript_tokens`)
	var desk int64
	if err := pool.QueryRow(t.Context(), `SELECT id FROM transcript_desks WHERE name = 'eng'`).Scan(&desk); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
		for _, c := range []struct {
			name, sql, args string
			maxRows         map[string]float64 // the most index entries or rows read, by table
		}{
			{"Digest, newest", pgstore.DigestSQL, "'eng', 0, 9223372036854775807", map[string]float64{"transcript_digests": 1}},
			{"Digest, below a bound", pgstore.DigestSQL, "'eng', 0, 25000", map[string]float64{"transcript_digests": 1}},
			{"ReadBeforeDigest", pgstore.PageDigestSQL, "'eng', 9223372036854775807, 46, 0, 25000",
				map[string]float64{"transcript_digests": 1, "transcript_messages": 46}},
			{"ReadBeforeDigest, gated", pgstore.PageDigestGatedSQL, "'eng', 9223372036854775807, 46, 0, 25000, decode(repeat('ab', 32), 'hex')",
				map[string]float64{"transcript_digests": 1, "transcript_messages": 46, "transcript_tokens": 2}},
			{"PutDigest", pgstore.PutDigestSQL, fmt.Sprintf("'eng', 0, 2001, %d, 30000, 'extractive', 'text', %d, %d, true", rows-30, rows-20, desk),
				map[string]float64{"transcript_digests": 1, "transcript_messages": 20, "transcript_desks": 1}},
		} {
			if c.sql == pgstore.PutDigestSQL && mode != "force_custom_plan" {
				continue
			}
			t.Run(mode+"/"+c.name, func(t *testing.T) {
				text, plan := explain(t, pool, mode, c.sql, c.args)
				t.Logf("%s, %s:\n%s", c.name, mode, text)
				read := map[string]float64{}
				for _, s := range plan.scans() {
					if s.RelationName == "" { // a CTE's
						continue
					}
					if want := digestPlanIndexes[s.RelationName]; s.IndexName != want {
						t.Errorf("%s on %s (index %q), want an index scan using %s", s.NodeType, s.RelationName, s.IndexName, want)
					}
					read[s.RelationName] += s.ActualRows * max(s.ActualLoops, 1)
				}
				for table, n := range read {
					if n > c.maxRows[table] {
						t.Errorf("the plan read %v rows of %s, want at most %v", n, table, c.maxRows[table])
					}
				}
			})
		}
	}
}

// TestDigestsGoWithADeskDeletedByOldCode: a desk deleted by a process that does not know of
// digests, as version 10 and older delete one (its desk row, then its rows, in plain SQL),
// leaves no digest of it (storetest.DigestsGoWithDesk), and the table holds none of it
// before the desk is made anew.
func TestDigestsGoWithADeskDeletedByOldCode(t *testing.T) {
	t.Parallel()
	st, dsn := openStore(t)
	ctx := t.Context()
	pool := connect(t, dsn)
	left := -1
	storetest.DigestsGoWithDesk(t, st, func(desk string) {
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		for _, stmt := range []string{ // version 10's DeleteDesk, digests aside
			`DELETE FROM transcript_desks WHERE name = $1`,
			`DELETE FROM transcript_messages WHERE desk = $1`,
			`DELETE FROM transcript_terms WHERE desk = $1`,
			`DELETE FROM transcript_term_readers WHERE desk = $1`,
			`DELETE FROM transcript_books WHERE desk = $1`,
		} {
			if _, err := tx.Exec(ctx, stmt, desk); err != nil {
				t.Fatalf("%s: %v", stmt, err)
			}
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM transcript_digests WHERE desk = $1`, desk).Scan(&left); err != nil {
			t.Fatal(err)
		}
	})
	if left != 0 {
		t.Errorf("desk gone deleted by code that knows no digests: %d of its digests remain, want none", left)
	}
}

// TestMigrateFromVersion11 opens a database as version 11 left it, holding a digest of a
// channel with an aside below its through: Open migrates it without changing a row, and
// the digest then stays through an edit of the aside by Append and a revision of it by a
// writer of version 11 (the schema's trigger), and goes with an edit of a desk row.
func TestMigrateFromVersion11(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := newDatabase(t)
	st, err := pgstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	ana, bot := transcript.Person("ana", "Ana"), transcript.Agent("triage", "Triage")
	for _, m := range []transcript.Message{
		{Author: ana, Content: "deploy at noon?"},
		{Author: ana, Content: "between us", Audience: []transcript.Author{bot}},
		{Author: bot, Content: "deployed"},
	} {
		if _, err := st.Append(ctx, "eng", m); err != nil {
			t.Fatal(err)
		}
	}
	log := st.Log("eng").(digest.Store)
	channel := transcript.Conversation{Desk: "eng"}
	d := transcript.Digest{Conversation: channel, Through: 3, Rows: 2, Generation: 1, Digester: "extractive", Text: "deploy at noon? deployed"}
	if err := log.PutDigest(ctx, d, storetest.MustDigestRead(t, log)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	pool := connect(t, dsn)
	for _, stmt := range []string{
		`ALTER INDEX transcript_terms_keys SET (fastupdate = on)`, // version 13's
		`DELETE FROM transcript_schema_version WHERE version = 13`,
		`DROP TRIGGER transcript_digests_forget ON transcript_messages`, // as version 10 made it
		version10ForgetTrigger,
		`DELETE FROM transcript_schema_version WHERE version = 12`,
	} {
		mustExec(t, pool, stmt)
	}
	if versions, _ := schemaVersions(t, pool); !slices.Equal(versions, latestVersions()[:11]) {
		t.Fatalf("the database left at versions %v", versions)
	}

	st = openMigrated(t, pool, dsn, 11)
	log = st.Log("eng").(digest.Store)
	wantKept := func(what string) {
		t.Helper()
		if got, ok, err := log.Digest(ctx, channel, 0); err != nil || !ok || got.Through != d.Through || got.Generation != d.Generation || got.Text != d.Text {
			t.Errorf("the channel's digest after %s: through %d generation %d, %v, %v; want through 3 generation 1 as stored", what, got.Through, got.Generation, ok, err)
		}
	}
	wantKept("the migration")
	if _, err := st.Append(ctx, "eng", transcript.Message{Corrects: 2, Author: ana, Content: "between us, edited"}); err != nil {
		t.Fatal(err)
	}
	wantKept("an edit of aside 2")
	// A writer of version 11 revises aside 2 as its reviseSQL does.
	mustExec(t, pool, `UPDATE transcript_messages SET revised = 9 WHERE desk = 'eng' AND seq = 2`)
	wantKept("a revision of aside 2 by another writer")
	if _, err := st.Append(ctx, "eng", transcript.Message{Corrects: 1, Author: ana, Content: "deploy at 12:05?"}); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := log.Digest(ctx, channel, 0); err != nil || ok {
		t.Errorf("the channel's digest after an edit of root 1: through %d, %v, %v; want none", got.Through, ok, err)
	}
}
