package pgstore_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/pgstore"
)

// progressLog records a rebuild's progress reports.
type progressLog struct {
	mu    sync.Mutex
	calls [][2]int64
}

func (p *progressLog) report(done, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, [2]int64{done, total})
}

// check fails t unless the reports run from 0 to total, in order, after each of at least
// batches batches.
func (p *progressLog) check(t *testing.T, total int64, batches int) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.calls) < batches+1 || p.calls[0] != [2]int64{0, total} || p.calls[len(p.calls)-1] != [2]int64{total, total} {
		t.Fatalf("progress reports %v: want from [0 %d] to [%[2]d %[2]d], at least %d of them", p.calls, total, batches+1)
	}
	for i := 1; i < len(p.calls); i++ {
		if p.calls[i][0] < p.calls[i-1][0] || p.calls[i][1] != total {
			t.Fatalf("progress reports %v: not in order", p.calls)
		}
	}
	p.calls = nil
}

// TestMigrateSearchReaders opens a database at schema version 8, whose index holds bare
// terms, with more rows than the rebuild indexes at a time, asides among them, and shows
// Open rebuilding the index keyed by reader set, telling its progress: each viewer finds
// what it may read, an outsider's search for a word of the asides does the work of one for
// a word in no row, and the rows are unchanged. An index built with other Terms tables
// (transcript_terms_version) is rebuilt at the next Open.
func TestMigrateSearchReaders(t *testing.T) {
	t.Parallel()
	dsn := newDatabase(t)
	pool := connect(t, dsn)
	ctx := t.Context()
	if err := pgstore.MigrateTo(ctx, pool, 8); err != nil {
		t.Fatal(err)
	}
	const n = 12_000 // more than two of the rebuild's batches
	if _, err := pool.Exec(ctx, fmt.Sprintf(`
		INSERT INTO transcript_desks (name, head) VALUES ('eng', %[1]d), ('ops', 2);
		INSERT INTO transcript_messages (desk, seq, parent, author_kind, author_id, author_label, content, at, audience)
			SELECT 'eng', s, CASE WHEN s %% 2 = 0 THEN s - 1 ELSE 0 END, 3, 'alice', 'Alice',
				CASE WHEN s %% 2 = 0 THEN 'acmecorp deal ' || s ELSE 'status ' || s END, '2025-01-02 03:04:05+00',
				CASE WHEN s %% 2 = 0 THEN '[{"type":"agent","id":"bob","label":"Bob"}]' END
			FROM generate_series(1, %[1]d) AS s;
		INSERT INTO transcript_messages (desk, seq, parent, author_kind, author_id, author_label, content, at, audience) VALUES
			('ops', 1, 0, 3, 'bob', 'Bob', 'acmecorp ops', '2025-01-02 03:04:05+00', '[{"type":"agent","id":"alice"}]'),
			('ops', 2, 0, 3, 'eve', 'Eve', 'globex', '2025-01-02 03:04:05+00', NULL);
		INSERT INTO transcript_terms (desk, seq, terms)
			SELECT desk, seq, string_to_array(content, ' ') FROM transcript_messages`, n)); err != nil {
		t.Fatal(err)
	}
	var progress progressLog
	st, err := pgstore.Open(ctx, dsn, pgstore.WithIndexProgress(progress.report))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	progress.check(t, n+2, 2)
	var (
		alice = transcript.Agent("alice", "Alice")
		bob   = transcript.Agent("bob", "Bob")
		eve   = transcript.Agent("eve", "Eve")
	)
	check := func(when string) {
		t.Helper()
		for _, c := range []struct {
			desk, text string
			viewer     transcript.Author
			want       []transcript.Sequence
		}{
			{"eng", "deal 2", bob, []transcript.Sequence{2}},
			{"eng", "deal 2", alice, []transcript.Sequence{2}},
			{"eng", "deal 2", transcript.Operator(), []transcript.Sequence{2}},
			{"eng", "deal 2", eve, nil},
			{"eng", "status 11999", eve, []transcript.Sequence{11999}},
			{"ops", "acmecorp", alice, []transcript.Sequence{1}},
			{"ops", "acmecorp", eve, nil},
			{"ops", "globex", eve, []transcript.Sequence{2}},
		} {
			if got := searchSeqs(t, st, c.desk, c.text, c.viewer); !slices.Equal(got, c.want) {
				t.Errorf("%s: search %s for %q as %v: rows %v, want %v", when, c.desk, c.text, c.viewer, got, c.want)
			}
		}
		none := searchWork(t, st, "eng", transcript.SearchQuery{Text: "zzqnowhere", Viewer: eve})
		for _, text := range []string{"acmecorp", "deal", "globex"} {
			if got := searchWork(t, st, "eng", transcript.SearchQuery{Text: text, Viewer: eve}); got != none {
				t.Errorf("%s: eve's search for %q: work %v, want %v, a word in no row's", when, text, got, none)
			}
		}
	}
	check("after the migration")
	if got := searchSeqs(t, st, "eng", "acmecorp", bob); len(got) != 20 || got[0] != n {
		t.Errorf("bob's search for acmecorp: rows %v, want 20 from row %d", got, n)
	}

	if _, err := pool.Exec(ctx, `UPDATE transcript_terms_version SET terms = 'unicode 0.0.0'; DELETE FROM transcript_terms WHERE seq % 3 = 0`); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st, err = pgstore.Open(ctx, dsn, pgstore.WithIndexProgress(progress.report))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	progress.check(t, n+2, 2)
	check("after a rebuild for other Terms tables")
	st.Close()
	if st, err = pgstore.Open(ctx, dsn, pgstore.WithIndexProgress(progress.report)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if len(progress.calls) != 0 {
		t.Errorf("an Open of an index built with these tables reported progress %v: want no rebuild", progress.calls)
	}
}
