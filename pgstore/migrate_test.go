package pgstore_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/pgstore"
)

// schemaVersions returns the versions recorded in transcript_schema_version, ascending, and
// how many distinct transactions (applied_at is the transaction's start) applied them.
func schemaVersions(t *testing.T, pool *pgxpool.Pool) ([]int, int) {
	t.Helper()
	var versions []int
	var txs int
	err := pool.QueryRow(t.Context(), `
		SELECT coalesce(array_agg(version ORDER BY version), '{}'), count(DISTINCT applied_at)
		FROM transcript_schema_version`).Scan(&versions, &txs)
	if err != nil {
		t.Fatal(err)
	}
	return versions, txs
}

func latestVersions() []int {
	var vs []int
	for v := 1; v <= pgstore.LatestVersion; v++ {
		vs = append(vs, v)
	}
	return vs
}

// TestMigrateFromVersion1 opens a database left at schema version 1, with rows written
// under that schema, and shows Open migrating it: the rows intact and readable, the thread
// index there, appends going on from the old head.
func TestMigrateFromVersion1(t *testing.T) {
	t.Parallel()
	dsn := newDatabase(t)
	pool := connect(t, dsn)
	ctx := t.Context()
	if err := pgstore.MigrateTo(ctx, pool, 1); err != nil {
		t.Fatal(err)
	}
	if got, _ := schemaVersions(t, pool); !slices.Equal(got, []int{1}) {
		t.Fatalf("after migrating to version 1: versions %v", got)
	}
	// Rows as a version-1 store wrote them.
	at := time.Date(2025, 1, 2, 3, 4, 5, 6000, time.UTC)
	if _, err := pool.Exec(ctx, `
		INSERT INTO transcript_desks (name, head) VALUES ('eng', 3), ('ops', 1);
		INSERT INTO transcript_messages (desk, seq, parent, author_kind, author_id, author_label, content, at) VALUES
			('eng', 1, 0, 2, 'ana', 'Ana', 'question', '2025-01-02 03:04:05.000006+00'),
			('eng', 2, 1, 3, 'bot', 'Bot', 'answer', '2025-01-02 03:04:05.000006+00'),
			('eng', 3, 0, 1, '', '', 'notice', '2025-01-02 03:04:05.000006+00'),
			('ops', 1, 0, 4, 'workflow', 'CI', 'build green', '2025-01-02 03:04:05.000006+00')`); err != nil {
		t.Fatal(err)
	}
	if indexExists(t, pool, "transcript_messages_thread") {
		t.Fatal("version 1 already has the thread index")
	}

	st, err := pgstore.Open(ctx, dsn)
	if err != nil {
		t.Fatalf("Open on a version-1 database: %v", err)
	}
	defer st.Close()
	if got, _ := schemaVersions(t, pool); !slices.Equal(got, latestVersions()) {
		t.Errorf("after Open: versions %v, want %v", got, latestVersions())
	}
	if !indexExists(t, pool, "transcript_messages_thread") {
		t.Error("after Open: no thread index")
	}
	want := []transcript.Message{
		{Seq: 3, Author: transcript.Operator(), Content: "notice", At: at},
		{Seq: 2, Parent: 1, Author: transcript.Agent("bot", "Bot"), Content: "answer", At: at},
		{Seq: 1, Author: transcript.Person("ana", "Ana"), Content: "question", At: at},
	}
	page := mustRead(t, st.Log("eng"), 0, 10)
	if !reflect.DeepEqual(page.Messages, want) {
		t.Errorf("desk eng after the migration:\n got %+v\nwant %+v", page.Messages, want)
	}
	desks, err := st.Desks(ctx)
	if err != nil || !slices.Equal(desks, []string{"eng", "ops"}) {
		t.Errorf("Desks after the migration: %v, %v", desks, err)
	}
	m, err := st.Append(ctx, "eng", transcript.Message{Parent: 3, Author: alice, Content: "after the migration"})
	if err != nil || m.Seq != 4 {
		t.Errorf("Append after the migration: Seq %d, %v; want 4", m.Seq, err)
	}
}

// TestMigrateFromVersion2 opens a database left at schema version 2, before asides, with
// rows written under that schema, and shows Open adding the audience column without
// rewriting the table: every old row reads back as it was, a desk row (Audience nil), and
// asides are stored and read back after it.
func TestMigrateFromVersion2(t *testing.T) {
	t.Parallel()
	dsn := newDatabase(t)
	pool := connect(t, dsn)
	ctx := t.Context()
	if err := pgstore.MigrateTo(ctx, pool, 2); err != nil {
		t.Fatal(err)
	}
	// Rows as a version-2 store wrote them.
	if _, err := pool.Exec(ctx, `
		INSERT INTO transcript_desks (name, head) VALUES ('eng', 3), ('ops', 1);
		INSERT INTO transcript_messages (desk, seq, parent, author_kind, author_id, author_label, content, at) VALUES
			('eng', 1, 0, 2, 'ana', 'Ana', 'question', '2025-01-02 03:04:05.000006+00'),
			('eng', 2, 1, 3, 'bot', 'Bot', 'answer', '2025-01-02 03:04:05.000006+00'),
			('eng', 3, 0, 1, '', '', 'notice', '2025-01-02 03:04:05.000006+00'),
			('ops', 1, 0, 4, 'workflow', 'CI', 'build green', '2025-01-02 03:04:05.000006+00')`); err != nil {
		t.Fatal(err)
	}
	st := openMigrated(t, pool, dsn, 2)
	at := time.Date(2025, 1, 2, 3, 4, 5, 6000, time.UTC)
	want := []transcript.Message{
		{Seq: 3, Author: transcript.Operator(), Content: "notice", At: at},
		{Seq: 2, Parent: 1, Author: transcript.Agent("bot", "Bot"), Content: "answer", At: at},
		{Seq: 1, Author: transcript.Person("ana", "Ana"), Content: "question", At: at},
	}
	page := mustRead(t, st.Log("eng"), 0, 10)
	if !reflect.DeepEqual(page.Messages, want) { // Audience nil, not empty
		t.Errorf("desk eng after the migration:\n got %+v\nwant %+v", page.Messages, want)
	}
	aside, err := st.Append(ctx, "eng", transcript.Message{Parent: 2, Author: alice, Content: "private", Audience: []transcript.Author{bot}})
	if err != nil || aside.Seq != 4 {
		t.Fatalf("Append of an aside after the migration: Seq %d, %v; want 4", aside.Seq, err)
	}
	reply, err := st.Append(ctx, "eng", transcript.Message{Parent: 4, Author: bot, Content: "private answer"})
	if err != nil || !cmp.Equal(reply.Audience, []transcript.Author{alice}) {
		t.Fatalf("Append of a reply to the aside: audience %v, %v; want [%v]", reply.Audience, err, alice)
	}
	page = mustRead(t, st.Log("eng"), 0, 2)
	if diff := cmp.Diff([]transcript.Message{reply, aside}, page.Messages); diff != "" {
		t.Errorf("the asides read back (-appended +read):\n%s", diff)
	}
}

// TestMigrateFromVersion3 opens a database left at schema version 3, before keys, with rows
// written under that schema, asides among them, and shows Open adding the key column and
// its index without rewriting the table: every old row reads back as it was, without a key,
// and keyed rows are stored, replayed and looked up after it.
func TestMigrateFromVersion3(t *testing.T) {
	t.Parallel()
	dsn := newDatabase(t)
	pool := connect(t, dsn)
	ctx := t.Context()
	if err := pgstore.MigrateTo(ctx, pool, 3); err != nil {
		t.Fatal(err)
	}
	// Rows as a version-3 store wrote them.
	if _, err := pool.Exec(ctx, `
		INSERT INTO transcript_desks (name, head) VALUES ('eng', 3), ('ops', 1);
		INSERT INTO transcript_messages (desk, seq, parent, author_kind, author_id, author_label, content, at, audience) VALUES
			('eng', 1, 0, 2, 'ana', 'Ana', 'question', '2025-01-02 03:04:05.000006+00', NULL),
			('eng', 2, 1, 3, 'bot', 'Bot', 'private answer', '2025-01-02 03:04:05.000006+00', '[{"type":"person","id":"ana","label":"Ana"}]'),
			('eng', 3, 0, 1, '', '', 'notice', '2025-01-02 03:04:05.000006+00', NULL),
			('ops', 1, 0, 4, 'workflow', 'CI', 'build green', '2025-01-02 03:04:05.000006+00', NULL)`); err != nil {
		t.Fatal(err)
	}
	if indexExists(t, pool, "transcript_messages_key") {
		t.Fatal("version 3 already has the key index")
	}
	st := openMigrated(t, pool, dsn, 3)
	if !indexExists(t, pool, "transcript_messages_key") {
		t.Error("after Open: no key index")
	}
	at := time.Date(2025, 1, 2, 3, 4, 5, 6000, time.UTC)
	ana := transcript.Person("ana", "Ana")
	want := []transcript.Message{
		{Seq: 3, Author: transcript.Operator(), Content: "notice", At: at},
		{Seq: 2, Parent: 1, Author: transcript.Agent("bot", "Bot"), Content: "private answer", At: at, Audience: []transcript.Author{ana}},
		{Seq: 1, Author: ana, Content: "question", At: at},
	}
	page := mustRead(t, st.Log("eng"), 0, 10)
	if !reflect.DeepEqual(page.Messages, want) { // Key "", Audience nil for a desk row
		t.Errorf("desk eng after the migration:\n got %+v\nwant %+v", page.Messages, want)
	}
	keyed := transcript.Message{Key: "after", Parent: 2, Author: ana, Content: "keyed reply"}
	first, err := st.Append(ctx, "eng", keyed)
	if err != nil || first.Seq != 4 || first.Key != "after" || !cmp.Equal(first.Audience, []transcript.Author{transcript.Agent("bot", "Bot")}) {
		t.Fatalf("Append of a keyed reply after the migration: %+v, %v; want row 4, key after, audience [bot]", first, err)
	}
	again, err := st.Append(ctx, "eng", keyed)
	if err != nil || !cmp.Equal(again, first) {
		t.Errorf("replay after the migration: %+v, %v; want %+v", again, err, first)
	}
	found, err := st.LookupKeys(ctx, "eng", []string{"after", "missing"})
	if err != nil || len(found) != 1 || !cmp.Equal(found["after"], first) {
		t.Errorf("LookupKeys after the migration: %+v, %v; want row 4", found, err)
	}
	var keys int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM transcript_messages WHERE key IS NOT NULL`).Scan(&keys); err != nil || keys != 1 {
		t.Errorf("%d rows with a key, %v; want 1", keys, err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO transcript_messages (desk, seq, parent, author_kind, author_id, author_label, content, at, key)
		VALUES ('ops', 2, 0, 1, '', '', 'x', now(), '')`); err == nil {
		t.Error("the table took an empty key, which is no key: NULL")
	}
}

// storedRow is a row of transcript_messages as its columns hold it, audience aside.
type storedRow struct {
	Desk                   string
	Seq, Parent            int64
	Kind                   int16
	ID, Label, Content, At string
}

// readAllRows returns every row of transcript_messages, by desk and Seq.
func readAllRows(t *testing.T, pool *pgxpool.Pool) []storedRow {
	t.Helper()
	rows, err := pool.Query(t.Context(), `
		SELECT desk, seq, parent, author_kind, author_id, author_label, content, at::text
		FROM transcript_messages ORDER BY desk, seq`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[storedRow])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// tableFile returns the file node of transcript_messages, which a table rewrite changes.
func tableFile(t *testing.T, pool *pgxpool.Pool) int64 {
	t.Helper()
	var file int64
	if err := pool.QueryRow(t.Context(), `SELECT pg_relation_filenode('transcript_messages')::bigint`).Scan(&file); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestConcurrentOpen opens one fresh database from several goroutines at once, each with a
// pool of its own, as several processes starting together would: every Open succeeds and
// the schema is applied once, by one transaction.
func TestConcurrentOpen(t *testing.T) {
	t.Parallel()
	const openers = 8
	dsn := newDatabase(t)
	ctx := t.Context()
	var (
		wg    sync.WaitGroup
		start = make(chan struct{})
		errs  = make([]error, openers)
	)
	for i := range openers {
		wg.Go(func() {
			<-start
			st, err := pgstore.Open(ctx, dsn)
			if err != nil {
				errs[i] = err
				return
			}
			defer st.Close()
			_, errs[i] = st.Append(ctx, "eng", transcript.Message{Author: alice, Content: "hello"})
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("opener %d: %v", i, err)
		}
	}
	pool := connect(t, dsn)
	versions, txs := schemaVersions(t, pool)
	if !slices.Equal(versions, latestVersions()) || txs != 1 {
		t.Errorf("schema versions %v applied by %d transactions, want %v by 1", versions, txs, latestVersions())
	}
	var head int64
	if err := pool.QueryRow(ctx, `SELECT head FROM transcript_desks WHERE name = 'eng'`).Scan(&head); err != nil || head != openers {
		t.Errorf("desk eng head %d, %v; want %d", head, err, openers)
	}
}

// TestReopen: opening a migrated database changes nothing.
func TestReopen(t *testing.T) {
	t.Parallel()
	st, dsn := openStore(t)
	if _, err := st.Append(t.Context(), "eng", transcript.Message{Author: alice, Content: "hi"}); err != nil {
		t.Fatal(err)
	}
	pool := connect(t, dsn)
	before, _ := schemaVersions(t, pool)
	again, err := pgstore.New(t.Context(), pool)
	if err != nil {
		t.Fatal(err)
	}
	if after, txs := schemaVersions(t, pool); !slices.Equal(before, after) || txs != 1 {
		t.Errorf("versions %v by %d transactions after reopening, want %v by 1", after, txs, before)
	}
	if page := mustRead(t, again.Log("eng"), 0, 10); len(page.Messages) != 1 {
		t.Errorf("desk eng after reopening: %d rows, want 1", len(page.Messages))
	}
}

// TestSchemaTooNew: a database migrated by a newer package is refused, untouched.
func TestSchemaTooNew(t *testing.T) {
	t.Parallel()
	_, dsn := openStore(t)
	pool := connect(t, dsn)
	if _, err := pool.Exec(t.Context(), `INSERT INTO transcript_schema_version (version, name) VALUES ($1, 'from the future')`, pgstore.LatestVersion+1); err != nil {
		t.Fatal(err)
	}
	st, err := pgstore.Open(t.Context(), dsn)
	if !errors.Is(err, pgstore.ErrSchemaTooNew) {
		if st != nil {
			st.Close()
		}
		t.Fatalf("Open on a newer schema: %v, want ErrSchemaTooNew", err)
	}
	if got, _ := schemaVersions(t, pool); len(got) != pgstore.LatestVersion+1 {
		t.Errorf("versions after the refused Open: %v", got)
	}
}

// TestOpenHonoursContext: Open with a done ctx fails with its error.
func TestOpenHonoursContext(t *testing.T) {
	t.Parallel()
	dsn := newDatabase(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := pgstore.Open(ctx, dsn); !errors.Is(err, context.Canceled) {
		t.Errorf("Open with a cancelled ctx: %v, want context.Canceled", err)
	}
}

func indexExists(t *testing.T, pool *pgxpool.Pool, name string) bool {
	t.Helper()
	var exists bool
	if err := pool.QueryRow(t.Context(), `SELECT to_regclass($1) IS NOT NULL`, name).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	return exists
}

// openMigrated opens the database at dsn, left by its test at schema version from, and
// checks that the migrations to the latest version changed no row of the messages and
// desks tables and did not rewrite the messages table. The Store is closed when t ends.
func openMigrated(t *testing.T, pool *pgxpool.Pool, dsn string, from int) *pgstore.Store {
	t.Helper()
	before := readAllRows(t, pool)
	heads := deskHeads(t, pool)
	file := tableFile(t, pool)
	st, err := pgstore.Open(t.Context(), dsn)
	if err != nil {
		t.Fatalf("Open on a version-%d database: %v", from, err)
	}
	t.Cleanup(func() { st.Close() })
	if got, _ := schemaVersions(t, pool); !slices.Equal(got, latestVersions()) {
		t.Errorf("after Open: versions %v, want %v", got, latestVersions())
	}
	if got := tableFile(t, pool); got != file {
		t.Errorf("the migration rewrote transcript_messages (file %d, was %d)", got, file)
	}
	if diff := cmp.Diff(before, readAllRows(t, pool)); diff != "" {
		t.Errorf("the rows' columns after the migration (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(heads, deskHeads(t, pool)); diff != "" {
		t.Errorf("the desks after the migration (-before +after):\n%s", diff)
	}
	return st
}
