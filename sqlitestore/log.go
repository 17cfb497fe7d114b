package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"time"

	"github.com/sharedesk/transcript"
)

// deskLog is one desk's log in a Store.
type deskLog struct {
	s    *Store
	desk string
}

var _ transcript.Log = (*deskLog)(nil)

// Log returns the transcript.Log of desk. A desk without rows reads as an empty log, and
// sees rows as soon as they are appended. The Log is safe for concurrent use; it fails with
// ErrClosed once the Store is closed.
func (s *Store) Log(desk string) transcript.Log {
	return &deskLog{s: s, desk: desk}
}

// readPageSQL reads one page: the newest rows below a bound, one more than the limit, so that
// the page knows whether an older row exists. It walks the (desk, seq) index backwards from
// the bound and stops after LIMIT rows: its cost is the page's, whatever the desk's size.
// Authors and audiences come back as ids, which the Store's caches resolve (see rowColumns).
//
// The limit is an expression, not a bare parameter: SQLite (3.54, the driver's) compiles a
// bare LIMIT parameter's value into the statement, and so recompiles the statement whenever
// the parameter is bound anew, which is every read; that cost a fifth of a 60-row read.
const readPageSQL = `
SELECT ` + rowColumns + `
FROM messages
WHERE desk = (SELECT id FROM desks WHERE name = ?1) AND seq < ?2
ORDER BY seq DESC
LIMIT ?3 + 0`

// ReadBefore implements transcript.Log: up to limit rows with Seq < before (before == 0:
// from the newest row), newest first, in a new slice the caller owns, Audiences included
// (a page's audiences share one new array, none the Store's). A page ends early once its
// content reaches transcript.PageBytes (it always holds one row), so that one read of large
// rows holds a few MiB, not limit rows of them. Next is the Seq of the page's oldest row
// when an older row exists, and 0 exactly when none does. A limit below 1 is ErrLimit. When
// ctx is done as it is called, ReadBefore returns an error matching ctx.Err(); once begun,
// the read of the page runs to its end.
func (l *deskLog) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	if err := ctx.Err(); err != nil {
		return transcript.Page{}, err
	}
	if l.s.closed.Load() {
		return transcript.Page{}, ErrClosed
	}
	if limit < 1 {
		return transcript.Page{}, ErrLimit
	}
	bound := int64(math.MaxInt64) // above every stored Seq
	if before != 0 && before < math.MaxInt64 {
		bound = int64(before)
	}
	fetch := int64(limit) + 1
	if limit == math.MaxInt {
		fetch = math.MaxInt64
	}
	msgs, refs, more, err := l.readPage(ctx, bound, fetch, min(limit, transcript.PageSize)+1)
	if err == nil {
		err = l.s.resolveAuthors(ctx, msgs, refs)
	}
	if err == nil {
		err = l.s.resolveAudiences(ctx, msgs, refs)
	}
	if err != nil {
		return transcript.Page{}, l.readError(ctx, before, limit, err)
	}
	var page transcript.Page
	if len(msgs) > limit {
		msgs = msgs[:limit]
		page.Next = msgs[limit-1].Seq
	} else if more {
		page.Next = msgs[len(msgs)-1].Seq
	}
	page.Messages = msgs
	return page, nil
}

// rowColumns are the columns a read selects for each row, in the order scanRows scans them.
// A desk row's audience and a row without a key are NULL, scanned into sql.NullInt64 and
// sql.NullString rather than mapped by ifnull(audience, 0): one function call less a row.
const rowColumns = `seq, parent, author, audience, content, at_us, key, corrects, redacted, revised`

// rowRefs are the ids a row names in the authors and audiences tables; audience 0 is none.
type rowRefs struct{ author, audience int64 }

// readPage runs readPageSQL and returns its rows without their authors and audiences, the
// ids each row names, and whether it stopped at transcript.PageBytes of content with more
// rows to come. Its rows are closed when it returns, so that resolving the ids can take a
// reader connection even from a pool of one.
func (l *deskLog) readPage(ctx context.Context, bound, fetch int64, capacity int) ([]transcript.Message, []rowRefs, bool, error) {
	rows, err := l.s.readPage.QueryContext(boundedRead(ctx), l.desk, bound, fetch)
	if err != nil {
		return nil, nil, false, err
	}
	return scanPage(rows, make([]transcript.Message, 0, capacity), make([]rowRefs, 0, capacity), transcript.PageBytes)
}

// scanRows appends to msgs the rows of a query selecting rowColumns, without their authors
// and audiences, and to refs the ids each row names, in the query's order. It closes rows.
func scanRows(rows *sql.Rows, msgs []transcript.Message, refs []rowRefs) ([]transcript.Message, []rowRefs, error) {
	msgs, refs, _, err := scanPage(rows, msgs, refs, 0)
	return msgs, refs, err
}

// scanPage is scanRows that stops, when maxBytes > 0, before the first row that finds the
// content appended already at maxBytes or more, and reports whether it stopped so: the rows
// not scanned are never held.
func scanPage(rows *sql.Rows, msgs []transcript.Message, refs []rowRefs, maxBytes int) ([]transcript.Message, []rowRefs, bool, error) {
	defer rows.Close()
	bytes := 0
	// One set of scan destinations for the whole page: Scan's arguments escape, and fresh
	// ones for each row would cost five allocations a row.
	var (
		seq, parent, author, atUS int64 // scanned as int64: database/sql converts to uint64 through strings
		corrects, revised         int64
		redacted                  bool
		audience                  sql.NullInt64
		content                   string
		key                       sql.NullString
	)
	dest := []any{&seq, &parent, &author, &audience, &content, &atUS, &key, &corrects, &redacted, &revised}
	for rows.Next() {
		if maxBytes > 0 && bytes >= maxBytes {
			return msgs, refs, true, rows.Close()
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, nil, false, err
		}
		bytes += len(content)
		msgs = append(msgs, transcript.Message{
			Seq:      transcript.Sequence(seq),
			Parent:   transcript.Sequence(parent),
			Content:  content,
			At:       time.UnixMicro(atUS).UTC(),
			Key:      key.String, // "" when NULL
			Corrects: transcript.Sequence(corrects),
			Redacted: redacted,
			Revised:  transcript.Sequence(revised),
		})
		refs = append(refs, rowRefs{author: author, audience: audience.Int64}) // 0 when NULL
	}
	if err := rows.Err(); err != nil {
		return nil, nil, false, err
	}
	return msgs, refs, false, rows.Close()
}

// boundedRead is the context a read of bounded cost (a point lookup, a page of at most
// transcript.PageSize rows and transcript.PageBytes of content) runs under, once ctx was
// found not done: ctx without its cancellation. database/sql and the driver each watch a
// context that can be cancelled with a goroutine of their own for every statement, which
// costs more than a point lookup itself; such a read, once begun, runs to its end. A ctx
// done during the read is the caller's to see.
func boundedRead(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }

// readError wraps a failed read; when ctx is done, the error matches ctx.Err() whatever the
// driver made of the interruption.
func (l *deskLog) readError(ctx context.Context, before transcript.Sequence, limit int, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("sqlitestore: desk %q: read before %d, limit %d: %w (%v)", l.desk, before, limit, ctxErr, err)
	}
	return fmt.Errorf("sqlitestore: desk %q: read before %d, limit %d: %w", l.desk, before, limit, err)
}
