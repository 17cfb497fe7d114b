package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/pgtest"
	"github.com/sharedesk/transcript/pgstore"
)

// compactServer starts a server of t's own with conf, opens a Store on it, and starts a
// new WAL segment, so that everything t writes after lies in one segment that only a
// switch ends.
func compactServer(t *testing.T, conf string) (*pgtest.Server, *pgstore.Store, *pgxpool.Pool) {
	t.Helper()
	server := pgtest.Own(t, "pgstore")
	if err := server.Configure(conf); err != nil {
		t.Fatal(err)
	}
	st, err := pgstore.Open(t.Context(), server.DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	admin := connect(t, server.DSN)
	mustExec(t, admin, `SELECT pg_switch_wal()`)
	return server, st, admin
}

func mustExec(t *testing.T, pool *pgxpool.Pool, sql string) {
	t.Helper()
	if _, err := pool.Exec(t.Context(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// filesHolding returns, for each of words, the files of the server's data directory that
// hold it.
func filesHolding(t *testing.T, server *pgtest.Server, words []string) map[string][]string {
	t.Helper()
	found, err := pgtest.FilesHolding(server.DataDir(), words)
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// statistics returns the text of every statistic PostgreSQL keeps of the store's tables
// (pg_stats: sampled values, histograms), as it reads them back, decompressed.
func statistics(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	var text string
	if err := pool.QueryRow(t.Context(), `SELECT coalesce(string_agg(s::text, ' '), '') FROM pg_stats s WHERE s.tablename LIKE 'transcript\_%'`).Scan(&text); err != nil {
		t.Fatal(err)
	}
	return text
}

// fileNodes returns the file node of every table of the store and of pg_statistic, and of
// their TOAST tables, by name: a table written anew has a new one.
func fileNodes(t *testing.T, pool *pgxpool.Pool) map[string]int64 {
	t.Helper()
	rows, err := pool.Query(t.Context(), `SELECT c.relname::text, pg_relation_filenode(c.oid)::bigint FROM pg_class c
		WHERE c.relkind = 'r' AND (c.relname LIKE 'transcript\_%' OR c.relname = 'pg_statistic')
		UNION ALL
		SELECT c.relname || ' TOAST', pg_relation_filenode(c.reltoastrelid)::bigint FROM pg_class c
		WHERE c.relkind = 'r' AND c.reltoastrelid <> 0 AND (c.relname LIKE 'transcript\_%' OR c.relname = 'pg_statistic')`)
	if err != nil {
		t.Fatal(err)
	}
	nodes := make(map[string]int64)
	for rows.Next() {
		var name string
		var node int64
		if err := rows.Scan(&name, &node); err != nil {
			t.Fatal(err)
		}
		nodes[name] = node
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return nodes
}

// TestCompact: on a server of its own with the settings the documentation names, rows
// holding words of their own, long ones in TOAST, some edited, a third redacted, and the
// tables analyzed: before Compact every word is in the data directory's files (so the scan
// finds what is there) and some erased word is in the statistics. VACUUM FULL and
// CHECKPOINT alone, the recipe without a WAL switch, leave every erased word in pg_wal.
// Compact writes every table of the store, pg_statistic and their TOAST tables anew, and
// after it no file under the data directory holds an erased word,
// pg_wal included, nor does any statistic; every live word is still in the tables' files,
// and the store reads and searches as before.
func TestCompact(t *testing.T) {
	t.Parallel()
	server, st, admin := compactServer(t, pgtest.ErasureConf)
	ctx := t.Context()
	var stats string
	words := pgtest.WriteErasedWords(t, st, "eng", 90, func() {
		mustExec(t, admin, `ANALYZE transcript_messages, transcript_terms`)
		stats = statistics(t, admin)
	})

	found := filesHolding(t, server, append(slices.Clone(words.Erased), words.Live...))
	for _, w := range append(slices.Clone(words.Erased), words.Live...) {
		if len(found[w]) == 0 {
			t.Fatalf("before any vacuum, no file of the data directory holds %q: the scan finds nothing", w)
		}
	}
	if !slices.ContainsFunc(words.Erased, func(w string) bool { return strings.Contains(stats, w) }) {
		t.Fatalf("no erased word in the statistics before Compact: the check of them after it proves nothing\n%.2000s", stats)
	}

	// The recipe the documentation once gave: the tables' files are new, but the WAL
	// segment that holds every erased word is the current one, which no checkpoint removes.
	t.Run("without a WAL switch", func(t *testing.T) {
		mustExec(t, admin, `VACUUM (FULL) transcript_messages, transcript_terms`)
		mustExec(t, admin, `CHECKPOINT`)
		found := filesHolding(t, server, words.Erased)
		for _, w := range words.Erased {
			if !slices.ContainsFunc(found[w], func(f string) bool { return strings.HasPrefix(f, "pg_wal/") }) {
				t.Errorf("%q is in no WAL segment (only in %v): the segment that holds it was removed without a switch", w, found[w])
			}
		}
	})

	nodes := fileNodes(t, admin)
	done, err := st.Compact(ctx)
	if err != nil {
		t.Fatalf("Compact: %v", err)
	}
	for _, table := range []string{"transcript_messages", "transcript_terms", "pg_statistic"} {
		if !slices.Contains(done.Tables, table) {
			t.Errorf("Compact rewrote %v, not %s", done.Tables, table)
		}
	}
	if after := fileNodes(t, admin); len(after) != len(nodes) {
		t.Errorf("the tables' files before Compact: %v; after: %v", nodes, after)
	} else {
		for table, node := range nodes {
			if after[table] == node {
				t.Errorf("Compact did not rewrite %s (its file node is still %d)", table, node)
			}
		}
	}
	if len(done.Remains) != 0 || done.Overwritten != 0 {
		t.Errorf("with the documented settings, Compact wrote through %d segments and says erased content remains: %q; want neither", done.Overwritten, done.Remains)
	}
	found = filesHolding(t, server, append(slices.Clone(words.Erased), words.Live...))
	for _, w := range words.Erased {
		if len(found[w]) > 0 {
			t.Errorf("after Compact, erased %q is in %v", w, found[w])
		}
	}
	for _, w := range words.Live {
		if !slices.ContainsFunc(found[w], func(f string) bool { return strings.HasPrefix(f, "base/") }) {
			t.Errorf("after Compact, live %q is in no table's file (it is in %v)", w, found[w])
		}
	}
	stats = statistics(t, admin)
	for _, w := range words.Erased {
		if strings.Contains(stats, w) {
			t.Errorf("after Compact, the statistics quote erased %q", w)
		}
	}

	res, err := st.Log("eng").(transcript.Searcher).Search(ctx, transcript.SearchQuery{Viewer: transcript.Operator(), Text: words.Live[0], Limit: 10})
	if err != nil || len(res.Messages) != 1 {
		t.Errorf("after Compact, a search for %q: %v, %v; want its row", words.Live[0], res.Messages, err)
	}
}

// TestCompactRecycledSegments: with wal_recycle on, PostgreSQL's default, a checkpoint
// renames the segments that held erased content as future segments without rewriting
// them: after VACUUM FULL, a switch and a checkpoint every erased word is still in pg_wal,
// in a segment ahead of the current one. Compact writes over those segments: after it no
// file holds an erased word, and it reports nothing remaining.
func TestCompactRecycledSegments(t *testing.T) {
	t.Parallel()
	server, st, admin := compactServer(t, strings.Replace(pgtest.ErasureConf, "wal_recycle = off", "wal_recycle = on\nmin_wal_size = '256MB'", 1))
	words := pgtest.WriteErasedWords(t, st, "eng", 30, nil)

	t.Run("without writing over them", func(t *testing.T) {
		mustExec(t, admin, `VACUUM (FULL, ANALYZE) transcript_messages, transcript_terms`)
		mustExec(t, admin, `SELECT pg_switch_wal()`)
		mustExec(t, admin, `CHECKPOINT`)
		var current string
		if err := admin.QueryRow(t.Context(), `SELECT pg_walfile_name(pg_current_wal_insert_lsn())`).Scan(&current); err != nil {
			t.Fatal(err)
		}
		found := filesHolding(t, server, words.Erased)
		for _, w := range words.Erased {
			if !slices.ContainsFunc(found[w], func(f string) bool { return strings.HasPrefix(f, "pg_wal/") && f[len("pg_wal/"):] > current }) {
				t.Errorf("%q is in no segment ahead of %s (only in %v): none was recycled", w, current, found[w])
			}
		}
	})

	done, err := st.Compact(t.Context())
	if err != nil {
		t.Fatalf("Compact: %v", err)
	}
	if done.Overwritten == 0 || len(done.Remains) != 0 {
		t.Errorf("Compact wrote through %d segments and says %q remains; want some segments and nothing remaining", done.Overwritten, done.Remains)
	}
	found := filesHolding(t, server, append(slices.Clone(words.Erased), words.Live...))
	for _, w := range words.Erased {
		if len(found[w]) > 0 {
			t.Errorf("after Compact, erased %q is in %v", w, found[w])
		}
	}
	for _, w := range words.Live {
		if len(found[w]) == 0 {
			t.Errorf("after Compact, live %q is in no file", w)
		}
	}
}

// TestCompactPrivileges: a role that may not CHECKPOINT nor switch WAL is refused before
// anything is done, with an error that names both; given them, a role that owns neither
// the tables nor the database is refused, naming the tables it may not vacuum, and one
// that owns the tables but not the database, naming pg_statistic. One that owns both
// compacts, and, not allowed to list pg_wal, says that recycled segments remain when
// wal_recycle is on. A read-only Store is refused with ErrReadOnly.
func TestCompactPrivileges(t *testing.T) {
	t.Parallel()
	_, dsn := openStore(t)
	if !isURL(dsn) {
		t.Skip("TRANSCRIPT_PG_DSN is not a URL: the test connects as another role by editing it")
	}
	ctx := t.Context()
	admin := adminPool(t)
	role := fmt.Sprintf("compact_%d", rand.Uint64())
	if _, err := admin.Exec(ctx, `CREATE ROLE `+role+` LOGIN`); err != nil {
		t.Fatal(err)
	}
	// Opening the store checks its schema, with CREATE TABLE IF NOT EXISTS, which needs
	// CREATE on the schema, and reads its version table.
	grant := func(sql string) {
		t.Helper()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	grant(`GRANT CREATE ON SCHEMA public TO ` + role)
	grant(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ` + role)
	t.Cleanup(func() {
		ctx := context.Background()
		if conn, err := pgx.Connect(ctx, dsn); err == nil { // the test's database, its tables and grants
			conn.Exec(ctx, `REASSIGN OWNED BY `+role+` TO CURRENT_USER`)
			conn.Exec(ctx, `DROP OWNED BY `+role)
			conn.Close(ctx)
		}
		admin.Exec(ctx, `REVOKE pg_checkpoint FROM `+role)
		if _, err := admin.Exec(ctx, `DROP ROLE `+role); err != nil {
			t.Errorf("dropping the test's role: %v", err)
		}
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)
	plain, err := pgstore.Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()

	_, err = plain.Compact(ctx)
	if !errors.Is(err, pgstore.ErrCompactPrivilege) || !strings.Contains(err.Error(), "pg_checkpoint") || !strings.Contains(err.Error(), "pg_switch_wal()") || !strings.Contains(err.Error(), role) {
		t.Errorf("Compact by a plain role: %v; want ErrCompactPrivilege naming the role, pg_checkpoint and pg_switch_wal()", err)
	}
	if _, err := admin.Exec(ctx, `GRANT pg_checkpoint TO `+role); err != nil {
		t.Fatal(err)
	}
	grant(`GRANT EXECUTE ON FUNCTION pg_switch_wal() TO ` + role)
	_, err = plain.Compact(ctx)
	if !errors.Is(err, pgstore.ErrCompactPrivilege) || !strings.Contains(err.Error(), "may not vacuum") || !strings.Contains(err.Error(), "transcript_messages") {
		t.Errorf("Compact by a role that owns nothing: %v; want ErrCompactPrivilege naming transcript_messages", err)
	}
	grant(`DO $$ DECLARE t text; BEGIN
		FOR t IN SELECT tablename FROM pg_tables WHERE tablename LIKE 'transcript\_%' LOOP
			EXECUTE format('ALTER TABLE %I OWNER TO ` + role + `', t);
		END LOOP; END $$`)
	_, err = plain.Compact(ctx)
	if !errors.Is(err, pgstore.ErrCompactPrivilege) || !strings.Contains(err.Error(), "may not vacuum pg_catalog.pg_statistic") {
		t.Errorf("Compact by a role that owns the tables, not the database: %v; want ErrCompactPrivilege naming pg_statistic", err)
	}
	grant(`ALTER DATABASE ` + pgx.Identifier{strings.TrimPrefix(u.Path, "/")}.Sanitize() + ` OWNER TO ` + role)
	done, err := plain.Compact(ctx)
	if err != nil {
		t.Fatalf("Compact by a role that owns the tables and the database: %v", err)
	}
	var recycle bool
	if err := admin.QueryRow(ctx, `SELECT current_setting('wal_recycle')::bool`).Scan(&recycle); err != nil {
		t.Fatal(err)
	}
	if listed := slices.ContainsFunc(done.Remains, func(r string) bool { return strings.Contains(r, "may not list pg_wal") }); listed != recycle || done.Overwritten != 0 {
		t.Errorf("Compact by a role that may not list pg_wal, wal_recycle %v: wrote through %d segments, remains %q; want none written and wal_recycle's remains when it is on", recycle, done.Overwritten, done.Remains)
	}

	ro, err := pgstore.Open(ctx, dsn, pgstore.ReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := ro.Compact(ctx); !errors.Is(err, pgstore.ErrReadOnly) {
		t.Errorf("Compact of a read-only Store: %v, want ErrReadOnly", err)
	}
}
