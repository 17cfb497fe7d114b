package pgstore

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

var _ transcript.Store = (*Store)(nil)

// beginSQL opens an append's transaction READ COMMITTED whatever the server's or the DSN's
// default: the desk row's lock orders appends, and each statement after it must see the rows
// the appends before it committed (a later snapshot than REPEATABLE READ would give).
const beginSQL = "BEGIN ISOLATION LEVEL READ COMMITTED"

// Append stores m as the newest row of desk, creating the desk on its first row, as
// transcript.Appender describes. At is stored in UTC, rounded down to the microsecond, and
// returned as stored. Besides transcript.Message.ValidateNew's rules, content is at most
// the store's limit (WithMaxContent) and text holds no NUL byte (ErrText). A refusal is an
// *AppendError. A correction (m.Corrects set) is decided by
// transcript.Message.ResolveCorrection against its target as stored, and applied to it in
// the same transaction: the target's content, Redacted and Revised change, and a redaction
// erases its earlier corrections too.
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
	rows, added, err := s.append(ctx, &storage.Batch{Desk: desk, Messages: []transcript.Message{m}, Single: true})
	if err != nil {
		return transcript.Message{}, false, err
	}
	return rows[0], added == 1, nil
}

// AppendBatch stores msgs as the newest rows of desk, in order, in one transaction: all of
// them or, on any error, none. Each message follows Append's rules, except that its Parent
// (or its Corrects) may also be transcript.BatchParent(j) for an earlier message j of msgs;
// a reply to an aside of the batch gets the aside's readers, and the corrections apply in
// order (storage.Batch.Settle is the rule). A message whose Key desk holds is skipped
// when it is the same message as the stored row (a BatchParent naming it resolves to the
// stored row), and fails the whole batch otherwise; the stored messages take consecutive
// Seqs, so a re-import writes nothing. A refusal is an *AppendError naming the message's
// index; one Key on two messages is ErrDuplicateKey. An empty batch stores nothing; msgs
// are not modified.
func (s *Store) AppendBatch(ctx context.Context, desk string, msgs []transcript.Message) error {
	_, _, err := s.append(ctx, &storage.Batch{Desk: desk, Messages: msgs})
	return err
}

// RestoreBatch is AppendBatch for rows an export wrote, which it stores as they were stored
// (storage.Batch's Restore): a row's Revised and Redacted are kept, a redacted row holds
// no content, and a correction is decided by the correction rule; one of a row restored with
// it is not applied again, since the row holds its result, and may correct a redacted row;
// one of a row stored before is applied as AppendBatch applies it (a later export's
// correction of a row an earlier one brought). The store's content limit
// holds. All or nothing, with AppendBatch's errors.
func (s *Store) RestoreBatch(ctx context.Context, desk string, rows []transcript.Message) error {
	_, _, err := s.append(ctx, &storage.Batch{Desk: desk, Messages: rows, Restore: true})
	return err
}

// keyAttempts is how many times an append is tried when its insert finds a key that its
// lookup did not (keyTaken): a writer outside this package inserted it meanwhile.
const keyAttempts = 3

// append stores b's messages and returns every message as stored (the new rows, and the
// stored rows that messages with a present key are) and how many new rows it stored; then
// it tells the Logs and the standbys' fences (appended), or, when it failed, the Logs
// (failed). b.Check comes first, on the messages with their At stamped (prepare); an
// empty batch stores nothing. Then one of three ways stores them, each in one
// transaction that holds the desk's lock from the head's move to the COMMIT, and each
// queueing notifySQL right after its COMMIT, in the same round trip:
//
//   - ahead: no message names a stored row (every Parent is 0 or a BatchParent), none is a
//     correction, the batch is not a restore, and no message has a Key: the rows are
//     settled before anything is sent, as if the desk were empty, and the append is one
//     round trip (insertAhead).
//   - keyed: the same, for one message with a Key: its insert is made conditional on the
//     key's absence, and the row holding the key is read only when it is present
//     (appendKeyed).
//   - locked: every other append, and one the first two ways would refuse, so that its error
//     names rows by the Seqs they would have had: a first round trip moves the head and
//     reads, under the desk's lock, what b.Reads names (lockAndRead), and a second inserts
//     the new rows and commits, or rolls back when every message is a stored row already
//     (finish).
//
// A keyed batch takes the locked way: a conditional insert of many rows would skip the
// present ones and leave their Seqs as gaps.
func (s *Store) append(ctx context.Context, b *storage.Batch) ([]transcript.Message, int, error) {
	if len(b.Messages) == 0 {
		if err := s.writable(fmt.Sprintf("append to desk %q", b.Desk)); err != nil {
			return nil, 0, err
		}
		return nil, 0, b.Check()
	}
	rows, added, err := s.store(ctx, b)
	if err != nil {
		s.failed(b.Desk, b.Messages)
		return nil, 0, err
	}
	s.appended(b.Desk, rows)
	return rows, added, nil
}

// store checks b and stores it, the way its messages allow.
func (s *Store) store(ctx context.Context, b *storage.Batch) ([]transcript.Message, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	if err := s.writable(fmt.Sprintf("append to desk %q", b.Desk)); err != nil {
		return nil, 0, err
	}
	b.Messages, b.MaxContent = prepare(b.Messages, time.Now()), s.maxContent
	if err := b.Check(); err != nil {
		return nil, 0, err
	}
	ahead, keyed := settleAhead(b)
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("pgstore: append to desk %q: %w", b.Desk, err)
	}
	defer conn.Release() // a connection left inside a transaction is closed, not reused
	switch {
	case ahead != nil && !keyed:
		if _, err := s.insertAhead(ctx, conn, b.Desk, ahead, false); err != nil {
			return nil, 0, err
		}
		return ahead, len(ahead), nil
	case ahead != nil:
		return s.appendKeyed(ctx, conn, b, ahead[0])
	}
	locked := *b // the locked way's state lives on the heap; the ways above need none
	for attempt := 1; ; attempt++ {
		w := lockedAppend{s: s, conn: conn, b: &locked}
		rows, added, err := w.run(ctx)
		if err != nil && keyTaken(err) && attempt < keyAttempts {
			continue // rolled back: the next lookup finds the key
		}
		return rows, added, err
	}
}

// settleAhead returns b's rows settled as if the desk were empty, when they may be stored
// so (the ahead and keyed ways of append): no message names a stored row, none is a
// correction, b is no restore, and at most one message, b's only one, has a Key; keyed
// says whether it has. Otherwise, or when Settle refuses them as they are (the locked way
// then names the rows by the Seqs they would have), it returns nil.
func settleAhead(b *storage.Batch) (rows []transcript.Message, keyed bool) {
	seqs, _, keys := b.Reads()
	if len(seqs) > 0 || (len(keys) > 0 && len(b.Messages) > 1) || b.Restore || holdsCorrection(b.Messages) {
		return nil, false
	}
	settled, err := b.Settle(0, nil, nil)
	if err != nil {
		return nil, false
	}
	return settled.Rows, len(keys) > 0
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

// prepare returns msgs ready to store: At stamped with now when zero, in UTC and rounded
// down to the microsecond, as PostgreSQL keeps it, in a new slice.
func prepare(msgs []transcript.Message, now time.Time) []transcript.Message {
	prepared := make([]transcript.Message, len(msgs))
	for i, m := range msgs {
		if m.At.IsZero() {
			m.At = now
		}
		m.At = m.At.Truncate(time.Microsecond).UTC()
		prepared[i] = m
	}
	return prepared
}

// appendKeyed stores m, b's one message, with a Key and no parent, settled as if the desk
// were empty (Seq 1), unless desk holds its key: in one round trip (insertAhead, keyed).
// When the key is present, nothing was inserted, and a second round trip reads the row
// holding it, against which b is settled again: m is then that row again, or a
// *transcript.KeyConflictError. Unlike the locked way, it looks the key up only when the
// insert finds it: a new key costs what an append without one does, but for the key's
// index. It returns the row as stored and how many rows it inserted.
//
// The insert comes after lockHeadSQL, so it finds the rows of the appends to desk before
// it, which have committed; a row a writer that bypasses the lock has not committed yet
// makes it wait, and then conflict, once that row is committed, or not, if it never is.
// Either way the row found has committed by the time it is looked up.
func (s *Store) appendKeyed(ctx context.Context, conn *pgxpool.Conn, b *storage.Batch, m transcript.Message) ([]transcript.Message, int, error) {
	rows := []transcript.Message{m}
	inserted, err := s.insertAhead(ctx, conn, b.Desk, rows, true)
	switch {
	case err != nil:
		return nil, 0, err
	case inserted:
		return rows, 1, nil
	}
	var present map[string]*transcript.Message
	var q pgx.Batch
	q.Queue(keyRowSQL, b.Desk, m.Key)
	err = roundTrip(ctx, conn, &q, func(br pgx.BatchResults) error {
		var err error
		present, err = s.readKeys(br, 1)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("pgstore: append to desk %q: %w", b.Desk, err)
	}
	if present[m.Key] == nil {
		return nil, 0, fmt.Errorf("pgstore: append to desk %q: key %q: the insert found it, the lookup did not", b.Desk, m.Key)
	}
	settled, err := b.Settle(present[m.Key].Seq, nil, present) // m names no stored row: the head is at least the key's
	if err != nil {
		return nil, 0, err
	}
	return settled.Rows, 0, nil
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
	terms := s.queueInsertAhead(&b, desk, rows, args, keyed)
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
		var err error
		if inserted, err = readInsertAhead(br, keyed, len(rows)); err != nil {
			return err
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
		renumber(rows, transcript.Sequence(base))
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

// queueInsertAhead queues on b the insert of rows, settled as if the desk were empty, with
// args (insertArgs, relative), and their terms, and returns how many results the terms'
// inserts have. keyed, rows is one message with a key, inserted by insertKeySQL, which
// inserts its terms too, and its reader set's inserts follow.
func (s *Store) queueInsertAhead(b *pgx.Batch, desk string, rows []transcript.Message, args []any, keyed bool) (terms int) {
	if !keyed {
		b.Queue(insertSQL, args...)
		return queueTerms(b, s.searchKey, desk, rows, args, s.hooks.noTerms)
	}
	kargs := keyedTermsArgs(s.searchKey, desk, &rows[0], s.hooks.noTerms)
	b.Queue(insertKeySQL, append(args, kargs...)...)
	if r := kargs[2].(int64); r != 0 {
		var sets readerSets
		sets.add(desk, &rows[0], r)
		return sets.queue(b, desk)
	}
	return 0
}

// readInsertAhead reads the result of queueInsertAhead's insert of n rows, and reports
// whether they were inserted: a keyed insert that moved the head back found its key present.
func readInsertAhead(br pgx.BatchResults, keyed bool, n int) (inserted bool, err error) {
	if !keyed {
		return true, execInsert(br, n)
	}
	tag, err := br.Exec()
	return err == nil && tag.RowsAffected() == 0, err // an update: the head moved back, the key present
}

// renumber moves rows, settled as if the desk were empty, above base, the desk's head
// before them: their Seqs, and the Parents that name rows of rows.
func renumber(rows []transcript.Message, base transcript.Sequence) {
	for i := range rows {
		r := &rows[i]
		r.Seq += base
		if r.Parent != 0 {
			r.Parent += base
		}
	}
}

// lockedAppend is one append the locked way: b's messages, stored on conn in two round
// trips, the first of which moves the desk's head past them all (lockAndRead), the second
// of which inserts those that are new rows and commits (finish).
type lockedAppend struct {
	s    *Store
	conn *pgxpool.Conn
	b    *storage.Batch

	head    transcript.Sequence                        // the desk's head before the append
	stored  map[transcript.Sequence]transcript.Message // the stored rows b names, by Seq
	present map[string]*transcript.Message             // the stored rows holding b's keys
}

// run stores w's batch and returns every message as stored, and how many new rows it
// stored. A refusal is b.Settle's *AppendError, and nothing is stored. A unique violation
// of the key index (keyTaken) is returned as it is, all rolled back, for the caller to try
// again.
func (w *lockedAppend) run(ctx context.Context) ([]transcript.Message, int, error) {
	if err := w.lockAndRead(ctx); err != nil {
		w.conn.Exec(ctx, "ROLLBACK") // if this fails too, Release closes the connection
		return nil, 0, fmt.Errorf("pgstore: append to desk %q: %w", w.b.Desk, err)
	}
	settled, err := w.b.Settle(w.head, w.stored, w.present)
	if err != nil {
		w.conn.Exec(ctx, "ROLLBACK")
		return nil, 0, err
	}
	if len(settled.Added) == 0 { // every message is a stored row already
		w.conn.Exec(ctx, "ROLLBACK") // undoes the head's move
		return settled.Rows, 0, nil
	}
	committed, err := w.finish(ctx, settled)
	if err != nil && !committed {
		w.conn.Exec(ctx, "ROLLBACK")
		return nil, 0, fmt.Errorf("pgstore: append to desk %q: %w", w.b.Desk, err)
	}
	if !committed {
		if err := w.s.commit(ctx, w.conn, w.b.Desk, settled.Added); err != nil {
			return nil, 0, err
		}
	}
	return settled.Rows, len(settled.Added), nil
}

// lockAndRead begins the transaction, moves the desk's head past all of w's messages and
// reads, under the desk's lock, what b.Reads names, in one round trip: the stored parents
// and targets (by parentSQL, or parentsSQL when there are more; read whole, by storedRowSQL
// or storedRowsSQL, when the batch is a restore or holds a correction, as the correction
// rule needs) and the stored rows holding the keys (keyRowSQL or keyRowsSQL). With more
// than one parent or key, the reads run their generic plans (genericPlansSQL).
func (w *lockedAppend) lockAndRead(ctx context.Context) error {
	desk := w.b.Desk
	seqs, _, keys := w.b.Reads()
	whole := w.b.Restore || holdsCorrection(w.b.Messages)
	rowsSQL, rowsArg := storedRowsQuery(seqs, whole)
	keysSQL, keysArg := keyRowsQuery(keys)
	generic := len(seqs) > 1 || len(keys) > 1 // an array to unnest
	var b pgx.Batch
	b.Queue(beginSQL)
	if generic {
		b.Queue(genericPlansSQL)
	}
	b.Queue(lockHeadSQL, desk, int64(len(w.b.Messages)))
	if rowsSQL != "" {
		b.Queue(rowsSQL, desk, rowsArg)
	}
	if keysSQL != "" {
		b.Queue(keysSQL, desk, keysArg)
	}
	return roundTrip(ctx, w.conn, &b, func(br pgx.BatchResults) error {
		if _, err := br.Exec(); err != nil { // BEGIN
			return err
		}
		if generic {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		var head int64
		if err := br.QueryRow().Scan(&head); err != nil {
			return err
		}
		w.head = transcript.Sequence(head)
		var err error
		switch {
		case rowsSQL != "" && whole:
			w.stored, err = w.s.readStored(br, len(seqs))
		case rowsSQL != "":
			w.stored, err = w.s.readParents(br, len(seqs))
		}
		if err == nil && keysSQL != "" {
			w.present, err = w.s.readKeys(br, len(keys))
		}
		return err
	})
}

// storedRowsQuery returns the statement that reads the stored rows of seqs, and its
// argument: parentSQL for one, parentsSQL for more, or, whole, storedRowSQL or
// storedRowsSQL; "" for none.
func storedRowsQuery(seqs []transcript.Sequence, whole bool) (string, any) {
	lookup := make([]int64, len(seqs))
	for i, seq := range seqs {
		lookup[i] = int64(seq)
	}
	switch {
	case len(lookup) == 0:
		return "", nil
	case len(lookup) == 1 && whole:
		return storedRowSQL, lookup[0]
	case whole:
		return storedRowsSQL, lookup
	case len(lookup) == 1:
		return parentSQL, lookup[0]
	}
	return parentsSQL, lookup
}

// keyRowsQuery returns the statement that reads the stored rows holding keys, and its
// argument: keyRowSQL for one, keyRowsSQL for more; "" for none.
func keyRowsQuery(keys []string) (string, any) {
	switch len(keys) {
	case 0:
		return "", nil
	case 1:
		return keyRowSQL, keys[0]
	}
	return keyRowsSQL, keys
}

// finish writes what settled decides in the transaction lockAndRead began, in one round
// trip: the head moved back past the messages skipped (their keys present), the new rows
// inserted with their terms (insertTermsSQL), the rows stored before that the append's
// corrections change updated (queueRevisions), and COMMIT with the notification, unless a
// test's beforeCommit hook is set (then run commits). committed says whether the COMMIT
// succeeded: from then on the rows are stored, whatever the error.
func (w *lockedAppend) finish(ctx context.Context, settled storage.Settlement) (committed bool, _ error) {
	desk, added, hook := w.b.Desk, settled.Added, w.s.hooks.beforeCommit != nil
	args, err := insertArgs(desk, added, false)
	if err != nil {
		return false, err
	}
	skipped := len(w.b.Messages) - len(added)
	var b pgx.Batch
	if skipped > 0 {
		b.Queue(returnHeadSQL, desk, int64(skipped))
	}
	b.Queue(insertSQL, args...)
	terms := queueTerms(&b, w.s.searchKey, desk, added, args, w.s.hooks.noTerms)
	revisions := queueRevisions(&b, w.s.searchKey, desk, w.head, settled.Revisions, w.stored)
	if !hook {
		w.s.queueCommit(&b, desk)
	}
	err = roundTrip(ctx, w.conn, &b, func(br pgx.BatchResults) error {
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
		if err := revisions(br); err != nil || hook {
			return err
		}
		return readCommit(br, &committed)
	})
	return committed, err
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
