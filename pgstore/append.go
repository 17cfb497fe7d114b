package pgstore

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript"
)

// appendSQL appends rows to desk $1 in one statement: it creates the desk on its first
// append and moves its head $2 rows on (the upsert takes the desk row's lock, held until the
// transaction ends, so a desk's appends run one at a time, in the order they commit, while
// appends to other desks go on), numbers the rows from the old head, resolves batch parents
// ($4, a batch index, or -1 for the literal parent in $3), and inserts the rows unless one's
// parent is not older than itself. It returns the old head and the 1-based position of the
// first row with a bad parent (NULL when there is none, and only then are the rows stored).
// The caller commits, or rolls back when that position is not NULL.
//
// A desk's sequences run from 1 to its head without a gap and rows are never deleted, so a
// parent is an older row of the desk exactly when 0 < parent < seq: no lookup is needed
// (and the table's CHECK constraint holds every row to it).
const appendSQL = `
WITH head AS (
	INSERT INTO transcript_desks AS d (name, head) VALUES ($1, $2)
	ON CONFLICT (name) DO UPDATE SET head = d.head + excluded.head
	RETURNING d.head - $2 AS base
), new AS (
	SELECT head.base + r.ord AS seq,
	       CASE WHEN r.batch >= 0 THEN head.base + r.batch + 1 ELSE r.parent END AS parent,
	       r.ord, r.kind, r.id, r.label, r.content, r.at
	FROM head, unnest($3::bigint[], $4::bigint[], $5::smallint[], $6::text[], $7::text[], $8::text[], $9::timestamptz[])
		WITH ORDINALITY AS r(parent, batch, kind, id, label, content, at, ord)
), bad AS (
	SELECT min(ord) AS ord FROM new WHERE parent >= seq
), stored AS (
	INSERT INTO transcript_messages (desk, seq, parent, author_kind, author_id, author_label, content, at)
	SELECT $1, seq, parent, kind, id, label, content, at FROM new
	WHERE (SELECT ord FROM bad) IS NULL
)
SELECT head.base, bad.ord FROM head, bad`

// Append stores m as the newest row of desk, creating the desk on its first row, and
// returns the stored row: m with its assigned Seq, one above the desk's newest row (1 for
// the first), and At stamped with the time of the append when it was zero, in UTC and
// rounded down to the microsecond (as stored).
//
// m must satisfy transcript.ValidateNew; its Parent, when not 0, must be a row of desk (so
// older than the new row); its Content at most the store's limit (WithMaxContent); its
// strings, and desk, text PostgreSQL can store: valid UTF-8 without NUL bytes. desk must not
// be empty. Bad input is a *AppendError matching transcript.ErrInvalidMessage, with nothing
// stored and no sequence number used.
//
// Sequences are assigned in commit order: Append holds the desk's row lock from choosing the
// Seq until it commits, so another append to the same desk waits, and a reader that has seen
// Seq n never later sees a new row below n. Appends to different desks do not wait for each
// other. Every statement runs under ctx: if ctx is done before the append commits, nothing
// is stored. (An error from the commit itself, such as a connection lost on the way, leaves
// unknown whether the row was stored, as with any database commit.)
func (s *Store) Append(ctx context.Context, desk string, m transcript.Message) (transcript.Message, error) {
	rows, err := s.append(ctx, desk, []transcript.Message{m}, false)
	if err != nil {
		return transcript.Message{}, err
	}
	return rows[0], nil
}

// AppendBatch stores msgs as the newest rows of desk, in order, in one transaction: all of
// them or, on any error, none. Each message follows Append's rules, except that its Parent
// may also be transcript.BatchParent(j) for an earlier message j of msgs, which AppendBatch
// replaces with that message's Seq. (A plain Parent may name an earlier message of the batch
// too, by its Seq: any older row of the desk will do.)
// A rejected message is a *AppendError naming its index. An empty batch stores nothing.
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

// append validates msgs, then in one transaction moves desk's head past them, numbers them,
// checks their parents and inserts them (appendSQL), in two round trips: BEGIN with the
// statement, then COMMIT. It returns the stored rows.
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

	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("pgstore: append to desk %q: %w", desk, err)
	}
	defer conn.Release() // a connection left inside a transaction is closed, not reused
	base, bad, err := runAppend(ctx, conn, desk, rows)
	if err != nil {
		conn.Exec(ctx, "ROLLBACK") // if this fails too, Release closes the connection
		return nil, fmt.Errorf("pgstore: append to desk %q: %w", desk, err)
	}
	for i := range rows {
		r := &rows[i]
		r.Seq = base + transcript.Sequence(i) + 1
		if j, ok := r.Parent.BatchIndex(); ok {
			r.Parent = base + transcript.Sequence(j) + 1
		}
	}
	if bad >= 0 {
		conn.Exec(ctx, "ROLLBACK")
		r := rows[bad]
		err := invalidf(ErrParent, "parent %d is not an older row of the desk (the new row is %d)", r.Parent, r.Seq)
		return nil, &AppendError{Desk: desk, Index: index(bad), Err: err}
	}
	if s.beforeCommit != nil {
		s.beforeCommit(ctx, desk, rows)
	}
	if _, err := conn.Exec(ctx, "COMMIT"); err != nil {
		return nil, fmt.Errorf("pgstore: append to desk %q: commit: %w", desk, err)
	}
	return rows, nil
}

// runAppend begins a transaction on conn and runs appendSQL for rows, in one round trip. It
// returns the desk's head before the rows and the index of the first row whose parent is not
// older than itself, or -1. The transaction stays open: the caller commits or rolls back.
func runAppend(ctx context.Context, conn *pgxpool.Conn, desk string, rows []transcript.Message) (transcript.Sequence, int, error) {
	var (
		parents = make([]int64, len(rows))
		batch   = make([]int64, len(rows))
		kinds   = make([]int16, len(rows))
		ids     = make([]string, len(rows))
		labels  = make([]string, len(rows))
		content = make([]string, len(rows))
		ats     = make([]time.Time, len(rows))
	)
	for i, r := range rows {
		batch[i] = -1
		if j, ok := r.Parent.BatchIndex(); ok {
			batch[i] = int64(j)
		} else {
			parents[i] = int64(r.Parent)
		}
		kinds[i], ids[i], labels[i], content[i], ats[i] = int16(r.Author.Kind), r.Author.ID, r.Author.Label, r.Content, r.At
	}
	var b pgx.Batch
	b.Queue("BEGIN")
	b.Queue(appendSQL, desk, int64(len(rows)), parents, batch, kinds, ids, labels, content, ats)
	br := conn.SendBatch(ctx, &b)
	var (
		base int64
		bad  *int64
	)
	_, err := br.Exec()
	if err == nil {
		err = br.QueryRow().Scan(&base, &bad)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, 0, err
	}
	if bad != nil {
		return transcript.Sequence(base), int(*bad) - 1, nil
	}
	return transcript.Sequence(base), -1, nil
}
