package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

// pageDigestSQL is readBeforeSQL ($1, $2, $3) and digestSQL of conversation $4 below $5 in
// one statement, one snapshot: the digest is a row of the page's columns ahead of the
// page's rows, its seq 0 (which no message has) and, in order, its through as parent,
// digester as author_id, text as content, row_count as corrects and generation as revised
// (digestOfRow). The row is there, with generation 0, when the conversation has no digest
// below $5. Its parameters are subqueries, as readBeforeSQL's are, and for the same reason.
// PostgreSQL runs a UNION ALL's branches in turn, so the row comes first; were it to come
// later, after a scan that ends at PageBytes, ReadBeforeDigest reads the digest on its own.
// pageDigestGatedSQL is the same gated on the token of hash $6 (tokenGate's condition on
// $6), which PostgreSQL probes once for both parts: the statement reads nothing of the desk
// unless the token is good, and the digest's row is there exactly when it is.
const (
	pageDigestSQL      = `(` + pageDigestLead + `)` + pageDigestPage + readBeforeOrder + `)`
	pageDigestGatedSQL = `SELECT * FROM (` + pageDigestSQL + `) AS r WHERE ` + tokenGateOn + `$6` + tokenGateEnd
	pageDigestLead     = `
SELECT 0::bigint, coalesce(d.through, 0), 0::smallint, coalesce(d.digester, ''), ''::text, coalesce(d.content, ''),
       'epoch'::timestamptz, NULL::text, NULL::text, coalesce(d.row_count, 0), NULL::boolean, coalesce(d.generation, 0)::bigint
FROM (SELECT) AS one
LEFT JOIN (
	SELECT generation, through, row_count, digester, content
	FROM transcript_digests
	WHERE desk = (SELECT $1::text) AND thread = (SELECT $4::bigint) AND through < (SELECT $5::bigint)
	ORDER BY through DESC
	LIMIT 1
) AS d ON true
`
	pageDigestPage = `
UNION ALL
(` + readBeforeWhere
)

// digestOfRow is the digest of c that m, pageDigestSQL's digest row, holds, and false when
// it holds none.
func digestOfRow(c transcript.Conversation, m transcript.Message) (transcript.Digest, bool) {
	if m.Revised == 0 {
		return transcript.Digest{}, false
	}
	return transcript.Digest{
		Conversation: c,
		Generation:   int(m.Revised),
		Through:      m.Parent,
		Rows:         int(m.Corrects),
		Digester:     m.Author.ID,
		Text:         m.Content,
	}, true
}

// ReadBeforeDigest is ReadBefore(ctx, before, limit) and, once its read has answered,
// Digest(ctx, c, below), whose answer it passes to digest before it returns, when the page
// was read. When the page's rows are read from the primary (the Store has no standbys and
// the Log holds no rows read ahead for the read), both are one statement (pageDigestSQL),
// whose digest sees exactly the rows the page saw, gated on a token ctx carries to settle
// (SettlesPending); the digest's row settles it. Otherwise the digest is read after the
// page, as Digest reads it.
func (l *deskLog) ReadBeforeDigest(ctx context.Context, before transcript.Sequence, limit int, c transcript.Conversation, below transcript.Sequence, digest func(transcript.Digest, bool, error)) (transcript.Page, error) {
	if err := storage.CheckDigestDesk(l.desk, c); err != nil || l.s.replicas.active() {
		page, err := l.ReadBefore(ctx, before, limit)
		if err == nil {
			digest(l.Digest(ctx, c, below))
		}
		return page, err
	}
	answered := false
	page, err := l.readBefore(ctx, before, limit, func(ctx context.Context, before transcript.Sequence, n int) ([]transcript.Message, error) {
		l.s.hooks.reads.Add(1)
		msgs, lead, err := readPageDigest(ctx, l.s.pool, &l.s.audiences, pageDigestArgs{l.desk, upperBound(before), n, c, below})
		switch {
		case err != nil:
			return nil, err
		case lead != nil:
			d, ok := digestOfRow(c, *lead)
			digest(d, ok, nil)
			answered = true
		case len(msgs) == 0:
			// The token's gate stopped the statement (only a gated statement answers neither
			// the digest's row nor a row): the token is not good, so the view is refused and
			// its digest never used.
			digest(transcript.Digest{}, false, nil)
			answered = true
		}
		return msgs, nil
	})
	if err == nil && !answered {
		digest(l.Digest(ctx, c, below))
	}
	return page, err
}

// pageDigestArgs are a pageDigestSQL read's: a page of up to n rows of desk below bound,
// and the digest of c below below.
type pageDigestArgs struct {
	desk  string
	bound int64
	n     int
	c     transcript.Conversation
	below transcript.Sequence
}

// readPageDigest runs pageDigestSQL, or its gated form when ctx carries a token to settle
// (pendingOf), on pool: the page's rows, scanned as scanPage does, and the digest's row:
// nil when the token's gate stopped the statement, or the scan ended before the row. A
// page of rows or the digest's row settles the token as good.
func readPageDigest(ctx context.Context, pool *pgxpool.Pool, audiences *audienceCache, a pageDigestArgs) ([]transcript.Message, *transcript.Message, error) {
	pending := pendingOf(ctx)
	sql, args := pageDigestSQL, []any{a.desk, a.bound, a.n, int64(a.c.Thread), upperBound(a.below)}
	if pending.p != nil {
		sql, args = pageDigestGatedSQL, append(args, pending.hash)
	}
	rows, err := pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, nil, err
	}
	var lead *transcript.Message
	msgs, err := scanRowsUpTo(rows, pageRows(a.n), audiences, transcript.PageBytes, func(m transcript.Message) { lead = &m })
	if err != nil {
		return nil, nil, err
	}
	if lead != nil || len(msgs) > 0 {
		pending.good()
	}
	return msgs, lead, nil
}
