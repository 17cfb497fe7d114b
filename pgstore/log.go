package pgstore

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/sharedesk/transcript"
)

// readBeforeSQL reads one page: an index range scan of (desk, seq), backwards, that stops
// after $3 rows, however large the desk. audience is NULL for a desk row, key for a row
// without a key. readBeforeGatedSQL is the same read gated on the token of hash $4
// (tokenGate).
//
// The desk, the bound and the limit are subqueries, not bare parameters. pgx prepares every
// statement, and PostgreSQL plans a prepared statement afresh at each execution while its
// generic plan looks dearer than the session's custom ones: a custom plan knows the limit,
// a few dozen rows, where the generic plan guesses a tenth of the rows below the bound, so
// every read was planned anew, which cost a fifth of the read (a statement with the digest
// too, half); and a custom plan of a small desk's read, or of one below an old row (a
// fold's), guesses few rows, which kept the custom plans on after the first reads. With
// none of them known to either plan, PostgreSQL takes the generic plan after five
// executions (TestReadsTakeGenericPlans), while the table's statistics stand: once a
// growing desk is analyzed anew, a session plans the reads for a while again, until its
// connection is replaced. The token's hash stays a bare parameter: its probe reads one row
// of a unique index in either plan. Both plans walk the (desk, seq) index backwards from
// the bound and stop after the limit (TestQueryPlans; TestDigestPlans for the statements
// with a digest).
const (
	readBeforeSQL      = readBeforeWhere + readBeforeOrder
	readBeforeGatedSQL = readBeforeWhere + "\n  AND " + tokenGate + readBeforeOrder
	readBeforeWhere    = `
SELECT ` + messageColumnList + `
FROM transcript_messages
WHERE desk = (SELECT $1::text) AND seq < (SELECT $2::bigint)`
	readBeforeOrder = `
ORDER BY seq DESC
LIMIT (SELECT $3::bigint)`
)

// deskLog is one desk of a Store, as the port sees it.
type deskLog struct {
	s     *Store
	desk  string
	ahead readAhead
}

var _ transcript.Log = (*deskLog)(nil)

// Log returns desk's log. A desk that holds no row (yet) reads as an empty log. The Log is
// safe for concurrent use and stays usable until the Store is closed.
//
// The Log is the desk as stored: it returns every row, asides included, each with its
// Audience (nil for a desk row). Who may read what is the walk's to decide:
// transcript.Project and sharing.Prepare, given a Query's Viewer, elide the asides the viewer
// may not read. Hand the Log only to code that applies them.
//
// Each Log reads ahead: a read of limit rows also fetches the next limit/2 older rows, and
// the read that continues the walk (transcript.Project's and sharing.Prepare's next read) is
// answered from them without a query, with fewer rows than it asked for if need be, as the
// port allows. A walk that needs a little more than its first read asked for, as a view often
// does, then costs one query, and a long walk half as many as it has reads. Use one Log per
// walk, or per desk: the rows read ahead (at most readAheadBytes of content) stay with the
// Log until its next read.
//
// In a Store with standbys (WithStandbys), each read that queries goes to a standby, or to
// the primary when no standby shows what the read needs; see "Standbys" in the package
// documentation for what that guarantees.
func (s *Store) Log(desk string) transcript.Log { return &deskLog{s: s, desk: desk} }

// ReadBefore implements transcript.Log: up to limit rows of the desk with Seq < before
// (before == 0: from the newest row), newest first, in a new slice the caller owns, the
// asides' Audience slices included (in canonical order, as stored; nil for a desk row; no
// two rows share elements, so the caller may change or append to one freely), each row with
// its Key ("" for a row without one). A page ends early once its content reaches
// transcript.PageBytes (it always holds one row), so that one read of large rows holds a few
// MiB, not limit rows of them. Next is the Seq of the page's oldest row when an older row
// exists, else 0: the query asks for one row more than it returns to know.
//
// A read that continues the previous one (before is that read's Next) is answered from the
// rows read ahead, when there are any: a desk's rows are committed in Seq order, so once a
// row is visible, no row below it is added. A correction changes rows already visible, so
// rows read ahead are not taken once the Store has returned an append of a correction to
// the desk, or its Watch has named the desk, since they were read: a read after a
// redaction that the Store made or heard of never returns the erased content.
//
// In a Store without standbys, a read that queries under a ctx carrying a token.Pending not
// yet settled reads rows only if the token is good, and settles it when it returns one
// (SettlesPending).
//
// A limit below 1 is ErrLimit. The query runs under ctx; a ctx that is done makes ReadBefore
// fail with an error matching ctx.Err().
func (l *deskLog) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	return l.readBefore(ctx, before, limit, l.query)
}

// readBefore is ReadBefore with query the query that reads n rows below before.
func (l *deskLog) readBefore(ctx context.Context, before transcript.Sequence, limit int, query func(ctx context.Context, before transcript.Sequence, n int) ([]transcript.Message, error)) (transcript.Page, error) {
	if err := ctx.Err(); err != nil {
		return transcript.Page{}, err
	}
	if limit < 1 {
		return transcript.Page{}, ErrLimit
	}
	limit = min(limit, math.MaxInt32/4)
	if !storable(l.desk) { // no desk has that name (not UTF-8, or a NUL): PostgreSQL would refuse its bytes
		return transcript.Page{}, nil
	}
	epoch := l.s.changes.get(l.desk) // before the query: a change committed during it makes its rows stale
	if page, ok := l.ahead.take(before, limit, epoch); ok {
		return page, nil
	}
	extra := min(limit/2, transcript.PageSize)
	rows, err := query(ctx, before, limit+extra+1)
	if err != nil {
		return transcript.Page{}, fmt.Errorf("pgstore: read desk %q before %d: %w", l.desk, before, err)
	}
	end := pageEnd(rows)
	capped := end < len(rows) // the scan stopped at PageBytes (scanPage): older rows exist, maybe more than it read
	if len(rows) <= limit && !capped {
		l.ahead.set(0, nil, true, epoch)
		return transcript.Page{Messages: rows}, nil
	}
	n := min(limit, end)
	page := transcript.Page{Messages: rows[:n:n], Next: rows[n-1].Seq}
	l.ahead.set(page.Next, rows[n:], !capped && len(rows) < limit+extra+1, epoch)
	return page, nil
}

// pageEnd returns how many of rows, newest first, a page holds: all of them, or the first
// ones up to the row before which their content reached transcript.PageBytes (at least one).
func pageEnd(rows []transcript.Message) int {
	bytes := 0
	for i, m := range rows {
		if i > 0 && bytes >= transcript.PageBytes {
			return i
		}
		bytes += len(m.Content)
	}
	return len(rows)
}

// query reads up to n rows below before (0: from the newest), newest first.
func (l *deskLog) query(ctx context.Context, before transcript.Sequence, n int) ([]transcript.Message, error) {
	return l.s.readRows(ctx, l.desk, upperBound(before), n)
}

// upperBound is the bound of a read below before (0: from the newest), which every stored
// Seq below before is below.
func upperBound(before transcript.Sequence) int64 {
	if before != 0 && before < math.MaxInt64 {
		return int64(before)
	}
	return math.MaxInt64
}

// readAheadBytes bounds the text (content, authors and audiences) a Log keeps read ahead, so
// that a Log kept for long holds little memory even on a desk of large messages.
const readAheadBytes = 256 << 10

// readAhead is the rows a Log read beyond what its last read returned: every row of the desk
// below bound, newest first, down to the last of them, which is the desk's oldest when end
// is set, read while the desk's count of changes was epoch.
type readAhead struct {
	mu    sync.Mutex
	bound transcript.Sequence
	rows  []transcript.Message
	end   bool
	epoch int64
}

// set keeps rows, the desk's rows below bound down to the oldest when end, or as many of
// the newest of them as readAheadBytes allows, read under epoch.
func (a *readAhead) set(bound transcript.Sequence, rows []transcript.Message, end bool, epoch int64) {
	size := 0
	for i, m := range rows {
		size += len(m.Content) + len(m.Author.ID) + len(m.Author.Label)
		for _, a := range m.Audience {
			size += len(a.ID) + len(a.Label)
		}
		if size > readAheadBytes {
			rows, end = rows[:i], false
			break
		}
	}
	rows = slices.Clone(rows) // not the array behind the page just returned, which may be large
	a.mu.Lock()
	defer a.mu.Unlock()
	a.bound, a.rows, a.end, a.epoch = bound, rows, end, epoch
}

// take answers a read of up to limit rows below before from the rows read ahead, in a new
// slice, when before is their bound and epoch the count of changes they were read under. Unless the rows reach the start of the desk, the last of
// them is kept back: it only shows that older rows exist, so that Next can be set.
func (a *readAhead) take(before transcript.Sequence, limit int, epoch int64) (transcript.Page, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if before == 0 || before != a.bound || epoch != a.epoch {
		return transcript.Page{}, false
	}
	n := min(limit, len(a.rows))
	if !a.end {
		n = min(limit, len(a.rows)-1) // the last row only shows that older rows exist
	}
	if n < 1 {
		return transcript.Page{}, false
	}
	page := transcript.Page{Messages: slices.Clone(a.rows[:n])}
	if n < len(a.rows) {
		page.Next = a.rows[n-1].Seq
	}
	a.bound, a.rows = page.Next, a.rows[n:]
	return page, true
}
