package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/storetest"
	"github.com/sharedesk/transcript/pgstore"
	"github.com/sharedesk/transcript/sharing"
	"github.com/sharedesk/transcript/token"
)

// TestMigrateFromVersion5 opens a database left at schema version 5, before books, with
// rows and a token written under that schema, and shows Open adding the books table and
// nothing else: the rows' columns as they were, the table not rewritten, the desks, their
// heads and the tokens unchanged; no book exists, and books can be saved and loaded, also
// for a desk that holds no row, which gets no desk row from its book.
func TestMigrateFromVersion5(t *testing.T) {
	t.Parallel()
	dsn := newDatabase(t)
	pool := connect(t, dsn)
	ctx := t.Context()
	if err := pgstore.MigrateTo(ctx, pool, 5); err != nil {
		t.Fatal(err)
	}
	if indexExists(t, pool, "transcript_books") {
		t.Fatal("version 5 already has the books table")
	}
	_, tok := newToken(t, "eng", transcript.Agent("triage", "Triage"), 0)
	if _, err := pool.Exec(ctx, `
		INSERT INTO transcript_desks (name, head) VALUES ('eng', 3), ('ops', 1);
		INSERT INTO transcript_messages (desk, seq, parent, author_kind, author_id, author_label, content, at, audience, key) VALUES
			('eng', 1, 0, 2, 'ana', 'Ana', 'question', '2025-01-02 03:04:05.000006+00', NULL, 'slack:1.000001'),
			('eng', 2, 1, 3, 'bot', 'Bot', 'private answer', '2025-01-02 03:04:05.000006+00', '[{"type":"person","id":"ana","label":"Ana"}]', NULL),
			('eng', 3, 0, 1, '', '', 'notice', '2025-01-02 03:04:05.000006+00', NULL, NULL),
			('ops', 1, 0, 4, 'workflow', 'CI', 'build green', '2025-01-02 03:04:05.000006+00', NULL, NULL)`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO transcript_tokens (id, hash, desk, author_kind, author_id, author_label, created) VALUES ($1, $2, 'eng', 3, 'triage', 'Triage', $3)`,
		tok.ID, tok.Hash[:], tok.Created); err != nil {
		t.Fatal(err)
	}
	before, heads := readAllRows(t, pool), deskHeads(t, pool)
	st := openMigrated(t, pool, dsn, 5)
	if toks, err := st.Tokens(ctx); err != nil || !reflect.DeepEqual(toks, []token.Token{tok}) {
		t.Errorf("Tokens after the migration = %+v, %v; want %+v", toks, err, tok)
	}
	triage := transcript.Agent("triage", "Triage")
	if b, v, err := st.LoadBook(ctx, "eng", triage); err != nil || v != 0 || b.Len() != 0 {
		t.Errorf("LoadBook after the migration = %d states, version %d, %v; want none", b.Len(), v, err)
	}
	for _, desk := range []string{"eng", "no rows yet"} {
		b := storetest.BookOf(t, sharing.Initialized(transcript.Conversation{Desk: desk}, 3))
		if v, err := st.SaveBook(ctx, desk, triage, b, 0); err != nil || v != 1 {
			t.Fatalf("SaveBook on desk %q after the migration = %d, %v", desk, v, err)
		}
		if got, v, err := st.LoadBook(ctx, desk, triage); err != nil || v != 1 || !got.Equal(b) {
			t.Errorf("LoadBook on desk %q after SaveBook: version %d, %v", desk, v, err)
		}
	}
	if diff := cmp.Diff(heads, deskHeads(t, pool)); diff != "" {
		t.Errorf("the desks after saving books (-before +after): a book makes no desk\n%s", diff)
	}
	if diff := cmp.Diff(before, readAllRows(t, pool)); diff != "" {
		t.Errorf("the rows after saving books (-before +after):\n%s", diff)
	}
}

// TestBookQueryPlans shows, with EXPLAIN ANALYZE on a new table of one book and then on
// 20,000 books, that a load and a save over a version are each one probe of the primary key
// (transcript_books_pkey), under custom and generic plans, reading at most one row.
func TestBookQueryPlans(t *testing.T) {
	t.Parallel()
	st, dsn := openStore(t)
	pool := connect(t, dsn)
	ctx := t.Context()
	if _, err := st.SaveBook(ctx, "eng", transcript.Agent("agent7", "Agent"), storetest.BookOf(t, sharing.Initialized(transcript.Conversation{Desk: "eng"}, 1)), 0); err != nil {
		t.Fatal(err)
	}
	const index = "transcript_books_pkey"
	cases := []explainCase{
		{"LoadBook", pgstore.LoadBookSQL, `'eng', 3, 'agent7'`, index, 1},
		{"LoadBook of no book", pgstore.LoadBookSQL, `'eng', 3, 'nobody'`, index, 0},
		{"SaveBook over a version", pgstore.UpdateBookSQL, `'eng', 3, 'agent7', 1, '{}'`, index, 1},
		{"SaveBook over a stale version", pgstore.UpdateBookSQL, `'eng', 3, 'agent7', 9, '{}'`, index, 1},
	}
	check := func(t *testing.T, when, mode string, c explainCase) {
		text, plan := explain(t, pool, mode, c.sql, c.args)
		t.Logf("%s, %s, %s:\n%s", c.name, mode, when, text)
		scans := plan.scans()
		if len(scans) == 0 {
			t.Fatalf("%s %s: no scan in the plan", c.name, when)
		}
		var read float64
		for _, s := range scans {
			if s.NodeType == "Seq Scan" || s.IndexName != c.index {
				t.Errorf("%s %s: %s on %s (index %q), want an index scan using %s", c.name, when, s.NodeType, s.RelationName, s.IndexName, c.index)
			}
			read += s.ActualRows * max(s.ActualLoops, 1)
		}
		if read > c.maxRows {
			t.Errorf("%s %s: the plan read %v rows, want at most %v", c.name, when, read, c.maxRows)
		}
	}
	for _, c := range cases {
		check(t, "on a new table", "force_generic_plan", c)
	}
	if _, err := pool.Exec(ctx, `
		INSERT INTO transcript_books (desk, author_kind, author_id, version, book)
		SELECT 'desk ' || (i % 50), 1 + i % 4, 'agent' || i, 1 + i % 7, '{"states":[],"evicted":[]}'
		FROM generate_series(1, 20000) AS i;
		ANALYZE transcript_books`); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
		for _, c := range cases {
			t.Run(mode+"/"+c.name, func(t *testing.T) { check(t, "among 20,000 books", mode, c) })
		}
	}
}

// TestBookSchema: the table refuses, even from outside the package, an unknown kind, an
// empty desk, a version below 1, no book, and a second row for one key.
func TestBookSchema(t *testing.T) {
	t.Parallel()
	st, dsn := openStore(t)
	pool := connect(t, dsn)
	ctx := t.Context()
	if _, err := st.SaveBook(ctx, "eng", transcript.Agent("triage", "Triage"), sharing.Book{}, 0); err != nil {
		t.Fatal(err)
	}
	insert := `INSERT INTO transcript_books (desk, author_kind, author_id, version, book) VALUES ($1, $2, $3, $4, $5)`
	for _, bad := range []struct {
		name string
		args []any
	}{
		{"kind 0", []any{"eng", 0, "x", 1, "{}"}},
		{"kind 5", []any{"eng", 5, "x", 1, "{}"}},
		{"an empty desk", []any{"", 3, "x", 1, "{}"}},
		{"version 0", []any{"eng", 3, "x", 0, "{}"}},
		{"no book", []any{"eng", 3, "x", 1, nil}},
		{"no id", []any{"eng", 3, nil, 1, "{}"}},
		{"the key twice", []any{"eng", 3, "triage", 1, "{}"}},
	} {
		if _, err := pool.Exec(ctx, insert, bad.args...); err == nil {
			t.Errorf("%s: the schema took it", bad.name)
		}
	}
}

// TestStoredBookCorrupt: a row whose book does not decode, or names another desk, is an
// error matching sharing.ErrInvalidBook, not a book.
func TestStoredBookCorrupt(t *testing.T) {
	t.Parallel()
	st, dsn := openStore(t)
	pool := connect(t, dsn)
	ctx := t.Context()
	for i, text := range []string{
		`{"states":[{"conversation":{"desk":"eng"},"watermark":1,"present":[1]}]}`,
		`{"states":[{"conversation":{"desk":"sales"},"watermark":1}]}`,
		`not json`,
	} {
		id := fmt.Sprint("corrupt", i)
		if _, err := pool.Exec(ctx, `INSERT INTO transcript_books (desk, author_kind, author_id, version, book) VALUES ('eng', 3, $1, 1, $2)`, id, text); err != nil {
			t.Fatal(err)
		}
		if b, v, err := st.LoadBook(ctx, "eng", transcript.Agent(id, "")); !errors.Is(err, sharing.ErrInvalidBook) {
			t.Errorf("LoadBook of %s = %d states, version %d, %v; want sharing.ErrInvalidBook", text, b.Len(), v, err)
		}
	}
}

// TestBooksAcrossStores: two Stores with pools of their own, and a third on a pool of the
// caller's (New), on one database, their books.Update calls racing on one participant's book, lose
// no acknowledgement.
func TestBooksAcrossStores(t *testing.T) {
	t.Parallel()
	first, dsn := openStore(t)
	second, err := pgstore.Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { second.Close() })
	pool, err := pgxpool.New(t.Context(), withParam(dsn, "pool_max_conns", "2"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	third, err := pgstore.New(t.Context(), pool)
	if err != nil {
		t.Fatal(err)
	}
	storetest.ConcurrentBookRule(t, first, second, third)
}

// TestBooksCanceled: with a done ctx both book methods fail with ctx's error, and nothing is
// written.
func TestBooksCanceled(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	triage := transcript.Agent("triage", "Triage")
	b := storetest.BookOf(t, sharing.Initialized(transcript.Conversation{Desk: "eng"}, 1))
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	_, _, load := st.LoadBook(canceled, "eng", triage)
	_, save := st.SaveBook(canceled, "eng", triage, b, 0)
	for name, err := range map[string]error{"LoadBook": load, "SaveBook": save} {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a canceled ctx: %v, want context.Canceled", name, err)
		}
	}
	if _, v, err := st.LoadBook(t.Context(), "eng", triage); err != nil || v != 0 {
		t.Errorf("LoadBook after a canceled save: version %d, %v; want none", v, err)
	}
}

// TestSimpleProtocolBooks runs the book checks on a store whose pool uses the simple query
// protocol, where versions, kinds and books travel as text.
func TestSimpleProtocolBooks(t *testing.T) {
	t.Parallel()
	st, err := pgstore.Open(t.Context(), withParam(newDatabase(t), "default_query_exec_mode", "simple_protocol"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	storetest.BookRule(t, st)
}
