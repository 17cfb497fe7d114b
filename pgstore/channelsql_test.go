package pgstore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/pgstore"
)

// The channel view in one hand-written SQL query: what transcript.Project computes through
// the store, for the benchmarks to measure it against. $1 is the desk, $2 the exclusive
// bound (the largest bigint for "newest"), $3 the window. P, the rows a walk may inspect, is
// the newest transcript.ScanLimit rows below $2; a desk's sequences run 1..head without a
// gap, so P is the rows from max(seq) - ScanLimit + 1 up. A root in P has all its replies in
// P (they are newer), so its first reply is its oldest non-blank reply below $2.
//
// notBlank is Message.Blank negated: content holding a rune other than unicode.IsSpace's.
const notBlank = `content !~ '^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$'`

var channelSQL = map[string]string{
	// SQLWindow reads all of P and numbers each root's replies with a window function.
	"SQLWindow": `
WITH p AS (
	SELECT seq, parent, author_kind, author_id, author_label, content, at, audience, key, corrects, redacted, revised
	FROM transcript_messages
	WHERE desk = $1 AND seq < $2
	ORDER BY seq DESC
	LIMIT ` + fmt.Sprint(transcript.ScanLimit) + `
), q AS (
	SELECT p.*, row_number() OVER (PARTITION BY parent ORDER BY seq) AS nth
	FROM p
	WHERE ` + notBlank + `
)
SELECT seq, parent, author_kind, author_id, author_label, content, at, audience, key, corrects, redacted, revised
FROM (
	SELECT * FROM q
	WHERE parent = 0 OR (nth = 1 AND parent IN (SELECT seq FROM p WHERE parent = 0))
	ORDER BY seq DESC
	LIMIT $3
) newest
ORDER BY seq`,

	// SQLLateral finds every root of P with the (desk, parent, seq) index and each root's
	// first reply with a LATERAL lookup in the same index, then keeps the newest $3.
	"SQLLateral": `
WITH low AS (
	SELECT greatest(1, max(seq) - ` + fmt.Sprint(transcript.ScanLimit-1) + `) AS seq
	FROM transcript_messages WHERE desk = $1 AND seq < $2
), roots AS (
	SELECT m.* FROM transcript_messages m, low
	WHERE m.desk = $1 AND m.parent = 0 AND m.seq >= low.seq AND m.seq < $2
), candidates AS (
	SELECT seq, parent, author_kind, author_id, author_label, content, at, audience, key, corrects, redacted, revised FROM roots
	WHERE ` + notBlank + `
	UNION ALL
	SELECT f.seq, f.parent, f.author_kind, f.author_id, f.author_label, f.content, f.at, f.audience, f.key, f.corrects, f.redacted, f.revised
	FROM roots r CROSS JOIN LATERAL (
		SELECT * FROM transcript_messages f
		WHERE f.desk = $1 AND f.parent = r.seq AND f.seq < $2 AND ` + notBlank + `
		ORDER BY f.seq
		LIMIT 1
	) f
)
SELECT * FROM (SELECT * FROM candidates ORDER BY seq DESC LIMIT $3) newest
ORDER BY seq`,

	// SQLExists walks the desk down from $2 with the (desk, seq) index, as Project does, and
	// stops after $3 qualifying rows: a root qualifies outright, a reply when its parent is a
	// root in P and no older non-blank reply shares its parent (two index probes). The CASE
	// keeps the planner from turning "parent = 0 OR ..." into a bitmap scan of the thread
	// index, which reads all of P (and is slower) on a small desk.
	"SQLExists": `
SELECT * FROM (
	SELECT m.seq, m.parent, m.author_kind, m.author_id, m.author_label, m.content, m.at, m.audience, m.key, m.corrects, m.redacted, m.revised
	FROM transcript_messages m
	WHERE m.desk = $1 AND m.seq < $2
	  AND m.seq >= (SELECT greatest(1, max(seq) - ` + fmt.Sprint(transcript.ScanLimit-1) + `)
	                FROM transcript_messages WHERE desk = $1 AND seq < $2)
	  AND m.` + notBlank + `
	  AND CASE WHEN m.parent = 0 THEN true ELSE
		m.parent >= (SELECT greatest(1, max(seq) - ` + fmt.Sprint(transcript.ScanLimit-1) + `)
		             FROM transcript_messages WHERE desk = $1 AND seq < $2)
		AND (SELECT r.parent FROM transcript_messages r WHERE r.desk = $1 AND r.seq = m.parent) = 0
		AND NOT EXISTS (SELECT FROM transcript_messages o
		                WHERE o.desk = $1 AND o.parent = m.parent AND o.seq < m.seq AND o.` + notBlank + `)
	  END
	ORDER BY m.seq DESC
	LIMIT $3
) newest
ORDER BY seq`,

	// SQLBounded is SQLExists that also skips everything below R, the $3-th newest
	// non-blank root of P (found on the (desk, parent, seq) index): the $3 newest roots all
	// qualify, so no row below R can be among the newest $3 (sqlitestore's fastest query).
	"SQLBounded": `
SELECT * FROM (
	SELECT m.seq, m.parent, m.author_kind, m.author_id, m.author_label, m.content, m.at, m.audience, m.key, m.corrects, m.redacted, m.revised
	FROM transcript_messages m
	WHERE m.desk = $1 AND m.seq < $2
	  AND m.seq >= (SELECT greatest(1, max(seq) - ` + fmt.Sprint(transcript.ScanLimit-1) + `)
	                FROM transcript_messages WHERE desk = $1 AND seq < $2)
	  AND m.seq >= (SELECT coalesce(min(seq), 0) FROM (
		SELECT seq FROM transcript_messages
		WHERE desk = $1 AND parent = 0 AND seq < $2 AND ` + notBlank + `
		ORDER BY seq DESC LIMIT $3) newest_roots)
	  AND m.` + notBlank + `
	  AND CASE WHEN m.parent = 0 THEN true ELSE
		m.parent >= (SELECT greatest(1, max(seq) - ` + fmt.Sprint(transcript.ScanLimit-1) + `)
		             FROM transcript_messages WHERE desk = $1 AND seq < $2)
		AND (SELECT r.parent FROM transcript_messages r WHERE r.desk = $1 AND r.seq = m.parent) = 0
		AND NOT EXISTS (SELECT FROM transcript_messages o
		                WHERE o.desk = $1 AND o.parent = m.parent AND o.seq < m.seq AND o.` + notBlank + `)
	  END
	ORDER BY m.seq DESC
	LIMIT $3
) newest
ORDER BY seq`,
}

// channelSQLNames is channelSQL's keys in a fixed order.
var channelSQLNames = []string{"SQLWindow", "SQLLateral", "SQLExists", "SQLBounded"}

// queryChannel runs one of channelSQL for desk's channel view below before (0: newest).
func queryChannel(ctx context.Context, pool *pgxpool.Pool, query, desk string, before transcript.Sequence, window int) ([]transcript.Message, error) {
	bound := int64(1<<63 - 1)
	if before != 0 {
		bound = int64(before)
	}
	rows, err := pool.Query(ctx, query, desk, bound, window)
	if err != nil {
		return nil, err
	}
	return scanMessages(rows)
}

// scanMessages reads rows of (seq, parent, author_kind, author_id, author_label, content, at,
// audience) the way ReadBefore does.
func scanMessages(rows pgx.Rows) ([]transcript.Message, error) { return pgstore.ScanMessages(rows) }

// TestChannelSQL shows that each hand-written channel query returns what transcript.Project
// returns through the store, on a desk busier than ScanLimit with blank rows (Unicode white
// space among them), for several bounds and windows: the benchmarks compare like with like.
func TestChannelSQL(t *testing.T) {
	t.Parallel()
	st, dsn := openStore(t)
	pool := connect(t, dsn)
	ctx := t.Context()
	loadDesk(t, pool, "eng", 3000)
	for i, c := range []string{"\u00a0", "\u3000 \u2028", "\t\v\f\r\n", "\u200b", "x"} {
		root, err := st.Append(ctx, "eng", transcript.Message{Author: alice, Content: "root"})
		if err != nil {
			t.Fatal(err)
		}
		for j := range 2 {
			content := c
			if j == 1 {
				content = fmt.Sprint("reply ", i)
			}
			if _, err := st.Append(ctx, "eng", transcript.Message{Parent: root.Seq, Author: bot, Content: content}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, before := range []transcript.Sequence{0, 3016, 3010, 3000, 2999, 2050, 2048, 2000, 100, 2, 1} {
		for _, window := range []int{1, 5, 30, 200} {
			p, err := transcript.Project(ctx, st.Log("eng"), transcript.Query{Conversation: transcript.Conversation{Desk: "eng"}, Before: before, Window: window})
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range channelSQLNames {
				got, err := queryChannel(ctx, pool, channelSQL[name], "eng", before, window)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if diff := cmp.Diff(p.Messages, got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("%s before %d window %d, against Project (-project +sql):\n%s", name, before, window, diff)
				}
			}
		}
	}
}

// TestNotBlankMatchesMessageBlank: the SQL notBlank predicate agrees with Message.Blank.
func TestNotBlankMatchesMessageBlank(t *testing.T) {
	t.Parallel()
	pool := adminPool(t)
	contents := []string{"", " ", "\t\n\v\f\r", "\u0085", "\u00a0", "\u1680", "\u2000\u200a", "\u2028\u2029",
		"\u202f\u205f\u3000", "\u200b", "\ufeff", "x", " x ", "\u001c", "\u180e", "é"}
	var chars []string
	for r := rune(0x01); r < 0x3100; r++ { // every code point up to past U+3000, but NUL
		if r >= 0xd800 && r < 0xe000 {
			continue
		}
		chars = append(chars, string(r))
	}
	contents = append(contents, chars...)
	rows, err := pool.Query(t.Context(), `SELECT `+notBlank+` FROM unnest($1::text[]) AS t(content)`, contents)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for i := 0; rows.Next(); i++ {
		var notBlank bool
		if err := rows.Scan(&notBlank); err != nil {
			t.Fatal(err)
		}
		if blank := (transcript.Message{Content: contents[i]}).Blank(); notBlank == blank {
			t.Errorf("%q: SQL says blank=%v, Message.Blank says %v", contents[i], !notBlank, blank)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}
