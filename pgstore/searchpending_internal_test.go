package pgstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/pgtest"
	"github.com/sharedesk/transcript/storage"
)

// searchIndexBlocks runs st's search of desk for q as Search runs it on the primary
// (searchBegin, then the statement) and returns the blocks of the GIN index of keys that
// the search's transaction read (pg_stat_get_xact_blocks_fetched).
func searchIndexBlocks(t *testing.T, st *Store, pool *pgxpool.Pool, desk string, q transcript.SearchQuery) (int64, int) {
	t.Helper()
	ctx := context.Background()
	plan, err := storage.PlanSearch(q)
	if err != nil {
		t.Fatal(err)
	}
	read, err := newSearchRead(&st.audiences, &st.searchWork, st.searchKey, desk, &plan)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	for _, s := range searchBegin[1:] {
		if _, err := tx.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	const blocks = `SELECT pg_stat_get_xact_blocks_fetched('transcript_terms_keys'::regclass)`
	var b0, b1 int64
	if err := tx.QueryRow(ctx, blocks).Scan(&b0); err != nil {
		t.Fatal(err)
	}
	rows, err := tx.Query(ctx, read.sql, read.args...)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRow(ctx, blocks).Scan(&b1); err != nil {
		t.Fatal(err)
	}
	return b1 - b0, n
}

// TestSearchIndexReadsNoPendingList: what a search reads of the search index does not
// depend on rows its viewer may not read: agent:eve's search of desk "eng" for a word in no
// row, once another desk holds 3,000 new asides of alice's and bob's, reads no more of the
// index than once those entries are all in it (a GIN pending list, which every scan reads
// whole, would make it read them all). The index may grow a level with them; that is the
// only cost they add.
func TestSearchIndexReadsNoPendingList(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Database(t, "pgstore")
	st, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	for _, table := range []string{"transcript_messages", "transcript_terms", "transcript_term_readers"} {
		if _, err := pool.Exec(ctx, "ALTER TABLE "+table+" SET (autovacuum_enabled = off)"); err != nil {
			t.Fatal(err)
		}
	}
	var (
		alice = transcript.Agent("alice", "Alice")
		bob   = transcript.Agent("bob", "Bob")
		eve   = transcript.Agent("eve", "Eve")
	)
	var public []transcript.Message
	for i := range 50 {
		public = append(public, transcript.Message{Author: alice, Content: fmt.Sprintf("hello world %d", i)})
	}
	if err := st.AppendBatch(ctx, "eng", public); err != nil {
		t.Fatal(err)
	}
	q := transcript.SearchQuery{Viewer: eve, Text: "acmecorp", Limit: 20}
	before, n := searchIndexBlocks(t, st, pool, "eng", q)
	if n != 0 {
		t.Fatalf("found %d rows", n)
	}
	for b := range 30 {
		var asides []transcript.Message
		for i := range 100 {
			asides = append(asides, transcript.Message{Author: alice, Audience: []transcript.Author{bob},
				Content: fmt.Sprintf("acmecorp secret plan number w%dx%d and more words here", b, i)})
		}
		if err := st.AppendBatch(ctx, "other", asides); err != nil {
			t.Fatal(err)
		}
	}
	after, n := searchIndexBlocks(t, st, pool, "eng", q)
	if n != 0 {
		t.Fatalf("found %d rows", n)
	}
	var pending int64
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM transcript_terms`).Scan(&pending); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `SELECT gin_clean_pending_list('transcript_terms_keys'::regclass)`); err != nil {
		t.Fatal(err)
	}
	flushed, _ := searchIndexBlocks(t, st, pool, "eng", q)
	t.Logf("blocks read: %d before the asides, %d after, %d once the pending list is flushed into the index", before, after, flushed)
	if after > flushed {
		t.Errorf("eve's search of eng for a word in no row read %d blocks of the GIN index once another desk held 3,000 asides, %d once they were all in the index (before them: %d; transcript_terms holds %d rows): a pending list that every scan reads", after, flushed, before, pending)
	}
}
