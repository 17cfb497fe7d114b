package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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
INSERT INTO messages (desk, seq, parent, author, content, at_us)
VALUES (?1, ?2, ?3, ?4, ?5, ?6)`
)

// Append stores m as the newest row of desk and returns the stored row: m with Seq one above
// the desk's newest row (1 for a new desk) and At, when zero, the time of the append; At is
// kept to the microsecond and returned in UTC, as reads return it.
//
// Bad input is an *AppendError matching transcript.ErrInvalidMessage, and then nothing is
// stored and no sequence is used: an empty or non-UTF-8 desk name, a message that fails
// transcript.ValidateNew (a Seq set by the caller, an invalid author, content that is not
// UTF-8), an author id or label that is not UTF-8, a NUL byte in the desk name, content,
// author id or label (PostgreSQL text cannot hold one, and pgstore refuses it too, so that
// a desk can move between the stores), content over the limit (WithMaxContent), At outside
// the years 1 to 9999, or a Parent that is not an older row of the same desk.
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
	err := s.write(ctx, desk, func(w *writeTx) error {
		m.Seq = w.head + 1
		if err := checkParent(m.Parent, m.Seq, w.head); err != nil {
			return &AppendError{Desk: desk, Index: -1, Err: err}
		}
		var err error
		m, err = w.insert(ctx, m)
		return err
	})
	if err != nil {
		return transcript.Message{}, err
	}
	return m, nil
}

// AppendBatch stores msgs as the newest rows of desk, in order, in one transaction: all of
// them or, on any error, none. The i-th message gets Seq head+1+i, where head is the desk's
// newest row before the batch. A Parent may be transcript.BatchParent(j), naming the batch's
// j-th message (j < i), which AppendBatch replaces with that message's Seq; any other Parent
// must be an older row of the desk. Zero At values are all stamped with the time of the
// batch. Bad input is an *AppendError naming the first bad message, as for Append. An empty
// batch stores nothing.
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
		for i, m := range msgs {
			m.Seq = w.head + 1 + transcript.Sequence(i)
			if j, ok := m.Parent.BatchIndex(); ok {
				m.Parent = w.head + 1 + transcript.Sequence(j)
			} else if err := checkParent(m.Parent, m.Seq, w.head); err != nil {
				return &AppendError{Desk: desk, Index: i, Err: err}
			}
			if _, err := w.insert(ctx, m); err != nil {
				return err
			}
		}
		return nil
	})
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
	return nil
}

// insert stores m, whose Seq and Parent are final, and returns it as stored.
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
	if _, err := w.insertStmt.ExecContext(ctx, w.desk, int64(m.Seq), int64(m.Parent), author, m.Content, atUS); err != nil {
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
