package sqlitestore

// The baselines the store's channel projection is measured against: loading the whole desk
// and filtering in Go, and hand-written SQL queries that return the same view (the newest
// SessionWindow rows of roots and first replies within the newest ScanLimit rows, Before 0).
// The SQL treats ASCII white space as blank, as the benchmark desks do; TestBaselinesAgree
// checks that every baseline returns what transcript.Project returns.

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/sharedesk/transcript"
)

// sqlBlank is the SQL of "content is blank" for ASCII white space.
const sqlBlank = `trim(%s, ' ' || char(9, 10, 11, 12, 13)) = ''`

func blankSQL(col string) string { return fmt.Sprintf(sqlBlank, col) }

// The hand-written channel views. Each takes the desk's name as ?1 and returns the view's
// rows newest first.
var channelSQL = map[string]string{
	// window: P materialized (the newest 2048 rows), first replies by row_number over the
	// replies of P's roots.
	"window": fmt.Sprintf(`
WITH p AS MATERIALIZED (
  SELECT seq, parent, author, content, at_us, %s AS blank
  FROM messages
  WHERE desk = (SELECT id FROM desks WHERE name = ?1)
  ORDER BY seq DESC LIMIT %d
),
firsts AS (
  SELECT seq, row_number() OVER (PARTITION BY parent ORDER BY seq) AS n
  FROM p
  WHERE NOT blank AND parent IN (SELECT seq FROM p WHERE parent = 0)
)
SELECT p.seq, p.parent, a.kind, a.ident, a.label, p.content, p.at_us
FROM p JOIN authors a ON a.id = p.author
WHERE NOT p.blank AND (p.parent = 0 OR p.seq IN (SELECT seq FROM firsts WHERE n = 1))
ORDER BY p.seq DESC LIMIT %d`, blankSQL("content"), transcript.ScanLimit, transcript.SessionWindow),

	// correlated: P's roots on the (desk, parent, seq) index, each root's first reply by a
	// correlated subquery on the same index (ORDER BY seq LIMIT 1, the MIN of the non-blank).
	"correlated": fmt.Sprintf(`
WITH d(id) AS (SELECT id FROM desks WHERE name = ?1),
lo(seq) AS (SELECT ifnull((SELECT seq FROM messages WHERE desk = (SELECT id FROM d)
                           ORDER BY seq DESC LIMIT 1 OFFSET %d), 0)),
roots(seq) AS (SELECT seq FROM messages
               WHERE desk = (SELECT id FROM d) AND parent = 0 AND seq >= (SELECT seq FROM lo)),
picked(seq) AS (
  SELECT seq FROM roots
  UNION ALL
  SELECT (SELECT r.seq FROM messages r
          WHERE r.desk = (SELECT id FROM d) AND r.parent = roots.seq AND NOT %s
          ORDER BY r.seq LIMIT 1)
  FROM roots
)
SELECT m.seq, m.parent, a.kind, a.ident, a.label, m.content, m.at_us
FROM picked JOIN messages m ON m.desk = (SELECT id FROM d) AND m.seq = picked.seq
JOIN authors a ON a.id = m.author
WHERE NOT %s
ORDER BY m.seq DESC LIMIT %d`, transcript.ScanLimit-1, blankSQL("r.content"), blankSQL("m.content"), transcript.SessionWindow),

	// bounded: the view's rows are all at or above R30, the 30th newest non-blank root of P,
	// so only rows from R30 up are read; a reply among them qualifies when its parent is a
	// root of P and no older non-blank reply to that root exists (both on the (desk, parent,
	// seq) index).
	"bounded": fmt.Sprintf(`
WITH d(id) AS (SELECT id FROM desks WHERE name = ?1),
lo(seq) AS (SELECT ifnull((SELECT seq FROM messages WHERE desk = (SELECT id FROM d)
                           ORDER BY seq DESC LIMIT 1 OFFSET %[1]d), 0)),
r30(seq) AS (SELECT ifnull((SELECT seq FROM messages
                            WHERE desk = (SELECT id FROM d) AND parent = 0 AND seq >= (SELECT seq FROM lo) AND NOT %[2]s
                            ORDER BY seq DESC LIMIT 1 OFFSET %[3]d), (SELECT seq FROM lo)))
SELECT m.seq, m.parent, a.kind, a.ident, a.label, m.content, m.at_us
FROM messages m JOIN authors a ON a.id = m.author
WHERE m.desk = (SELECT id FROM d) AND m.seq >= (SELECT seq FROM r30) AND NOT %[4]s
  AND (m.parent = 0 OR (
    EXISTS (SELECT 1 FROM messages p
            WHERE p.desk = m.desk AND p.parent = 0 AND p.seq = m.parent AND p.seq >= (SELECT seq FROM lo))
    AND NOT EXISTS (SELECT 1 FROM messages o
                    WHERE o.desk = m.desk AND o.parent = m.parent AND o.seq < m.seq AND NOT %[5]s)))
ORDER BY m.seq DESC LIMIT %[6]d`, transcript.ScanLimit-1, blankSQL("content"), transcript.SessionWindow-1,
		blankSQL("m.content"), blankSQL("o.content"), transcript.SessionWindow),
}

// channelBySQL runs one hand-written channel view and returns its rows, chronological.
func (s *Store) channelBySQL(ctx context.Context, query, desk string) ([]transcript.Message, error) {
	rows, err := s.readers.QueryContext(ctx, query, desk)
	if err != nil {
		return nil, err
	}
	msgs, err := scanMessages(rows)
	slices.Reverse(msgs)
	return msgs, err
}

// loadAll reads every row of desk, oldest first, in one query.
func (s *Store) loadAll(ctx context.Context, desk string) ([]transcript.Message, error) {
	rows, err := s.readers.QueryContext(ctx, `
SELECT m.seq, m.parent, a.kind, a.ident, a.label, m.content, m.at_us
FROM messages m JOIN authors a ON a.id = m.author
WHERE m.desk = (SELECT id FROM desks WHERE name = ?1) ORDER BY m.seq`, desk)
	if err != nil {
		return nil, err
	}
	return scanMessages(rows)
}

// scanMessages reads rows of (seq, parent, author kind, ident and label, content, at_us) and
// closes them.
func scanMessages(rows interface {
	Next() bool
	Scan(...any) error
	Err() error
	Close() error
}) ([]transcript.Message, error) {
	defer rows.Close()
	var msgs []transcript.Message
	for rows.Next() {
		var m transcript.Message
		var seq, parent, kind, atUS int64
		if err := rows.Scan(&seq, &parent, &kind, &m.Author.ID, &m.Author.Label, &m.Content, &atUS); err != nil {
			return nil, err
		}
		m.Seq, m.Parent, m.Author.Kind = transcript.Sequence(seq), transcript.Sequence(parent), transcript.AuthorKind(kind)
		m.At = time.UnixMicro(atUS).UTC()
		msgs = append(msgs, m)
	}
	return msgs, rows.Err()
}

// channelInGo is the channel view computed over a whole desk loaded in memory, oldest first:
// P is its newest ScanLimit rows; every non-blank root of P and each one's oldest non-blank
// direct reply qualify; the newest SessionWindow of them, chronological.
func channelInGo(rows []transcript.Message) []transcript.Message {
	p := rows[max(0, len(rows)-transcript.ScanLimit):]
	roots := make(map[transcript.Sequence]bool)
	answered := make(map[transcript.Sequence]bool)
	var view []transcript.Message
	for _, m := range p {
		switch {
		case m.Parent == 0:
			roots[m.Seq] = true
			if !m.Blank() {
				view = append(view, m)
			}
		case roots[m.Parent] && !answered[m.Parent] && !m.Blank():
			answered[m.Parent] = true
			view = append(view, m)
		}
	}
	return slices.Clone(view[max(0, len(view)-transcript.SessionWindow):])
}
