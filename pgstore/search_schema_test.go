package pgstore_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"strings"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/pgstore"
)

// TestMigrateSearchIndex opens a database left at schema version 7, before search, holding
// more rows than the migration indexes at a time, among them an aside, an edited row and
// its edit, a redacted row and a blank one, and shows Open indexing them in Go: each row is
// found by the words storage.IndexTerms finds in it as stored (an edit by its new
// words, in any spelling Terms folds), the others by none, and appends after it are found
// too; the rows themselves are unchanged (openMigrated).
func TestMigrateSearchIndex(t *testing.T) {
	t.Parallel()
	dsn := newDatabase(t)
	pool := connect(t, dsn)
	ctx := t.Context()
	if err := pgstore.MigrateTo(ctx, pool, 7); err != nil {
		t.Fatal(err)
	}
	const n = 12_345 // more than two of the migration's batches
	if _, err := pool.Exec(ctx, fmt.Sprintf(`
		INSERT INTO transcript_desks (name, head) VALUES ('eng', %[1]d), ('ops', 1);
		INSERT INTO transcript_messages (desk, seq, parent, author_kind, author_id, author_label, content, at)
			SELECT 'eng', s, 0, 2, 'ana', 'Ana',
				CASE WHEN s %% 1000 = 7 THEN 'Café no ' || s ELSE 'row ' || s END, '2025-01-02 03:04:05+00'
			FROM generate_series(1, %[1]d - 5) AS s;
		INSERT INTO transcript_messages (desk, seq, parent, author_kind, author_id, author_label, content, at, audience, corrects, redacted, revised) VALUES
			('eng', %[1]d - 4, 0, 3, 'bot', 'Bot', 'private ΣΟΦΙΑ', '2025-01-02 03:04:05+00', '[{"type":"person","id":"ana","label":"Ana"}]', NULL, NULL, NULL),
			('eng', %[1]d - 3, 0, 2, 'ana', 'Ana', 'new rota', '2025-01-02 03:04:05+00', NULL, NULL, NULL, %[1]d - 2),
			('eng', %[1]d - 2, 0, 2, 'ana', 'Ana', 'new rota', '2025-01-02 03:04:05+00', NULL, %[1]d - 3, NULL, NULL),
			('eng', %[1]d - 1, 0, 2, 'ana', 'Ana', '', '2025-01-02 03:04:05+00', NULL, NULL, true, NULL),
			('eng', %[1]d, 0, 2, 'ana', 'Ana', ' ', '2025-01-02 03:04:05+00', NULL, NULL, NULL, NULL),
			('ops', 1, 0, 4, 'workflow', 'CI', 'cafe'||chr(769)||' build', '2025-01-02 03:04:05+00', NULL, NULL, NULL, NULL)`, n)); err != nil {
		t.Fatal(err)
	}
	st := openMigrated(t, pool, dsn, 7)
	ana := transcript.Person("ana", "Ana")
	var cafes []transcript.Sequence
	for s := n - 5; s >= 1; s-- {
		if s%1000 == 7 {
			cafes = append(cafes, transcript.Sequence(s))
		}
	}
	for _, c := range []struct {
		desk, text string
		viewer     transcript.Author
		want       []transcript.Sequence
	}{
		{"eng", "row 1", ana, []transcript.Sequence{1}},
		{"eng", fmt.Sprint("row ", n-5), ana, []transcript.Sequence{n - 5}},
		{"eng", "CAFE\u0301", ana, cafes},
		{"eng", "σοφια", ana, []transcript.Sequence{n - 4}},
		{"eng", "σοφια", transcript.Person("raj", "Raj"), nil},
		{"eng", "rota", ana, []transcript.Sequence{n - 3}}, // the row, not its edit
		{"ops", "café", transcript.Operator(), []transcript.Sequence{1}},
	} {
		res, err := st.Log(c.desk).(transcript.Searcher).Search(ctx, transcript.SearchQuery{Text: c.text, Viewer: c.viewer, Limit: 100})
		if err != nil {
			t.Fatalf("search %q: %v", c.text, err)
		}
		var got []transcript.Sequence
		for _, m := range res.Messages {
			got = append(got, m.Seq)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("search %s for %q as %v after the migration: rows %v, want %v", c.desk, c.text, c.viewer, got, c.want)
		}
	}
	var indexed int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM transcript_terms`).Scan(&indexed); err != nil || indexed != n-5+3 {
		t.Errorf("%d rows indexed, %v; want %d (no correction, redacted or blank row)", indexed, err, n-5+3)
	}
	if _, err := st.Append(ctx, "eng", transcript.Message{Author: ana, Content: "after the migration"}); err != nil {
		t.Fatal(err)
	}
	if got := searchSeqs(t, st, "eng", "MIGRATION", ana); !slices.Equal(got, []transcript.Sequence{n + 1}) {
		t.Errorf("search for a word appended after the migration: rows %v, want [%d]", got, n+1)
	}
}

// TestSearchPlans shows, with EXPLAIN ANALYZE on a desk of 50,000 rows beside another as
// large, whose words are analyzed, that no search reads the desk row by row: a common
// word's page, first or in the middle, is found among the newest rows below its bound,
// read backwards on the terms' primary key, within a few rows of the Limit+1 it needs; a
// rare word reads the newest searchRecentRows rows and then asks the GIN index for
// the older rows holding it, this desk's alone (its keys are the desk's), each read once
// and checked; a thread's search reads the thread's rows alone, on the terms' thread
// index. Searches are
// planned with their arguments and without sequential scans, as they are here. The plans are logged
// (go test -v -run TestSearchPlans ./pgstore).
func TestSearchPlans(t *testing.T) {
	t.Parallel()
	_, pool, searchPool := searchPlanStore(t)
	const rows = 50_000
	for _, desk := range []string{"eng", "ops"} {
		msgs := make([]transcript.Message, rows)
		for i := range msgs {
			msgs[i] = loadRow(int64(i + 1))
			if i%5000 == 17 {
				msgs[i].Content += " zanzibar"
			}
		}
		copyDesk(t, pool, desk, msgs)
	}
	const (
		maxSeq = "9223372036854775807"
		ana    = `2, 'ana', '[{"type":"person","id":"ana"}]'`
	)
	root := rows/2 - (rows/2-1)%5 // a root in the middle of the desk
	for _, c := range []searchPlanCase{
		// 10 rows hold the word in each desk, all older than the newest searchRecentRows rows: the index
		// finds 20 entries, their 20 rows are read, 10 of them eng's, whose messages are read.
		{"rare word", pgstore.SearchSQL, fmt.Sprintf("'eng', '{zanzibar}', %s, 0, false, %s, 21, %s", maxSeq, ana, keysLit(t, pool, "eng", "zanzibar")), "transcript_terms_keys", 1 + pgstore.SearchRecentRows + 10 + 10 + 10 + 10, 0},
		{"common word, first page", pgstore.SearchSQL, fmt.Sprintf("'eng', '{lorem}', %s, 0, false, %s, 21, %s", maxSeq, ana, keysLit(t, pool, "eng", "lorem")), "transcript_terms_pkey", 50, 0},
		{"common word, a page in the middle", pgstore.SearchSQL, fmt.Sprintf("'eng', '{lorem,ipsum}', %d, 0, true, 0, '', NULL, 21, %s", rows/2, keysLit(t, pool, "eng", "lorem", "ipsum")), "transcript_terms_pkey", 50, 0},
		{"a thread", pgstore.SearchThreadSQL, fmt.Sprintf("'eng', '{lorem}', %s, %d, false, %s, 21, %s", maxSeq, root, ana, keysLit(t, pool, "eng", "lorem")), "transcript_terms_thread", 50, 0},
	} {
		t.Run(c.name, func(t *testing.T) { checkSearchPlan(t, searchPool, c) })
	}
}

// searchPlanStore returns a new store, a pool on its database, and a pool whose sessions
// have the settings of a search's transaction (searchBegin), but plan_cache_mode, which
// explain sets.
func searchPlanStore(t *testing.T) (*pgstore.Store, *pgxpool.Pool, *pgxpool.Pool) {
	t.Helper()
	st, dsn := openStore(t)
	return st, connect(t, dsn), connect(t, withParam(withParam(dsn, "enable_seqscan", "off"), "max_parallel_workers_per_gather", "0"))
}

// searchPlanCase is a search whose plan checkSearchPlan checks.
type searchPlanCase struct {
	name, sql, args string
	index           string  // an index the plan must scan
	maxRows         float64 // the most index entries and rows its scans of tables and indexes may read
	maxTableRows    float64 // if not 0, the most rows its scans of tables may read (a bitmap's index entries aside)
}

// checkSearchPlan runs EXPLAIN ANALYZE on c's search on pool, under force_custom_plan as a
// search's transaction plans it, logs the plan, and fails t on a sequential scan, a plan
// without c.index, or more rows read than c allows.
func checkSearchPlan(t *testing.T, pool *pgxpool.Pool, c searchPlanCase) {
	t.Helper()
	text, plan := explain(t, pool, "force_custom_plan", c.sql, c.args)
	t.Logf("%s:\n%s", c.name, text)
	var read, tableRows float64
	found := false
	for _, s := range plan.scans() {
		if s.NodeType == "Seq Scan" {
			t.Errorf("a sequential scan of %s", s.RelationName)
		}
		found = found || s.IndexName == c.index
		if s.RelationName != "" || s.IndexName != "" { // not a scan of a CTE's rows, read already
			read += s.ActualRows * max(s.ActualLoops, 1)
		}
		if s.RelationName != "" {
			tableRows += s.ActualRows * max(s.ActualLoops, 1)
		}
	}
	if !found {
		t.Errorf("no scan of %s in the plan", c.index)
	}
	if c.maxRows != 0 && read > c.maxRows {
		t.Errorf("the plan read %v rows, want at most %v", read, c.maxRows)
	}
	if c.maxTableRows != 0 && tableRows > c.maxTableRows {
		t.Errorf("the plan read %v rows of tables, want at most %v", tableRows, c.maxTableRows)
	}
}

// keysLit returns the keys a search of desk for terms sends ($10 of pgstore.SearchSQL), as
// an SQL literal.
func keysLit(t *testing.T, pool *pgxpool.Pool, desk string, terms ...string) string {
	t.Helper()
	key, err := pgstore.SearchKeyOf(t.Context(), pool)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i, k := range pgstore.TermKeys(key, desk, terms) {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, k)
	}
	return "'{" + b.String() + "}'"
}
