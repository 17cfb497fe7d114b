package pgstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript"
)

// The desk shape the EXPLAIN tests and the benchmarks load: every fifth row a root, the
// others direct replies to one of the three newest roots, every fifth a reply to a reply,
// about one row in 37 blank, contents of ~120 bytes.
var loadAuthors = []transcript.Author{
	transcript.Operator(),
	transcript.Person("ana", "Ana Lima"),
	transcript.Agent("triage", "Triage bot"),
	transcript.Agent("writer", "Writer"),
	transcript.System("workflow", "CI"),
}

var loadEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// loadRow returns row seq of a loaded desk.
func loadRow(seq int64) transcript.Message {
	m := transcript.Message{
		Seq:    transcript.Sequence(seq),
		Author: loadAuthors[seq%int64(len(loadAuthors))],
		At:     loadEpoch.Add(time.Duration(seq) * time.Second),
	}
	root := seq - (seq-1)%5 // the root of seq's block of five
	switch {
	case seq == root:
		// a root
	case seq%5 == 4:
		m.Parent = transcript.Sequence(seq - 1) // a reply to the reply before it
	default:
		m.Parent = transcript.Sequence(max(1, root-5*(seq*7%3))) // one of the three newest roots
	}
	if seq%37 == 0 {
		m.Content = " \n "
	} else {
		m.Content = fmt.Sprintf("message %d: %s", seq, strings.Repeat("lorem ipsum ", 9))
	}
	return m
}

// loadDesk bulk-loads rows 1..n of loadRow into desk with COPY, as if appended (their terms
// too), and analyzes the tables so the planner knows their size.
func loadDesk(tb testing.TB, pool *pgxpool.Pool, desk string, n int64) {
	tb.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `INSERT INTO transcript_desks (name, head) VALUES ($1, $2)`, desk, n); err != nil {
		tb.Fatal(err)
	}
	seq := int64(0)
	src := pgx.CopyFromFunc(func() ([]any, error) {
		if seq == n {
			return nil, nil
		}
		seq++
		m := loadRow(seq)
		return []any{desk, seq, int64(m.Parent), int16(m.Author.Kind), m.Author.ID, m.Author.Label, m.Content, m.At}, nil
	})
	cols := []string{"desk", "seq", "parent", "author_kind", "author_id", "author_label", "content", "at"}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"transcript_messages"}, cols, src); err != nil {
		tb.Fatal(err)
	}
	copyTerms(tb, tx, desk, int(n), func(i int) transcript.Message { return loadRow(int64(i + 1)) })
	if err := tx.Commit(ctx); err != nil {
		tb.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `VACUUM ANALYZE transcript_messages, transcript_terms`); err != nil {
		tb.Fatal(err)
	}
}
