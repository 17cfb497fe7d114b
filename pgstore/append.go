package pgstore

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript"
)

// Append stores m as the newest row of desk, creating the desk on its first row, and
// returns the stored row: m with its assigned Seq, one above the desk's newest row (1 for
// the first), At stamped with the time of the append when it was zero, in UTC and rounded
// down to the microsecond (as stored), and the Audience it is stored with, in a new slice
// the caller owns.
//
// m must satisfy transcript.ValidateNew; its Parent, when not 0, must be a row of desk (so
// older than the new row); its Content at most the store's limit (WithMaxContent); its
// strings, its audience's ids and labels among them, and desk, text PostgreSQL can store:
// valid UTF-8 without NUL bytes. desk must not be empty. Bad input is a *AppendError
// matching transcript.ErrInvalidMessage, with nothing stored and no sequence number used.
//
// The reply rule holds for every row (transcript.ResolveAudience, against the parent as
// stored): a reply to an aside is an aside with the parent's readers, its Audience filled in
// when left empty; a reply that lists other readers is refused (transcript.ErrInvalidAudience),
// and so is a reply whose author may not read its parent (transcript.ErrNotReadable). A
// root, or a reply to a desk row, keeps the Audience it lists, in canonical order. A refusal
// matches its sentinel as well as transcript.ErrInvalidMessage, names the parent by its Seq
// only, and never holds the parent's content (which Append does not even read).
//
// Sequences are assigned in commit order: Append holds the desk's row lock from choosing the
// Seq until it commits, so another append to the same desk waits, and a reader that has seen
// Seq n never later sees a new row below n. Appends to different desks do not wait for each
// other. An append takes two round trips, a reply too: its parent is read under the lock,
// in the first. Every statement runs under ctx: if ctx is done before the append commits,
// nothing is stored. (An error from the commit itself, such as a connection lost on the way,
// leaves unknown whether the row was stored, as with any database commit.)
func (s *Store) Append(ctx context.Context, desk string, m transcript.Message) (transcript.Message, error) {
	rows, err := s.append(ctx, desk, []transcript.Message{m}, false)
	if err != nil {
		return transcript.Message{}, err
	}
	return rows[0], nil
}

// AppendBatch stores msgs as the newest rows of desk, in order, in one transaction: all of
// them or, on any error, none. Each message follows Append's rules, the reply rule among
// them, except that its Parent may also be transcript.BatchParent(j) for an earlier message
// j of msgs, which AppendBatch replaces with that message's Seq. (A plain Parent may name an
// earlier message of the batch too, by its Seq: any older row of the desk will do.) A reply
// to an earlier message of the batch is held to that message as resolved: a reply to an
// aside of the batch gets the aside's readers. A rejected message is a *AppendError naming
// its index. An empty batch stores nothing. msgs are not modified.
func (s *Store) AppendBatch(ctx context.Context, desk string, msgs []transcript.Message) error {
	if len(msgs) == 0 {
		if err := checkDesk(desk); err != nil {
			return &AppendError{Desk: desk, Index: -1, Err: err}
		}
		return nil
	}
	_, err := s.append(ctx, desk, msgs, true)
	return err
}

// append validates msgs, then in one transaction moves desk's head past them, resolves
// their audiences and inserts them, in two round trips. It returns the stored rows.
//
// The reply rule needs each row's parent. When no row names a stored parent (every Parent
// is 0 or a BatchParent), the audiences are resolved before anything is sent and the rows go
// with the first round trip, as a desk's head is moved: BEGIN, lockHeadSQL and insertSQL;
// then COMMIT (appendAhead). Otherwise the first round trip moves the head and reads the
// stored parents under the desk's lock (parentsSQL), and the second inserts the rows and
// commits (appendLocked). A batch that the first way refuses takes the second too, so that
// its error names the batch's rows by the Seqs they would have had.
func (s *Store) append(ctx context.Context, desk string, msgs []transcript.Message, batch bool) ([]transcript.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	index := func(i int) int {
		if batch {
			return i
		}
		return -1
	}
	if err := checkDesk(desk); err != nil {
		return nil, &AppendError{Desk: desk, Index: -1, Err: err}
	}
	now := time.Now()
	rows := make([]transcript.Message, len(msgs))
	for i, m := range msgs {
		r, err := s.prepare(m, index(i), now)
		if err != nil {
			return nil, &AppendError{Desk: desk, Index: index(i), Err: err}
		}
		rows[i] = r
	}

	lookup, ahead := storedParents(rows), false
	if len(lookup) == 0 {
		if audiences, _, err := resolveAudiences(rows, 0, nil); err == nil {
			for i := range rows {
				rows[i].Audience = audiences[i]
			}
			ahead = true
		}
	}

	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("pgstore: append to desk %q: %w", desk, err)
	}
	defer conn.Release() // a connection left inside a transaction is closed, not reused
	if ahead {
		return s.appendAhead(ctx, conn, desk, rows)
	}
	rows, i, err := s.appendLocked(ctx, conn, desk, rows, lookup)
	if i >= 0 {
		return nil, &AppendError{Desk: desk, Index: index(i), Err: err}
	}
	return rows, err
}

// appendAhead stores rows, whose audiences are resolved: BEGIN, the head moved and the rows
// inserted in one round trip, then COMMIT.
func (s *Store) appendAhead(ctx context.Context, conn *pgxpool.Conn, desk string, rows []transcript.Message) ([]transcript.Message, error) {
	args, err := insertArgs(desk, rows)
	if err != nil {
		return nil, fmt.Errorf("pgstore: append to desk %q: %w", desk, err)
	}
	var (
		b    pgx.Batch
		base int64
	)
	b.Queue("BEGIN")
	b.Queue(lockHeadSQL, desk, int64(len(rows)))
	b.Queue(insertSQL, args...)
	err = roundTrip(ctx, conn, &b, func(br pgx.BatchResults) error {
		if _, err := br.Exec(); err != nil {
			return err
		}
		if err := br.QueryRow().Scan(&base); err != nil {
			return err
		}
		return execInsert(br, len(rows))
	})
	if err != nil {
		conn.Exec(ctx, "ROLLBACK") // if this fails too, Release closes the connection
		return nil, fmt.Errorf("pgstore: append to desk %q: %w", desk, err)
	}
	numberRows(rows, transcript.Sequence(base))
	return rows, s.commit(ctx, conn, desk, rows)
}

// appendLocked stores rows, whose audiences are not resolved yet: BEGIN, the head moved and
// the stored parents lookup names read in one round trip; then, the audiences resolved, the
// rows inserted and COMMIT in another. A row the reply rule or its parent refuses is
// reported by its index, with the reason (nothing is stored, and the index is -1 for any
// other error).
func (s *Store) appendLocked(ctx context.Context, conn *pgxpool.Conn, desk string, rows []transcript.Message, lookup []int64) ([]transcript.Message, int, error) {
	var (
		b      pgx.Batch
		base   int64
		stored map[transcript.Sequence]transcript.Message
	)
	b.Queue("BEGIN")
	b.Queue(lockHeadSQL, desk, int64(len(rows)))
	if len(lookup) > 0 {
		b.Queue(parentsSQL, desk, lookup)
	}
	err := roundTrip(ctx, conn, &b, func(br pgx.BatchResults) error {
		if _, err := br.Exec(); err != nil {
			return err
		}
		if err := br.QueryRow().Scan(&base); err != nil {
			return err
		}
		if len(lookup) == 0 {
			return nil
		}
		var err error
		stored, err = s.readParents(br, len(lookup))
		return err
	})
	if err != nil {
		conn.Exec(ctx, "ROLLBACK")
		return nil, -1, fmt.Errorf("pgstore: append to desk %q: %w", desk, err)
	}
	numberRows(rows, transcript.Sequence(base))
	audiences, i, err := resolveAudiences(rows, transcript.Sequence(base), stored)
	if err != nil {
		conn.Exec(ctx, "ROLLBACK")
		return nil, i, err
	}
	for i := range rows {
		rows[i].Audience = audiences[i]
	}
	args, err := insertArgs(desk, rows)
	if err != nil {
		conn.Exec(ctx, "ROLLBACK")
		return nil, -1, fmt.Errorf("pgstore: append to desk %q: %w", desk, err)
	}
	b = pgx.Batch{}
	b.Queue(insertSQL, args...)
	if s.beforeCommit == nil {
		b.Queue("COMMIT")
	}
	committed := false
	err = roundTrip(ctx, conn, &b, func(br pgx.BatchResults) error {
		if err := execInsert(br, len(rows)); err != nil || s.beforeCommit != nil {
			return err
		}
		_, err := br.Exec()
		committed = err == nil
		if err != nil {
			return fmt.Errorf("commit: %w", err)
		}
		return nil
	})
	if err != nil {
		conn.Exec(ctx, "ROLLBACK")
		return nil, -1, fmt.Errorf("pgstore: append to desk %q: %w", desk, err)
	}
	if !committed {
		if err := s.commit(ctx, conn, desk, rows); err != nil {
			return nil, -1, err
		}
	}
	return rows, -1, nil
}

// commit runs the beforeCommit hook, if any, then commits the append of rows.
func (s *Store) commit(ctx context.Context, conn *pgxpool.Conn, desk string, rows []transcript.Message) error {
	if s.beforeCommit != nil {
		s.beforeCommit(ctx, desk, rows)
	}
	if _, err := conn.Exec(ctx, "COMMIT"); err != nil {
		return fmt.Errorf("pgstore: append to desk %q: commit: %w", desk, err)
	}
	return nil
}

// roundTrip sends b on conn, reads its results with read and closes them: one round trip.
func roundTrip(ctx context.Context, conn *pgxpool.Conn, b *pgx.Batch, read func(pgx.BatchResults) error) error {
	br := conn.SendBatch(ctx, b)
	err := read(br)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return err
}

// numberRows gives rows, the rows of an append above the desk's old head base, their Seqs,
// and each BatchParent its row's Seq.
func numberRows(rows []transcript.Message, base transcript.Sequence) {
	for i := range rows {
		r := &rows[i]
		r.Seq = base + transcript.Sequence(i) + 1
		if j, ok := r.Parent.BatchIndex(); ok {
			r.Parent = base + transcript.Sequence(j) + 1
		}
	}
}

// storedParents returns the distinct parents rows name by Seq, ascending: those that may be
// stored rows, which the reply rule must read. It is nil when every Parent is 0 or a
// BatchParent.
func storedParents(rows []transcript.Message) []int64 {
	var seqs []int64
	for _, r := range rows {
		if _, batch := r.Parent.BatchIndex(); !batch && r.Parent != 0 {
			seqs = append(seqs, int64(r.Parent))
		}
	}
	slices.Sort(seqs)
	return slices.Compact(seqs)
}
