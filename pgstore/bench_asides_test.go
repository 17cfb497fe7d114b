package pgstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/benchdesk"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/pgstore"
)

// asideDeskRows is the size of BenchmarkChannelAsides' desks.
const asideDeskRows = 100_000

// streamDesk returns the rows of a desk of n rows cut from benchdesk.Stream, oldest first,
// with about percent of them asides (benchdesk.Asides; none for 0).
func streamDesk(n, percent int) []transcript.Message {
	start := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	msgs := make([]transcript.Message, n)
	for i, row := range benchdesk.Stream(n) {
		msgs[i] = transcript.Message{
			Seq:     transcript.Sequence(i + 1),
			Parent:  transcript.Sequence(row.Parent),
			Author:  benchdesk.Authors[row.Author],
			Content: row.Text(),
			At:      start.Add(time.Duration(i) * time.Second),
		}
	}
	if percent > 0 {
		benchdesk.Asides(msgs, percent)
	}
	return msgs
}

// benchStreamDesk returns the name of the benchmark database's desk of streamDesk(n,
// percent), loading it with COPY on first use; n is no more than benchdesk.Rows allows.
func benchStreamDesk(b *testing.B, n, percent int) (string, []transcript.Message) {
	b.Helper()
	n = benchdesk.Rows(b, n)
	msgs := streamDesk(n, percent)
	desk := fmt.Sprintf("stream-%d-asides-%d", n, percent)
	loadBenchDesk(b, desk, n, func() []transcript.Message { return msgs })
	return desk, msgs
}

// loadBenchDesk loads the rows that rows returns into desk of the benchmark database with
// COPY (copyDesk), unless the desk holds them already: n rows.
func loadBenchDesk(b *testing.B, desk string, n int, rows func() []transcript.Message) {
	b.Helper()
	_, pool := benchStore(b)
	var head int64
	err := pool.QueryRow(context.Background(), `SELECT coalesce(max(head), 0) FROM transcript_desks WHERE name = $1`, desk).Scan(&head)
	switch {
	case err != nil:
		b.Fatal(err)
	case head == 0:
		start := time.Now()
		copyDesk(b, pool, desk, rows())
		b.Logf("loaded desk %s with COPY in %v", desk, time.Since(start).Round(time.Millisecond))
	case head != int64(n):
		b.Fatalf("desk %s of the benchmark database holds %d rows, want %d", desk, head, n)
	}
}

// copyDesk bulk-loads msgs, numbered from 1, into desk with COPY, audiences, keys and
// terms included, and analyzes the tables.
func copyDesk(tb testing.TB, pool *pgxpool.Pool, desk string, msgs []transcript.Message) {
	tb.Helper()
	copyRows(tb, pool, desk, msgs, true)
}

// copyMessages is copyDesk without the terms: the rows as a store before search, or before
// a rebuild of its index, holds them.
func copyMessages(tb testing.TB, pool *pgxpool.Pool, desk string, msgs []transcript.Message) {
	tb.Helper()
	copyRows(tb, pool, desk, msgs, false)
}

// copyRows is copyDesk, with the terms when terms is set.
func copyRows(tb testing.TB, pool *pgxpool.Pool, desk string, msgs []transcript.Message, terms bool) {
	tb.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `INSERT INTO transcript_desks (name, head) VALUES ($1, $2)`, desk, len(msgs)); err != nil {
		tb.Fatal(err)
	}
	cols := []string{"desk", "seq", "parent", "author_kind", "author_id", "author_label", "content", "at", "audience", "key", "corrects", "redacted", "revised"}
	src := pgx.CopyFromSlice(len(msgs), func(i int) ([]any, error) {
		m := msgs[i]
		var audience any // NULL: a desk row
		if m.IsAside() {
			enc, err := pgstore.EncodeAudience(m.Audience)
			if err != nil {
				return nil, err
			}
			audience = enc
		}
		var key any // NULL: no key
		if m.Key != "" {
			key = m.Key
		}
		var corrects, redacted, revised any // NULL: no correction, not redacted, never corrected
		if m.Corrects != 0 {
			corrects = int64(m.Corrects)
		}
		if m.Redacted {
			redacted = true
		}
		if m.Revised != 0 {
			revised = int64(m.Revised)
		}
		return []any{desk, int64(m.Seq), int64(m.Parent), int16(m.Author.Kind), m.Author.ID, m.Author.Label, m.Content, m.At, audience, key, corrects, redacted, revised}, nil
	})
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"transcript_messages"}, cols, src); err != nil {
		tb.Fatal(err)
	}
	if terms {
		copyTerms(tb, tx, desk, len(msgs), func(i int) transcript.Message { return msgs[i] })
	}
	if err := tx.Commit(ctx); err != nil {
		tb.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `VACUUM ANALYZE transcript_messages, transcript_terms`); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkChannelAsides: the channel view (newest 30) of a 100,000-row desk cut from
// benchdesk.Stream through the store with transcript.Project, for benchdesk.Outsider, on the
// desk without asides and on the same desk with 20% of it asides the Outsider may not read
// (benchdesk.Asides), whose view also elides them; and, on the desk of asides, for the
// operator, who reads everything. Each view is checked against the same projection over
// memlog first. rows, reads and elisions are the last call's Scanned, Reads and
// len(Elided).
func BenchmarkChannelAsides(b *testing.B) {
	for _, c := range []struct {
		name    string
		percent int
		viewer  transcript.Author
	}{
		{"asides=0/viewer=outsider", 0, benchdesk.Outsider},
		{"asides=20/viewer=outsider", 20, benchdesk.Outsider},
		{"asides=20/viewer=operator", 20, transcript.Operator()},
	} {
		b.Run(c.name, func(b *testing.B) {
			st, _ := benchStore(b)
			desk, msgs := benchStreamDesk(b, asideDeskRows, c.percent)
			ctx := context.Background()
			q := transcript.Query{Conversation: transcript.Conversation{Desk: desk}, Viewer: c.viewer}
			mem, err := memlog.From(msgs)
			if err != nil {
				b.Fatal(err)
			}
			want, err := transcript.Project(ctx, mem, q)
			if err != nil {
				b.Fatal(err)
			}
			got, err := transcript.Project(ctx, st.Log(desk), q)
			if err != nil {
				b.Fatal(err)
			}
			ignore := cmpopts.IgnoreFields(transcript.Projection{}, "Reads", "Scanned")
			if diff := cmp.Diff(want, got, ignore); diff != "" {
				b.Fatalf("the store's projection disagrees with memlog's (-memlog +store):\n%s", diff)
			}
			var p transcript.Projection
			for b.Loop() {
				if p, err = transcript.Project(ctx, st.Log(desk), q); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(p.Scanned), "rows")
			b.ReportMetric(float64(p.Reads), "reads")
			b.ReportMetric(float64(len(p.Elided)), "elisions")
		})
	}
}

// BenchmarkChannelAsidesPaired projects the Outsider's channel view of the desk without
// asides and of the desk with 20% asides alternately, one call of each per iteration, and
// reports each one's time per call and their ratio: on a shared machine both see the same
// stretches of load, so the ratio holds still where BenchmarkChannelAsides' times spread.
func BenchmarkChannelAsidesPaired(b *testing.B) {
	st, _ := benchStore(b)
	plain, _ := benchStreamDesk(b, asideDeskRows, 0)
	asides, _ := benchStreamDesk(b, asideDeskRows, 20)
	ctx := context.Background()
	view := func(desk string) {
		q := transcript.Query{Conversation: transcript.Conversation{Desk: desk}, Viewer: benchdesk.Outsider}
		if _, err := transcript.Project(ctx, st.Log(desk), q); err != nil {
			b.Fatal(err)
		}
	}
	var plainTime, asidesTime time.Duration
	for b.Loop() {
		start := time.Now()
		view(plain)
		mid := time.Now()
		view(asides)
		plainTime += mid.Sub(start)
		asidesTime += time.Since(mid)
	}
	b.ReportMetric(float64(plainTime.Nanoseconds())/float64(b.N), "plain-ns/op")
	b.ReportMetric(float64(asidesTime.Nanoseconds())/float64(b.N), "asides-ns/op")
	b.ReportMetric(float64(asidesTime)/float64(plainTime), "asides/plain")
}

// BenchmarkAppendReply: the latency of one Append of a reply to a stored row, which reads
// its parent's author and audience under the desk's lock, in the first of its two round
// trips: a reply to a desk row, and a reply to an aside, whose audience the reply rule fills
// in. BenchmarkAppend is the same for a root, which reads no parent.
func BenchmarkAppendReply(b *testing.B) {
	for _, c := range []struct {
		name   string
		parent transcript.Message
	}{
		{"parent=desk-row", transcript.Message{Author: alice, Content: "root"}},
		{"parent=aside", transcript.Message{Author: alice, Content: "root", Audience: []transcript.Author{bot}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			st, _ := benchStore(b)
			ctx := context.Background()
			desk := fmt.Sprintf("reply-%d", rand.Uint64())
			parent, err := st.Append(ctx, desk, c.parent)
			if err != nil {
				b.Fatal(err)
			}
			m := loadRow(2)
			m.Parent, m.Seq, m.At, m.Author = parent.Seq, 0, time.Time{}, bot
			for b.Loop() {
				if _, err := st.Append(ctx, desk, m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
