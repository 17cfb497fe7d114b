package pgstore_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/pgstore"
)

// TestSearchOlderWindows: on a desk of 50,000 rows whose word "hist" is in every row but
// the newest 10,000, beside a desk holding it in every row, a search reads the older rows in
// bounded windows of the desk, not every row of the database holding the word: its first
// page reads the newest searchRecentRows rows, at most searchProbeRows+1 of the GIN index's rows (enough to know
// the word is common) and the first window's rows down to the page. A word in a few of the
// desk's rows and every row of the other desk is found in every window, down to row 1, in
// order.
func TestSearchOlderWindows(t *testing.T) {
	t.Parallel()
	st, pool, searchPool := searchPlanStore(t)
	const rows = 50_000
	for _, desk := range []string{"eng", "ops"} {
		msgs := make([]transcript.Message, rows)
		for i := range msgs {
			seq := int64(i + 1)
			msgs[i] = loadRow(seq)
			if desk == "ops" || seq <= rows-10_000 {
				msgs[i].Content += " hist"
			}
			if desk == "ops" || seq%3000 == 1 {
				msgs[i].Content += " quux"
			}
		}
		copyDesk(t, pool, desk, msgs)
	}
	const maxSeq = "9223372036854775807"
	checkSearchPlan(t, searchPool, searchPlanCase{
		name: "a word common in the desk's older rows",
		sql:  pgstore.SearchSQL, args: fmt.Sprintf("'eng', '{hist}', %s, 0, true, 0, '', NULL, 21, %s", maxSeq, keysLit(t, pool, "eng", "hist")),
		index:        "transcript_terms_pkey",
		maxTableRows: 1 + pgstore.SearchRecentRows + pgstore.SearchProbeRows + 1 + (10_000 - pgstore.SearchRecentRows + 21) + 21, // the desk's head, recent, the probe, the window to the page, the messages
	})

	var want []transcript.Sequence
	for s := rows - 10_000; s > rows-10_000-20; s-- {
		want = append(want, transcript.Sequence(s))
	}
	if got := searchSeqs(t, st, "eng", "hist", transcript.Operator()); !slices.Equal(got, want) {
		t.Errorf("first page of hist: rows %v, want %v", got, want)
	}
	want = nil
	for s := rows; s >= 1; s-- {
		if s%3000 == 1 {
			want = append(want, transcript.Sequence(s))
		}
	}
	if got := searchSeqs(t, st, "eng", "quux", transcript.Operator()); !slices.Equal(got, want) {
		t.Errorf("search for quux, in every window: rows %v, want %v", got, want)
	}
}

// TestSearchPlansNeverAnalyzed: on tables never analyzed (autovacuum off, rows inserted in
// SQL), a search reads at most the newest searchRecentRows rows of the desk below its bound, whatever
// the planner guesses: a common word's first page reads a few rows, a rare word those
// rows and the GIN index's few.
func TestSearchPlansNeverAnalyzed(t *testing.T) {
	t.Parallel()
	_, pool, searchPool := searchPlanStore(t)
	const rows = 50_000
	if _, err := pool.Exec(t.Context(), fmt.Sprintf(`
		ALTER TABLE transcript_messages SET (autovacuum_enabled = off);
		ALTER TABLE transcript_terms SET (autovacuum_enabled = off);
		INSERT INTO transcript_desks (name, head) VALUES ('eng', %[1]d), ('ops', %[1]d);
		INSERT INTO transcript_messages (desk, seq, parent, author_kind, author_id, author_label, content, at)
			SELECT d, s, 0, 2, 'ana', 'Ana', CASE WHEN s %% 5000 = 17 THEN 'lorem ' || s || ' zanzibar' ELSE 'lorem ' || s END, '2025-01-02 03:04:05+00'
			FROM unnest(ARRAY['eng', 'ops']) AS d, generate_series(1, %[1]d) AS s`, rows)); err != nil {
		t.Fatal(err)
	}
	tx, err := pool.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(t.Context())
	for _, desk := range []string{"eng", "ops"} {
		copyTerms(t, tx, desk, rows, func(i int) transcript.Message {
			m := transcript.Message{Seq: transcript.Sequence(i + 1), Content: fmt.Sprint("lorem ", i+1)}
			if (i+1)%5000 == 17 {
				m.Content += " zanzibar"
			}
			return m
		})
	}
	if err := tx.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	var analyzed bool
	if err := pool.QueryRow(t.Context(), `SELECT reltuples >= 0 FROM pg_class WHERE relname = 'transcript_terms'`).Scan(&analyzed); err != nil || analyzed {
		t.Fatalf("transcript_terms analyzed: %v, %v; the test needs it never analyzed", analyzed, err)
	}
	const maxSeq = "9223372036854775807"
	for _, c := range []searchPlanCase{
		{"common word, first page", pgstore.SearchSQL, fmt.Sprintf("'eng', '{lorem}', %s, 0, true, 0, '', NULL, 21, %s", maxSeq, keysLit(t, pool, "eng", "lorem")), "transcript_terms_pkey", 0, 1 + pgstore.SearchRecentRows + 21},
		{"common word, a page in the middle", pgstore.SearchSQL, fmt.Sprintf("'eng', '{lorem}', %d, 0, true, 0, '', NULL, 21, %s", rows/2, keysLit(t, pool, "eng", "lorem")), "transcript_terms_pkey", 0, 1 + pgstore.SearchRecentRows + 21},
		{"rare word", pgstore.SearchSQL, fmt.Sprintf("'eng', '{zanzibar}', %s, 0, true, 0, '', NULL, 21, %s", maxSeq, keysLit(t, pool, "eng", "zanzibar")), "transcript_terms_keys", 0, 1 + pgstore.SearchRecentRows + 10 + 10},
	} {
		t.Run(c.name, func(t *testing.T) { checkSearchPlan(t, searchPool, c) })
	}
}
