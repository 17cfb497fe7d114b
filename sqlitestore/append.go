package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

var _ transcript.Store = (*Store)(nil)

// The writer's statements. The head is found on the (desk, seq) index, never by a scan. An
// insert whose key the desk holds already inserts nothing (the (desk, key) index's conflict
// target): that is how Append finds a present key, with no lookup before a new row.
const (
	deskHeadSQL = `
SELECT id, ifnull((SELECT max(seq) FROM messages WHERE desk = desks.id), 0)
FROM desks WHERE name = ?1`
	newDeskSQL = `INSERT INTO desks (name) VALUES (?1)`
	insertSQL  = `
INSERT INTO messages (desk, seq, parent, author, audience, content, at_us, key, corrects, redacted, revised)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
ON CONFLICT (desk, key) WHERE key IS NOT NULL DO NOTHING`
)

// Append stores m as the newest row of desk and returns the stored row: m with Seq one
// above the desk's newest row (1 for a new desk), At, when zero, the time of the append
// (kept to the microsecond and returned in UTC, as reads return it), and Audience as
// transcript.Message.ResolveAudience gives it: in canonical order, and for a reply to an
// aside, filled in with the aside's readers when m leaves it empty. The returned Audience
// is a new slice the caller owns.
//
// Bad input is an *AppendError matching transcript.ErrInvalidMessage, and then nothing is
// stored and no sequence is used: a desk name transcript.ValidateDesk refuses (also
// matching transcript.ErrInvalidDesk), a message that fails transcript.Message.ValidateNew
// (a Seq set by the caller, an invalid author, content that is not UTF-8, an invalid,
// self-naming, duplicate or oversized audience), an author or audience entry whose id or
// label is not UTF-8, a NUL byte in the content, or an author's or audience entry's id or
// label (PostgreSQL text cannot hold one, and pgstore refuses it too, so that a desk can
// move between the stores), content over the limit (WithMaxContent), At outside the years 1
// to 9999, a Parent that is not an older row of the same desk, or a reply the reply rule
// refuses (transcript.Message.ResolveAudience): by an author who may not read its parent
// (also matching transcript.ErrNotReadable), or to an aside with other readers than the
// aside's (transcript.ErrInvalidAudience). Those errors name the parent by its Seq only,
// never its content or its readers.
//
// A correction (m.Corrects != 0: an edit, or with Redacted a redaction) must pass the
// correction rule, transcript.Message.ResolveCorrection, against its target as stored: else
// it is an *AppendError matching transcript.ErrInvalidMessage and transcript.ErrNotReadable
// (a missing target and one its author may not read alike, naming the target by its Seq
// only), transcript.ErrRedacted, transcript.ErrNotAuthor or transcript.ErrInvalidAudience,
// and nothing is written. Its Audience is the target's readers minus its author. In the
// append's transaction the target then takes the edit's content (or is erased) and Revised
// = the correction's Seq, and a redaction erases every earlier correction of the target:
// content "", Redacted set. No row may reply to a correction.
//
// A Key (transcript.Message.Key) is stored with the row; an empty one is no key. When the
// desk holds a row with m's Key already, Append stores nothing and uses no sequence: it
// resolves m's parent and audience as for a new row (the checks above, the reply rule
// included, come first) and hands m and the stored row to storage.MatchKey. When m is
// the same message (the same author identity, parent, audience and content; labels and At
// play no part), Append returns the stored row exactly as a read returns it, with its own
// Seq, At, labels and Audience, a new slice the caller owns; otherwise it fails with an
// *AppendError wrapping the *transcript.KeyConflictError, which names the key and the stored
// row's Seq and quotes neither row's content; it matches transcript.ErrKeyConflict, and not
// transcript.ErrInvalidMessage. A present key is found by the row's insert, in the append's
// transaction, which holds the file's write lock: the (desk, key) index is UNIQUE, and the
// insert inserts nothing when the desk holds the key; then the stored row is read and
// decided, and the transaction, which inserted nothing, is rolled back. So a new key costs
// no lookup of its own, and appends of one key, from any number of goroutines or
// processes, store it once and all return that row. A correction's key is looked up before
// the correction rule is applied, in the same transaction, and a row a redaction erased
// matches whatever m's content: so a retry of an edit after its target's redaction
// returns the erased row instead of being refused.
//
// The search index (see Search) takes the new row's terms, and a correction's change to
// its target's, in the same transaction: a refused append leaves it as it was.
//
// Appends to all desks of a Store take turns on one writer connection; Append waits for its
// turn as long as ctx allows. Once Append returns, every read sees the row.
func (s *Store) Append(ctx context.Context, desk string, m transcript.Message) (transcript.Message, error) {
	stored, _, err := s.AppendNew(ctx, desk, m)
	return stored, err
}

// AppendNew is Append that also says whether it stored a new row: false when m's Key named
// a stored row that is the same message (a replay), which it returns. Of appends of one key
// to one file, from any number of goroutines or processes, exactly one reports a new row.
func (s *Store) AppendNew(ctx context.Context, desk string, m transcript.Message) (transcript.Message, bool, error) {
	b := &storage.Batch{Desk: desk, Messages: []transcript.Message{m}, Single: true, MaxContent: s.maxContent}
	if err := b.Check(); err != nil {
		return transcript.Message{}, false, err
	}
	var (
		stored transcript.Message
		added  int
	)
	err := s.write(ctx, desk, func(w *writeTx) (err error) {
		stored, err = w.appendRows(ctx, b)
		added = w.inserted
		return err
	})
	if err != nil {
		return transcript.Message{}, false, err
	}
	return stored, added == 1, nil
}

// AppendBatch stores msgs as the newest rows of desk, in order, in one transaction: all of
// them or, on any error, none. A message whose Key the desk holds already is not stored
// again: it is decided as Append decides it (storage.MatchKey, on the message with its
// parent and audience resolved), and skipped when it is the same message as the stored row;
// a conflict fails the whole batch with an *AppendError naming the message and wrapping the
// *transcript.KeyConflictError, as for Append. The messages stored take consecutive Seqs
// from head+1, in order, where head is the desk's newest row before the batch; a skipped
// message takes none. A Parent may be transcript.BatchParent(j), naming the batch's j-th
// message (j < i), which AppendBatch replaces with that message's Seq: the stored row's,
// for a skipped message; any other Parent must be a row of the desk, or a row the batch
// stores before the message. Zero At values are all stamped with the time of the batch.
// Each message's Audience is stored as transcript.Message.ResolveAudience gives it, as for
// Append; a reply to an earlier message of the batch replies to that message as it is
// stored, its audience filled in, or, for a skipped one, to the stored row. Bad input, a
// refusal of the reply rule among it, is an *AppendError naming the first bad message, as
// for Append; so is one Key on two messages of msgs (matching transcript.ErrInvalidMessage,
// naming both), found before anything is read or written. The keys present are read in one
// query on the (desk, key) index per 2,000 keys, so a batch whose every message is present
// (a re-import) reads them and writes nothing. Corrections are decided and applied as for
// Append, in order, each seeing what the batch's earlier ones did (an edit, then a
// redaction of one row; not a redaction, then an edit, which is refused), and a Corrects
// may be a BatchParent too. An empty batch stores nothing. AppendBatch reads msgs and never
// modifies them.
func (s *Store) AppendBatch(ctx context.Context, desk string, msgs []transcript.Message) error {
	return s.appendBatch(ctx, &storage.Batch{Desk: desk, Messages: msgs})
}

// appendBatch stores b's messages, AppendBatch's or RestoreBatch's.
func (s *Store) appendBatch(ctx context.Context, b *storage.Batch) error {
	b.MaxContent = s.maxContent
	if err := b.Check(); err != nil {
		return err
	}
	if len(b.Messages) == 0 {
		return nil
	}
	return s.write(ctx, b.Desk, func(w *writeTx) error {
		_, err := w.appendRows(ctx, b)
		return err
	})
}

// appendRows stores b's messages, which b.Check accepts, as the rows after the desk's head,
// and returns the last message as stored, or as the desk holds it already.
//
// A batch reads the rows of the desk holding its messages' keys first, in one query (a
// chunk of keyLookupChunk keys a query), and the stored parents and targets in another;
// then b.Settle decides every message, the revisions of stored rows are written (revise),
// and the new rows are inserted in order, many an INSERT (insertRows). Append's one message
// skips the key lookup, unless it is a correction: its insert finds a present key
// (insertSQL), and then the stored row is read and the message settled again against it. A
// correction's key is looked up first, since the correction rule would refuse a retry
// after its target's redaction that Settle, knowing the stored row, replays. The first
// refusal or conflict ends it, and the transaction is rolled back.
func (w *writeTx) appendRows(ctx context.Context, b *storage.Batch) (transcript.Message, error) {
	var present map[string]*transcript.Message // Append's key is found by its insert instead
	if m := b.Messages[0]; !b.Single || (m.IsCorrection() && m.Key != "") {
		var err error
		if present, err = w.presentRows(ctx, b); err != nil {
			return transcript.Message{}, err
		}
	}
	stored, err := w.parentRows(ctx, b, present)
	if err != nil {
		return transcript.Message{}, err
	}
	settled, err := b.Settle(w.head, stored, present)
	if err != nil {
		return transcript.Message{}, err
	}
	if err := w.revise(ctx, settled.Revisions); err != nil {
		return transcript.Message{}, err
	}
	last := settled.Rows[len(settled.Rows)-1]
	if !b.Single {
		added := settled.Added
		if err := w.insertRows(ctx, added); err != nil {
			return transcript.Message{}, err
		}
		if n := len(added); n > 0 && added[n-1].Seq == last.Seq {
			last.At = time.UnixMicro(w.atMicros(last.At)).UTC()
		}
		return last, nil
	}
	if len(settled.Added) == 0 { // a correction's present key, looked up above
		return last, nil
	}
	row, inserted, err := w.insert(ctx, settled.Added[0])
	if err != nil || inserted {
		return row, err
	}
	// Append's key is present. The transaction inserted nothing, so write rolls it back,
	// and with it any authors or audiences row the insert created.
	held, err := w.rowByKey(ctx, b.Messages[0].Key)
	if err != nil {
		return transcript.Message{}, err
	}
	if settled, err = b.Settle(w.head, stored, map[string]*transcript.Message{held.Key: &held}); err != nil {
		return transcript.Message{}, err
	}
	return settled.Rows[0], nil
}

// parentRows returns the stored rows b's messages reply to or correct, by Seq, as
// b.Settle wants them: every Parent and Corrects from 1 to the desk's head (sequences are
// dense, so each is a row), the rows present holds taken from it, the others read in one
// query, the targets' content with them.
func (w *writeTx) parentRows(ctx context.Context, b *storage.Batch, present map[string]*transcript.Message) (map[transcript.Sequence]transcript.Message, error) {
	var bySeq map[transcript.Sequence]*transcript.Message
	if len(present) > 0 {
		bySeq = make(map[transcript.Sequence]*transcript.Message, len(present))
		for _, m := range present {
			bySeq[m.Seq] = m
		}
	}
	refs, targetRefs, _ := b.Reads()
	var seqs, targets []int64
	var held map[transcript.Sequence]transcript.Message
	for _, p := range refs {
		if p > w.head {
			break
		}
		if row, ok := bySeq[p]; ok {
			if held == nil {
				held = make(map[transcript.Sequence]transcript.Message)
			}
			held[p] = *row
			continue
		}
		seqs = append(seqs, int64(p))
		if _, ok := slices.BinarySearch(targetRefs, p); ok {
			targets = append(targets, int64(p))
		}
	}
	stored, err := w.storedParents(ctx, seqs, targets)
	if err != nil || len(held) == 0 {
		return stored, err
	}
	if stored == nil {
		return held, nil
	}
	maps.Copy(stored, held)
	return stored, nil
}

// writeTx is one append's transaction, holding the writer connection and the desk's write
// lock (the whole file's: SQLite has one writer).
type writeTx struct {
	s          *Store
	tx         *sql.Tx
	insertStmt *sql.Stmt
	desk       int64                                          // the desk's id
	head       transcript.Sequence                            // the desk's newest row when the transaction began
	now        time.Time                                      // the time of the append, for zero At values
	inserted   int                                            // rows inserted so far; none, and write rolls back
	entries    []byte                                         // the search index's entry being written (see index)
	list       []byte                                         // the entries queued for the search index (see index)
	queued     int                                            // how many rows list holds the entries of
	firstID    int64                                          // the messages.id of list's first row
	hasher     tokenHasher                                    // the search index's tokens (see entryOf)
	sets       txReaderSets                                   // reader sets found or created in the transaction
	authors    interned[transcript.Author, transcript.Author] // authors rows found or created in the transaction
	audiences  interned[string, []transcript.Author]          // audiences rows found or created in the transaction
}

// write runs fn in a write transaction on desk, creating the desk's row when it has none,
// and commits when fn returns nil, unless fn inserted no row: then it rolls back, so that a
// replay leaves the file as it was. The transaction begins IMMEDIATE: it holds the write
// lock from the start, so the head it reads stays the head until it commits, sequences are
// assigned in commit order, and a key looked up in it stays present or absent.
func (s *Store) write(ctx context.Context, desk string, fn func(w *writeTx) error) (err error) {
	if s.closed.Load() {
		return ErrClosed
	}
	if err := s.writable(); err != nil {
		return err
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
	w := &writeTx{s: s, tx: tx, now: time.Now(), authors: interned[transcript.Author, transcript.Author]{cache: s.authors},
		audiences: interned[string, []transcript.Author]{cache: s.audiences}}
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
	if w.inserted == 0 { // every key present: nothing to keep, authors and audiences rows included
		if err := tx.Rollback(); err != nil {
			return s.writeError(ctx, desk, err)
		}
		return nil
	}
	if err := tx.Commit(); err != nil {
		return s.writeError(ctx, desk, err)
	}
	s.announce(desk, w.desk, int64(w.head)+int64(w.inserted)) // the new rows run on from the head
	w.authors.commit()
	w.audiences.commit()
	for k, id := range w.sets.known {
		s.readerSets.add(k, id)
	}
	return nil
}

// insert stores m, whose Seq, Parent and Audience are final, and returns it as stored, and
// whether it was: not when the desk holds m's Key already.
func (w *writeTx) insert(ctx context.Context, m transcript.Message) (transcript.Message, bool, error) {
	args, err := w.rowArgs(ctx, make([]any, 0, insertParams), m)
	if err != nil {
		return transcript.Message{}, false, err
	}
	res, err := w.insertStmt.ExecContext(ctx, args...)
	if err != nil {
		return transcript.Message{}, false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return transcript.Message{}, false, err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return transcript.Message{}, false, err
	}
	if err := w.index(ctx, id, []transcript.Message{m}); err != nil {
		return transcript.Message{}, false, err
	}
	if err := w.flushIndex(ctx); err != nil {
		return transcript.Message{}, false, err
	}
	w.inserted++
	m.At = time.UnixMicro(w.atMicros(m.At)).UTC()
	return m, true, nil
}

// insertParams is how many parameters insertSQL binds for a row: one a column it sets.
const insertParams = 11

// rowArgs appends to args the parameters that store m, whose Seq, Parent and Audience are
// final, as a row of insertSQL's columns, finding or creating its author's and audience's
// rows. An empty Key is stored as NULL, and a zero At as the time of the append.
func (w *writeTx) rowArgs(ctx context.Context, args []any, m transcript.Message) ([]any, error) {
	author, err := w.authorID(ctx, m.Author)
	if err != nil {
		return nil, err
	}
	var audience any // NULL: a desk row
	if len(m.Audience) > 0 {
		if audience, err = w.audienceID(ctx, m.Audience); err != nil {
			return nil, err
		}
	}
	var key any // NULL: no key
	if m.Key != "" {
		key = m.Key
	}
	return append(args, w.desk, int64(m.Seq), int64(m.Parent), author, audience, m.Content, w.atMicros(m.At), key,
		int64(m.Corrects), m.Redacted, int64(m.Revised)), nil
}

// insertChunk is how many rows one INSERT of a batch stores: insertParams parameters a row,
// 2,048 a statement, far below SQLite's limit of 32,766, and a statement long enough that what each
// costs once (a call through database/sql, a step of SQLite's VM) is spread thin.
const insertChunk = 256

// insertRowsSQL is the INSERT of n rows, insertSQL's columns and conflict target.
func insertRowsSQL(n int) string {
	return valuesSQL("INSERT INTO messages (desk, seq, parent, author, audience, content, at_us, key, corrects, redacted, revised) VALUES ",
		"(?,?,?,?,?,?,?,?,?,?,?)", n, " ON CONFLICT (desk, key) WHERE key IS NOT NULL DO NOTHING")
}

// valuesSQL is the statement head, then row, a VALUES tuple of parameters, n times, comma
// separated, then tail.
func valuesSQL(head, row string, n int, tail string) string {
	var b strings.Builder
	b.WriteString(head)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(row)
	}
	b.WriteString(tail)
	return b.String()
}

// insertRows stores a batch's new rows, whose Seq, Parent and Audience are final and none of
// whose keys the desk holds (the batch looked them up under the write lock it still holds),
// as rowArgs stores one, in INSERTs of insertChunk rows (the prepared insertMany) and one of
// the rest.
func (w *writeTx) insertRows(ctx context.Context, rows []transcript.Message) error {
	args := make([]any, 0, insertParams*min(len(rows), insertChunk))
	var full *sql.Stmt // insertMany in the transaction, once a chunk is full
	for start := 0; start < len(rows); start += insertChunk {
		chunk := rows[start:min(start+insertChunk, len(rows))]
		args = args[:0]
		for _, m := range chunk {
			var err error
			if args, err = w.rowArgs(ctx, args, m); err != nil {
				return err
			}
		}
		var res sql.Result
		var err error
		if len(chunk) == insertChunk {
			if full == nil {
				full = w.tx.StmtContext(ctx, w.s.insertMany)
			}
			res, err = full.ExecContext(ctx, args...)
		} else {
			res, err = w.tx.ExecContext(ctx, insertRowsSQL(len(chunk)), args...)
		}
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		w.inserted += int(n)
		if int(n) != len(chunk) {
			return fmt.Errorf("rows %d to %d: a key is in the desk although the batch's lookup did not find it", chunk[0].Seq, chunk[len(chunk)-1].Seq)
		}
		// One INSERT of many rows gives them consecutive ids, each one above the file's
		// largest: the last is the statement's.
		last, err := res.LastInsertId()
		if err != nil {
			return err
		}
		if err := w.index(ctx, last-int64(len(chunk))+1, chunk); err != nil {
			return err
		}
	}
	return w.flushIndex(ctx)
}

// atMicros is the at_us a row of the append stores for at: at, or the time of the append
// when at is zero, in microseconds since the Unix epoch.
func (w *writeTx) atMicros(at time.Time) int64 {
	if at.IsZero() {
		at = w.now
	}
	return at.UnixMicro()
}

// writeError wraps a failed write; when ctx is done, the error matches ctx.Err().
func (s *Store) writeError(ctx context.Context, desk string, err error) error {
	return stmtError(ctx, fmt.Sprintf("append to desk %q", desk), err)
}
