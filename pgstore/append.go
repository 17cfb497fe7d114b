package pgstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript"
)

var _ transcript.NewRowAppender = (*Store)(nil)

// beginSQL opens an append's transaction READ COMMITTED whatever the server's or the DSN's
// default: the desk row's lock orders appends, and each statement after it must see the rows
// the appends before it committed (a later snapshot than REPEATABLE READ would give).
const beginSQL = "BEGIN ISOLATION LEVEL READ COMMITTED"

// Append stores m as the newest row of desk, creating the desk on its first row, as
// transcript.Appender describes. At is stored in UTC, rounded down to the microsecond, and
// returned as stored. Besides ValidateNew's rules, content is at most the store's limit
// (WithMaxContent) and text holds no NUL byte (ErrText). A refusal is an *AppendError.
// A correction (m.Corrects set) is decided by transcript.ResolveCorrection against its
// target as stored, and applied to it in the same transaction: the target's content,
// Redacted and Revised change, and a redaction erases its earlier corrections too.
//
// Every statement runs under ctx. A refusal, or an error before the round trip that
// carries the COMMIT, means nothing was stored; an error from that round trip leaves
// unknown whether the row was stored, as with any database commit (with a Key, appending
// again finds out). A read-only Store refuses with ErrReadOnly. With standbys, a read of
// desk through the Store after Append returns shows the row.
func (s *Store) Append(ctx context.Context, desk string, m transcript.Message) (transcript.Message, error) {
	stored, _, err := s.AppendNew(ctx, desk, m)
	return stored, err
}

// AppendNew is Append that also says whether it stored a new row: false when m's Key named
// a stored row that is the same message (a replay), which it returns. Of appends of one key
// to one desk, from any number of processes, exactly one reports a new row.
func (s *Store) AppendNew(ctx context.Context, desk string, m transcript.Message) (transcript.Message, bool, error) {
	rows, added, err := s.append(ctx, desk, []transcript.Message{m}, false, false)
	if err != nil {
		s.failed(desk, []transcript.Message{m})
		return transcript.Message{}, false, err
	}
	s.appended(desk, rows)
	return rows[0], added == 1, nil
}

// AppendBatch stores msgs as the newest rows of desk, in order, in one transaction: all of
// them or, on any error, none. Each message follows Append's rules, except that its Parent
// (or its Corrects) may also be transcript.BatchParent(j) for an earlier message j of msgs;
// a reply to an aside of the batch gets the aside's readers, and the corrections apply in
// order (transcript.SettleBatch is the rule). A
// message whose Key desk holds is skipped when it is the same message as the stored row
// (a BatchParent naming it resolves to the stored row), and fails the whole batch
// otherwise; the stored messages take consecutive Seqs, so a re-import writes nothing. A
// refusal is an *AppendError naming the message's index; one Key on two messages is
// ErrDuplicateKey. An empty batch stores nothing; msgs are not modified.
func (s *Store) AppendBatch(ctx context.Context, desk string, msgs []transcript.Message) error {
	return s.appendAll(ctx, desk, msgs, false)
}

// RestoreBatch is AppendBatch for rows an export wrote, which it stores as they were stored
// (transcript.SettleRestored is the rule): a row's Revised and Redacted are kept, a
// redacted row holds no content, and a correction is decided by the correction rule but not
// applied again, since the rows hold its result; it may correct a redacted row. Each row
// follows transcript.ValidateRestoredWithin with the store's content limit. All or nothing,
// with AppendBatch's errors.
func (s *Store) RestoreBatch(ctx context.Context, desk string, rows []transcript.Message) error {
	return s.appendAll(ctx, desk, rows, true)
}

// appendAll is AppendBatch, or RestoreBatch when restore.
func (s *Store) appendAll(ctx context.Context, desk string, msgs []transcript.Message, restore bool) error {
	if err := s.writable(fmt.Sprintf("append to desk %q", desk)); err != nil {
		return err
	}
	if len(msgs) == 0 {
		if err := checkDesk(desk); err != nil {
			return &AppendError{Desk: desk, Index: -1, Err: err}
		}
		return nil
	}
	rows, _, err := s.append(ctx, desk, msgs, true, restore)
	if err != nil {
		s.failed(desk, msgs)
		return err
	}
	s.appended(desk, rows)
	return nil
}

// failed notes that an append of msgs to desk failed: when they hold a correction, the
// round trip that carried its COMMIT may have failed after the server committed it, so the
// Logs' rows read ahead of desk may be stale.
func (s *Store) failed(desk string, msgs []transcript.Message) {
	if holdsCorrection(msgs) {
		s.changes.bump(desk)
	}
}

// appended notes that desk holds rows, as an append returned them: when they hold a
// correction, the Logs' rows read ahead of desk are stale (Store.changes); in a Store with
// standbys, reads of desk through the Store then wait for a standby to replay them, or read
// from the primary (route).
func (s *Store) appended(desk string, rows []transcript.Message) {
	if holdsCorrection(rows) {
		s.changes.bump(desk)
	}
	if !s.replicas.active() {
		return
	}
	var top transcript.Sequence
	for _, r := range rows {
		top = max(top, r.Seq)
	}
	s.replicas.fences.raise(desk, int64(top))
}

// keyAttempts is how many times an append is tried when its insert finds a key that its
// lookup did not (keyTaken): a writer outside this package inserted it meanwhile.
const keyAttempts = 3

// append validates msgs, then in one transaction moves desk's head past them, settles them
// (their parents, their audiences by the reply rule, their keys, their targets by the
// correction rule) and inserts the new rows, applying the corrections to the rows they
// correct, in one round trip or two. When restore, msgs are an export's rows, validated
// and settled as RestoreBatch says. It returns every message as stored: the new rows, and the stored rows
// that messages with a present key are; and how many new rows it stored.
//
// Every way that commits queues notifySQL right after its COMMIT, in the same round trip:
// the desk's notification for Store.Watch, sent only once the append has committed.
//
// Settling needs the stored rows some messages name. When none names one — no Parent is a
// stored row's Seq (each is 0 or a BatchParent) and no message has a Key — the rows are
// settled before anything is sent, as if the desk were empty, and the whole append is one
// round trip: BEGIN, lockHeadSQL, insertSQL, COMMIT and notifySQL (appendAhead). One
// message with a Key and no Parent goes the same way, its insert made conditional on its
// key's absence, and is looked up only if the key is present (appendKeyed). Otherwise the
// first round trip moves the head and reads, under the desk's lock, the stored parents
// (parentsSQL) and the rows holding the keys (keyRowsSQL), and the second inserts the new
// rows (and their terms, for search) and commits, or, when every message is a stored row
// already, rolls back (appendLocked). A batch that the first way refuses takes the third too, so
// that its error names the batch's rows by the Seqs they would have had; so does every
// append that holds a correction, whose target the correction rule must read, and every
// restore.
//
// A keyed batch takes the third way because a conditional insert of many rows would skip
// the present ones and leave their Seqs as gaps; made conditional on all its keys' absence
// instead, it would run the third way's statements for a batch of new keys, less one, and
// send every row's content to find the rows of a re-import present.
func (s *Store) append(ctx context.Context, desk string, msgs []transcript.Message, batch, restore bool) (_ []transcript.Message, added int, _ error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	if err := s.writable(fmt.Sprintf("append to desk %q", desk)); err != nil {
		return nil, 0, err
	}
	index := func(i int) int {
		if batch {
			return i
		}
		return -1
	}
	if err := checkDesk(desk); err != nil {
		return nil, 0, &AppendError{Desk: desk, Index: -1, Err: err}
	}
	now := time.Now()
	prepared := make([]transcript.Message, len(msgs))
	for i, m := range msgs {
		r, err := s.prepare(m, index(i), now, restore)
		if err != nil {
			return nil, 0, &AppendError{Desk: desk, Index: index(i), Err: err}
		}
		prepared[i] = r
	}
	if i, err := transcript.CheckBatchKeys(prepared); err != nil {
		return nil, 0, &AppendError{Desk: desk, Index: index(i), Err: err}
	}

	lookup, keys, whole := storedParents(prepared), appendKeys(prepared), restore || holdsCorrection(prepared)
	var ahead []transcript.Message
	if len(lookup) == 0 && (len(keys) == 0 || len(prepared) == 1) && !whole {
		if settled, _, err := transcript.SettleBatch(prepared, 0, nil, nil); err == nil {
			ahead = settled.Rows
		}
	}

	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("pgstore: append to desk %q: %w", desk, err)
	}
	defer conn.Release() // a connection left inside a transaction is closed, not reused
	switch {
	case ahead != nil && len(keys) == 0:
		rows, err := s.appendAhead(ctx, conn, desk, ahead)
		return rows, len(rows), err
	case ahead != nil:
		row, inserted, err := s.appendKeyed(ctx, conn, desk, ahead[0])
		var conflict *transcript.KeyConflictError
		switch {
		case errors.As(err, &conflict):
			return nil, 0, &AppendError{Desk: desk, Index: index(0), Err: err}
		case err != nil:
			return nil, 0, err
		case inserted:
			added = 1
		}
		return []transcript.Message{row}, added, nil
	}
	for attempt := 1; ; attempt++ {
		rows, added, i, err := s.appendLocked(ctx, conn, desk, prepared, lookup, keys, whole, restore)
		if i >= 0 {
			return nil, 0, &AppendError{Desk: desk, Index: index(i), Err: err}
		}
		if err != nil && keyTaken(err) && attempt < keyAttempts {
			continue // rolled back: the next lookup finds the key
		}
		return rows, added, err
	}
}

// appendAhead stores rows, settled as if the desk were empty (Seqs from 1, every Parent 0
// or a row of rows), none with a key, in one round trip (insertAhead). It returns rows,
// renumbered above the desk's old head.
func (s *Store) appendAhead(ctx context.Context, conn *pgxpool.Conn, desk string, rows []transcript.Message) ([]transcript.Message, error) {
	if _, err := s.insertAhead(ctx, conn, desk, rows, false); err != nil {
		return nil, err
	}
	return rows, nil
}

// appendKeyed stores m, one message with a Key and no parent, settled as if the desk were
// empty (Seq 1), unless desk holds its key: in one round trip (insertAhead, keyed). When
// the key is present, nothing was inserted, and a second round trip reads the row holding
// it: m is then that row again, which appendKeyed returns, or a
// *transcript.KeyConflictError (transcript.MatchKey). Unlike appendLocked, it looks the key
// up only when the insert finds it: a new key costs what an append without one does, but
// for the key's index. inserted says whether the row is new.
//
// The insert comes after lockHeadSQL, so it finds the rows of the appends to desk before
// it, which have committed; a row a writer that bypasses the lock has not committed yet
// makes it wait, and then conflict, once that row is committed, or not, if it never is.
// Either way the row found has committed by the time it is looked up.
func (s *Store) appendKeyed(ctx context.Context, conn *pgxpool.Conn, desk string, m transcript.Message) (_ transcript.Message, inserted bool, _ error) {
	rows := []transcript.Message{m}
	inserted, err := s.insertAhead(ctx, conn, desk, rows, true)
	switch {
	case err != nil:
		return transcript.Message{}, false, err
	case inserted:
		return rows[0], true, nil
	}
	var present map[string]*transcript.Message
	var b pgx.Batch
	b.Queue(keyRowSQL, desk, m.Key)
	err = roundTrip(ctx, conn, &b, func(br pgx.BatchResults) error {
		var err error
		present, err = s.readKeys(br, 1)
		return err
	})
	if err != nil {
		return transcript.Message{}, false, fmt.Errorf("pgstore: append to desk %q: %w", desk, err)
	}
	stored := present[m.Key]
	if stored == nil {
		return transcript.Message{}, false, fmt.Errorf("pgstore: append to desk %q: key %q: the insert found it, the lookup did not", desk, m.Key)
	}
	if err := transcript.MatchKey(*stored, m); err != nil {
		return transcript.Message{}, false, err
	}
	return *stored, false, nil
}

// insertAhead stores rows, settled as if the desk were empty, in one round trip: BEGIN, the
// head moved past them (lockHeadSQL), the rows inserted (insertSQL) with their terms
// (insertTermsSQL), COMMIT and the
// notification (notifySQL). The desk's lock is held from the head's move to the COMMIT,
// never while the client reads a result and answers it: the appends queued behind it wait
// for the server's work (and the rest of a large batch on its way), not for the client. It
// renumbers rows, once inserted, above the desk's old head.
//
// keyed, rows is one message with a key, inserted unless desk holds the key, and when it
// was not, the head moved back, both by insertKeySQL: the transaction then commits no
// change, inserted is false, and the notification is spurious (Watch's documentation says
// so).
//
// A test's beforeCommit hook runs between the insert and the COMMIT, which then take a
// round trip each (commit); a keyed insert that inserted nothing is rolled back there.
func (s *Store) insertAhead(ctx context.Context, conn *pgxpool.Conn, desk string, rows []transcript.Message, keyed bool) (inserted bool, err error) {
	args, err := insertArgs(desk, rows, true)
	if err != nil {
		return false, fmt.Errorf("pgstore: append to desk %q: %w", desk, err)
	}
	hold := s.hooks.beforeCommit != nil
	var (
		b    pgx.Batch
		base int64
	)
	b.Queue(beginSQL)
	b.Queue(lockHeadSQL, desk, int64(len(rows)))
	terms := 0 // the results of the terms' inserts (when keyed, insertKeySQL inserts the terms)
	if keyed {
		kargs := keyedTermsArgs(s.searchKey, desk, &rows[0], s.hooks.noTerms)
		b.Queue(insertKeySQL, append(args, kargs...)...)
		if r := kargs[2].(int64); r != 0 {
			var sets readerSets
			sets.add(desk, &rows[0], r)
			terms = sets.queue(&b, desk)
		}
	} else {
		b.Queue(insertSQL, args...)
		terms = queueTerms(&b, s.searchKey, desk, rows, args, s.hooks.noTerms)
	}
	if !hold {
		s.queueCommit(&b, desk)
	}
	committed := false
	err = roundTrip(ctx, conn, &b, func(br pgx.BatchResults) error {
		if _, err := br.Exec(); err != nil {
			return err
		}
		if err := br.QueryRow().Scan(&base); err != nil {
			return err
		}
		if keyed {
			tag, err := br.Exec()
			if err != nil {
				return err
			}
			inserted = tag.RowsAffected() == 0 // the head moved back: the key was present
		} else if err := execInsert(br, len(rows)); err != nil {
			return err
		} else {
			inserted = true
		}
		for range terms {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		if hold {
			return nil
		}
		return readCommit(br, &committed)
	})
	if err != nil && !committed {
		conn.Exec(ctx, "ROLLBACK") // if this fails too, Release closes the connection
		return false, fmt.Errorf("pgstore: append to desk %q: %w", desk, err)
	}
	err = nil // the rows are stored, or wait for the hook's commit: an error left was the notification's
	if inserted {
		for i := range rows {
			r := &rows[i]
			r.Seq += transcript.Sequence(base)
			if r.Parent != 0 {
				r.Parent += transcript.Sequence(base)
			}
		}
	}
	switch {
	case hold && inserted:
		err = s.commit(ctx, conn, desk, rows)
	case hold:
		if _, err = conn.Exec(ctx, "ROLLBACK"); err != nil {
			err = fmt.Errorf("pgstore: append to desk %q: %w", desk, err)
		}
	}
	return inserted, err
}

// appendLocked stores msgs, prepared but not settled: BEGIN, the head moved past all of
// them, and the stored parents and targets lookup names and the stored rows holding keys
// read (by parentSQL and keyRowSQL when there is one, by parentsSQL and keyRowsSQL under
// genericPlansSQL when there are more; when whole, the rows lookup names are read whole, by
// storedRowSQL or storedRowsSQL, as the correction rule needs), in one round trip; then,
// settled (as restored rows when restore), in another (finish). It returns every message as stored, and how many new rows it stored. A
// message the reply rule, its parent or its key refuses is reported by its index, with the
// reason (nothing is stored, and the index is -1 for any other error). A unique violation
// of the key index (keyTaken) is returned as it is, all rolled back, for the caller to try
// again.
func (s *Store) appendLocked(ctx context.Context, conn *pgxpool.Conn, desk string, msgs []transcript.Message, lookup []int64, keys []string, whole, restore bool) (_ []transcript.Message, added, index int, _ error) {
	var (
		b       pgx.Batch
		base    int64
		stored  map[transcript.Sequence]transcript.Message
		present map[string]*transcript.Message
	)
	generic := len(lookup) > 1 || len(keys) > 1 // an array to unnest
	b.Queue(beginSQL)
	if generic {
		b.Queue(genericPlansSQL)
	}
	b.Queue(lockHeadSQL, desk, int64(len(msgs)))
	switch {
	case len(lookup) == 1 && whole:
		b.Queue(storedRowSQL, desk, lookup[0])
	case len(lookup) > 1 && whole:
		b.Queue(storedRowsSQL, desk, lookup)
	case len(lookup) == 1:
		b.Queue(parentSQL, desk, lookup[0])
	case len(lookup) > 1:
		b.Queue(parentsSQL, desk, lookup)
	}
	switch {
	case len(keys) == 1:
		b.Queue(keyRowSQL, desk, keys[0])
	case len(keys) > 1:
		b.Queue(keyRowsSQL, desk, keys)
	}
	err := roundTrip(ctx, conn, &b, func(br pgx.BatchResults) error {
		if _, err := br.Exec(); err != nil {
			return err
		}
		if generic {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		if err := br.QueryRow().Scan(&base); err != nil {
			return err
		}
		var err error
		switch {
		case len(lookup) > 0 && whole:
			if stored, err = s.readStored(br, len(lookup)); err != nil {
				return err
			}
		case len(lookup) > 0:
			if stored, err = s.readParents(br, len(lookup)); err != nil {
				return err
			}
		}
		if len(keys) > 0 {
			present, err = s.readKeys(br, len(keys))
		}
		return err
	})
	if err != nil {
		conn.Exec(ctx, "ROLLBACK")
		return nil, 0, -1, fmt.Errorf("pgstore: append to desk %q: %w", desk, err)
	}
	return s.finish(ctx, conn, desk, msgs, transcript.Sequence(base), stored, present, restore)
}

// finish settles msgs in the transaction on conn, which holds desk's lock and has moved its
// head from base past all of msgs, with the stored parents and the stored rows holding
// their keys (present) it read; then, in one round trip, moves the head back past the
// messages skipped (their keys present), inserts the new rows and their terms
// (insertTermsSQL) and commits. When every
// message is skipped (a replay, a re-import), it rolls back instead: nothing is written,
// the head's move undone. The rows stored before that the append's corrections change are
// updated in the same round trip, after the insert (queueRevisions). When restore, msgs
// are settled by transcript.SettleRestored, which changes no stored row. It returns every message as stored and how many new rows it
// stored, or the index of the message transcript.SettleBatch refused and why, as
// appendLocked does.
func (s *Store) finish(ctx context.Context, conn *pgxpool.Conn, desk string, msgs []transcript.Message, base transcript.Sequence, stored map[transcript.Sequence]transcript.Message, present map[string]*transcript.Message, restore bool) (_ []transcript.Message, _, index int, _ error) {
	settle := transcript.SettleBatch
	if restore {
		settle = transcript.SettleRestored
	}
	settled, i, err := settle(msgs, base, stored, present)
	if err != nil {
		conn.Exec(ctx, "ROLLBACK")
		return nil, 0, i, err
	}
	rows, added := settled.Rows, settled.Added
	if len(added) == 0 { // every message is a stored row already
		conn.Exec(ctx, "ROLLBACK") // undoes the head's move; if it fails, Release closes the connection
		return rows, 0, -1, nil
	}
	args, err := insertArgs(desk, added, false)
	if err != nil {
		conn.Exec(ctx, "ROLLBACK")
		return nil, 0, -1, fmt.Errorf("pgstore: append to desk %q: %w", desk, err)
	}
	skipped := len(msgs) - len(added)
	var b pgx.Batch
	if skipped > 0 {
		b.Queue(returnHeadSQL, desk, int64(skipped))
	}
	b.Queue(insertSQL, args...)
	terms := queueTerms(&b, s.searchKey, desk, added, args, s.hooks.noTerms)
	revisions := queueRevisions(&b, s.searchKey, desk, base, settled.Revisions, stored)
	if s.hooks.beforeCommit == nil {
		s.queueCommit(&b, desk)
	}
	committed := false
	err = roundTrip(ctx, conn, &b, func(br pgx.BatchResults) error {
		if skipped > 0 {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		if err := execInsert(br, len(added)); err != nil {
			return err
		}
		for range terms {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		if err := revisions(br); err != nil || s.hooks.beforeCommit != nil {
			return err
		}
		return readCommit(br, &committed)
	})
	if err != nil && !committed {
		conn.Exec(ctx, "ROLLBACK")
		return nil, 0, -1, fmt.Errorf("pgstore: append to desk %q: %w", desk, err)
	}
	if !committed {
		if err := s.commit(ctx, conn, desk, added); err != nil {
			return nil, 0, -1, err
		}
	}
	return rows, len(added), -1, nil
}

// commit runs the beforeCommit hook, if any, then commits the append of rows.
func (s *Store) commit(ctx context.Context, conn *pgxpool.Conn, desk string, rows []transcript.Message) error {
	if s.hooks.beforeCommit != nil {
		s.hooks.beforeCommit(ctx, desk, rows)
	}
	var b pgx.Batch
	s.queueCommit(&b, desk)
	committed := false
	err := roundTrip(ctx, conn, &b, func(br pgx.BatchResults) error { return readCommit(br, &committed) })
	if err != nil && !committed {
		return fmt.Errorf("pgstore: append to desk %q: %w", desk, err)
	}
	return nil
}

// queueCommit queues, at the end of b, COMMIT and desk's notification after it (notifySQL,
// or the statement a test put in its place): the end of every append that commits, whose
// results readCommit reads.
func (s *Store) queueCommit(b *pgx.Batch, desk string) {
	b.Queue("COMMIT")
	b.Queue(cmp.Or(s.hooks.notifySQL, notifySQL), notifyPayload(desk))
}

// readCommit reads from br the results that queueCommit queued, and sets *committed once
// COMMIT has succeeded. From then on the append's rows are stored, and an error of the
// notification's, or of the round trip after it (a connection lost then), is not the
// append's: readCommit ignores the first, and roundTrip, whose Close returns either one,
// must be judged by *committed, not by its error.
func readCommit(br pgx.BatchResults, committed *bool) error {
	if _, err := br.Exec(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	*committed = true
	br.Exec() // the notification: its error, if any, is not the append's
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

// storedParents returns the distinct parents and targets rows name by Seq, ascending:
// those that may be stored rows, which the reply rule and the correction rule must read.
// It is nil when every Parent and Corrects is 0 or a BatchParent.
func storedParents(rows []transcript.Message) []int64 {
	var seqs []int64
	for _, r := range rows {
		for _, seq := range [2]transcript.Sequence{r.Parent, r.Corrects} {
			if _, batch := seq.BatchIndex(); !batch && seq != 0 {
				seqs = append(seqs, int64(seq))
			}
		}
	}
	slices.Sort(seqs)
	return slices.Compact(seqs)
}
