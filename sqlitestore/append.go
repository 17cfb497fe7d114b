package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/sharedesk/transcript"
)

// The writer's statements. The head is found on the (desk, seq) index, never by a scan.
const (
	deskHeadSQL = `
SELECT id, ifnull((SELECT max(seq) FROM messages WHERE desk = desks.id), 0)
FROM desks WHERE name = ?1`
	newDeskSQL = `INSERT INTO desks (name) VALUES (?1)`
	insertSQL  = `
INSERT INTO messages (desk, seq, parent, author, audience, content, at_us)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)`
)

// Append stores m as the newest row of desk and returns the stored row: m with Seq one above
// the desk's newest row (1 for a new desk), At, when zero, the time of the append (kept to
// the microsecond and returned in UTC, as reads return it), and Audience as
// transcript.ResolveAudience gives it: in canonical order, and for a reply to an aside,
// filled in with the aside's readers when m leaves it empty. The returned Audience is a new
// slice the caller owns.
//
// Bad input is an *AppendError matching transcript.ErrInvalidMessage, and then nothing is
// stored and no sequence is used: an empty or non-UTF-8 desk name, a message that fails
// transcript.ValidateNew (a Seq set by the caller, an invalid author, content that is not
// UTF-8, an invalid, self-naming, duplicate or oversized audience), an author or audience
// entry whose id or label is not UTF-8, a NUL byte in the desk name, content, or an author's
// or audience entry's id or label (PostgreSQL text cannot hold one, and pgstore refuses it
// too, so that a desk can move between the stores), content over the limit
// (WithMaxContent), At outside the years 1 to 9999, a Parent that is not an older row of
// the same desk, or a reply the reply rule refuses (transcript.ResolveAudience): by an
// author who may not read its parent (also matching transcript.ErrNotReadable), or to an
// aside with other readers than the aside's (transcript.ErrInvalidAudience). Those errors
// name the parent by its Seq only, never its content or its readers.
//
// Appends to all desks of a Store take turns on one writer connection; Append waits for its
// turn as long as ctx allows. Once Append returns, every read sees the row.
func (s *Store) Append(ctx context.Context, desk string, m transcript.Message) (transcript.Message, error) {
	if err := checkDesk(desk); err != nil {
		return transcript.Message{}, &AppendError{Desk: desk, Index: -1, Err: err}
	}
	if err := s.checkMessage(m, -1); err != nil {
		return transcript.Message{}, &AppendError{Desk: desk, Index: -1, Err: err}
	}
	var stored transcript.Message
	err := s.write(ctx, desk, func(w *writeTx) (err error) {
		stored, err = w.appendRows(ctx, desk, []transcript.Message{m}, false)
		return err
	})
	if err != nil {
		return transcript.Message{}, err
	}
	return stored, nil
}

// AppendBatch stores msgs as the newest rows of desk, in order, in one transaction: all of
// them or, on any error, none. The i-th message gets Seq head+1+i, where head is the desk's
// newest row before the batch. A Parent may be transcript.BatchParent(j), naming the batch's
// j-th message (j < i), which AppendBatch replaces with that message's Seq; any other Parent
// must be an older row of the desk. Zero At values are all stamped with the time of the
// batch. Each message's Audience is stored as transcript.ResolveAudience gives it, as for
// Append; a reply to an earlier message of the batch replies to that message as it is
// stored, its audience filled in. Bad input, a refusal of the reply rule among it, is an
// *AppendError naming the first bad message, as for Append. An empty batch stores nothing.
// AppendBatch reads msgs and never modifies them.
func (s *Store) AppendBatch(ctx context.Context, desk string, msgs []transcript.Message) error {
	if err := checkDesk(desk); err != nil {
		return &AppendError{Desk: desk, Index: -1, Err: err}
	}
	for i, m := range msgs {
		if err := s.checkMessage(m, i); err != nil {
			return &AppendError{Desk: desk, Index: i, Err: err}
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return s.write(ctx, desk, func(w *writeTx) error {
		_, err := w.appendRows(ctx, desk, msgs, true)
		return err
	})
}

// appendRows stores msgs, which checkMessage accepts, as the rows after the desk's head and
// returns the last as stored. batch says whether they are AppendBatch's, for the index an
// *AppendError names (-1 for Append). Every row's parent is checked first, then the stored
// parents are read in one query, then each row's audience is resolved by the reply rule and
// the row inserted; the first refusal ends it, and the transaction is rolled back.
func (w *writeTx) appendRows(ctx context.Context, desk string, msgs []transcript.Message, batch bool) (transcript.Message, error) {
	refuse := func(i int, err error) error {
		if !batch {
			i = -1
		}
		return &AppendError{Desk: desk, Index: i, Err: err}
	}
	var stored []int64 // parents stored before the transaction, to read
	for i, m := range msgs {
		parent, err := w.parentOf(m.Parent, i)
		if err != nil {
			return transcript.Message{}, refuse(i, err)
		}
		if parent != 0 && parent <= w.head {
			stored = append(stored, int64(parent))
		}
	}
	slices.Sort(stored)
	parents, err := w.storedParents(ctx, slices.Compact(stored))
	if err != nil {
		return transcript.Message{}, err
	}
	var (
		audiences [][]transcript.Author // of the batch's rows so far, by index; nil while none is an aside
		last      transcript.Message
	)
	for i, m := range msgs {
		m.Seq = w.head + 1 + transcript.Sequence(i)
		m.Parent, _ = w.parentOf(m.Parent, i) // checked above
		var parent *transcript.Message
		switch {
		case m.Parent == 0:
		case m.Parent <= w.head:
			p := parents[m.Parent]
			parent = &p
		default: // an earlier row of the batch, as stored
			j := int(m.Parent - w.head - 1)
			parent = &transcript.Message{Seq: m.Parent, Author: msgs[j].Author}
			if audiences != nil {
				parent.Audience = audiences[j]
			}
		}
		audience, err := transcript.ResolveAudience(m, parent)
		if err != nil {
			return transcript.Message{}, refuse(i, err)
		}
		if audience != nil && audiences == nil && batch {
			audiences = make([][]transcript.Author, len(msgs))
		}
		if audiences != nil {
			audiences[i] = audience
		}
		m.Audience = audience
		if last, err = w.insert(ctx, m); err != nil {
			return transcript.Message{}, err
		}
	}
	return last, nil
}

// parentOf returns the final Parent of the i-th new row, whose Parent as given is parent:
// a BatchParent replaced with the Seq of the batch's row it names, or a sequence that
// checkParent accepts.
func (w *writeTx) parentOf(parent transcript.Sequence, i int) (transcript.Sequence, error) {
	if j, ok := parent.BatchIndex(); ok {
		return w.head + 1 + transcript.Sequence(j), nil
	}
	if err := checkParent(parent, w.head+1+transcript.Sequence(i), w.head); err != nil {
		return 0, err
	}
	return parent, nil
}

// writeTx is one append's transaction, holding the writer connection and the desk's write
// lock (the whole file's: SQLite has one writer).
type writeTx struct {
	s          *Store
	tx         *sql.Tx
	insertStmt *sql.Stmt
	desk       int64                       // the desk's id
	head       transcript.Sequence         // the desk's newest row when the transaction began
	now        time.Time                   // the time of the append, for zero At values
	newAuthors map[transcript.Author]int64 // authors rows found or created in the transaction
	// audiences rows found or created in the transaction, by members
	newAudiences map[string]newAudience
}

// write runs fn in a write transaction on desk, creating the desk's row when it has none,
// and commits when fn returns nil. The transaction begins IMMEDIATE: it holds the write lock
// from the start, so the head it reads stays the head until it commits, and sequences are
// assigned in commit order.
func (s *Store) write(ctx context.Context, desk string, fn func(w *writeTx) error) (err error) {
	if s.closed.Load() {
		return ErrClosed
	}
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return s.writeError(ctx, desk, err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	w := &writeTx{s: s, tx: tx, now: time.Now()}
	var head int64
	err = tx.StmtContext(ctx, s.deskHead).QueryRowContext(ctx, desk).Scan(&w.desk, &head)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		res, err := tx.StmtContext(ctx, s.newDesk).ExecContext(ctx, desk)
		if err != nil {
			return s.writeError(ctx, desk, err)
		}
		if w.desk, err = res.LastInsertId(); err != nil {
			return s.writeError(ctx, desk, err)
		}
	case err != nil:
		return s.writeError(ctx, desk, err)
	}
	w.head = transcript.Sequence(head)
	w.insertStmt = tx.StmtContext(ctx, s.insert)
	if err := fn(w); err != nil {
		var appendErr *AppendError
		if errors.As(err, &appendErr) {
			return err
		}
		return s.writeError(ctx, desk, err)
	}
	if err := tx.Commit(); err != nil {
		return s.writeError(ctx, desk, err)
	}
	for a, id := range w.newAuthors {
		s.authors.add(id, a)
	}
	for key, a := range w.newAudiences {
		s.audiences.add(a.id, key, a.audience)
	}
	return nil
}

// insert stores m, whose Seq, Parent and Audience are final, and returns it as stored.
func (w *writeTx) insert(ctx context.Context, m transcript.Message) (transcript.Message, error) {
	at := m.At
	if at.IsZero() {
		at = w.now
	}
	atUS := at.UnixMicro()
	author, err := w.authorID(ctx, m.Author)
	if err != nil {
		return transcript.Message{}, err
	}
	var audience any // NULL: a desk row
	if len(m.Audience) > 0 {
		if audience, err = w.audienceID(ctx, m.Audience); err != nil {
			return transcript.Message{}, err
		}
	}
	if _, err := w.insertStmt.ExecContext(ctx, w.desk, int64(m.Seq), int64(m.Parent), author, audience, m.Content, atUS); err != nil {
		return transcript.Message{}, err
	}
	m.At = time.UnixMicro(atUS).UTC()
	return m, nil
}

// writeError wraps a failed write; when ctx is done, the error matches ctx.Err().
func (s *Store) writeError(ctx context.Context, desk string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
		return fmt.Errorf("sqlitestore: append to desk %q: %w (%v)", desk, ctxErr, err)
	}
	return fmt.Errorf("sqlitestore: append to desk %q: %w", desk, err)
}
