package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

// A correction's revision of its target (revise, in the append's transaction) deletes the
// digests that stand for the target: the schema's trigger messages_revised_deletes_digests
// (migrations/015_aside_corrections.sql) deletes, in the UPDATE's statement, every digest of
// the target's channel and of its parent's thread whose through is at or above the target's
// seq, for every process that writes the file, when the target is a desk row (its audience
// NULL): a digest folds no aside, and the correction of one deletes none. With
// secure_delete on the writer's connection, their text is overwritten in the pages they
// leave.

// The digests' statements (schema version 12). A read and the newest digest a put extends
// are one SEARCH of the (desk, thread, through) index, backwards from the bound. Whether a
// row appended after a fold's read corrects one it folded is a range of the (desk, seq)
// index above the read, the rows appended while the fold ran; a correction of an aside,
// itself an aside, is none.
const (
	digestSQL = `
SELECT generation, through, row_count, digester, content
FROM digests
WHERE desk = (SELECT id FROM desks WHERE name = ?1) AND thread = ?2 AND through < ?3
ORDER BY through DESC
LIMIT 1`
	newestDigestSQL = `
SELECT generation, through
FROM digests
WHERE desk = ?1 AND thread = ?2
ORDER BY through DESC
LIMIT 1`
	correctedSinceSQL = `
SELECT EXISTS (
	SELECT 1 FROM messages INDEXED BY messages_desk_seq
	WHERE desk = ?1 AND seq > ?2 AND corrects <> 0 AND corrects <= ?3 AND audience IS NULL
)`
	putDigestSQL = `
INSERT INTO digests (desk, thread, generation, through, row_count, digester, content)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)`
	deleteDeskDigestsSQL = `DELETE FROM digests WHERE desk = ?1`
)

// digestStmts are the digests' prepared statements: read and head on the readers, the
// rest on the writer.
type digestStmts struct {
	read, head, newest, correctedSince, put *sql.Stmt
}

// prepareDigests prepares the digests' statements.
func (s *Store) prepareDigests(ctx context.Context) error {
	for _, p := range []struct {
		stmt **sql.Stmt
		db   *sql.DB
		sql  string
	}{
		{&s.digests.read, s.readers, digestSQL},
		{&s.digests.head, s.readers, deskHeadSQL},
		{&s.digests.newest, s.writer, newestDigestSQL},
		{&s.digests.correctedSince, s.writer, correctedSinceSQL},
		{&s.digests.put, s.writer, putDigestSQL},
	} {
		var err error
		if *p.stmt, err = p.db.PrepareContext(ctx, p.sql); err != nil {
			return fmt.Errorf("preparing %q: %w", p.sql, err)
		}
	}
	return nil
}

// Digest implements digest.Store: the newest digest of c whose Through is below below (0:
// no bound), and false when the desk has none, in one SEARCH of the (desk, thread, through)
// index on a reader connection. c must name the Log's desk. A digest that a correction
// deleted is never returned once the correction's Append has returned. When ctx is done
// as it is called, Digest returns an error matching ctx.Err(); once begun, the read, one
// index SEARCH, runs to its end.
func (l *deskLog) Digest(ctx context.Context, c transcript.Conversation, below transcript.Sequence) (transcript.Digest, bool, error) {
	if err := ctx.Err(); err != nil {
		return transcript.Digest{}, false, err
	}
	if l.s.closed.Load() {
		return transcript.Digest{}, false, ErrClosed
	}
	if err := storage.CheckDigestDesk(l.desk, c); err != nil {
		return transcript.Digest{}, false, fmt.Errorf("sqlitestore: %w", err)
	}
	bound := int64(math.MaxInt64)
	if below != 0 && below < math.MaxInt64 {
		bound = int64(below)
	}
	d := transcript.Digest{Conversation: c}
	var through int64
	err := l.s.digests.read.QueryRowContext(boundedRead(ctx), l.desk, int64(c.Thread), bound).Scan(&d.Generation, &through, &d.Rows, &d.Digester, &d.Text)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return transcript.Digest{}, false, nil
	case err != nil:
		if ctxErr := ctx.Err(); ctxErr != nil {
			err = fmt.Errorf("%w (%v)", ctxErr, err)
		}
		return transcript.Digest{}, false, fmt.Errorf("sqlitestore: desk %q: digest of %s below %d: %w", l.desk, storage.ConversationName(c), below, err)
	}
	d.Through = transcript.Sequence(through)
	return d, true, nil
}

// DigestRead implements digest.Store: the desk's head and its id, which no other desk of
// the file ever has (a deleted desk's id is never given again), in one read on a reader
// connection; both 0 when the file holds no row of the desk. Once ctx is done DigestRead
// returns an error matching ctx.Err().
func (l *deskLog) DigestRead(ctx context.Context) (storage.DigestRead, error) {
	if err := ctx.Err(); err != nil {
		return storage.DigestRead{}, err
	}
	if l.s.closed.Load() {
		return storage.DigestRead{}, ErrClosed
	}
	var desk, head int64
	switch err := l.s.digests.head.QueryRowContext(ctx, l.desk).Scan(&desk, &head); {
	case errors.Is(err, sql.ErrNoRows):
		return storage.DigestRead{}, nil
	case err != nil:
		if ctxErr := ctx.Err(); ctxErr != nil {
			err = fmt.Errorf("%w (%v)", ctxErr, err)
		}
		return storage.DigestRead{}, fmt.Errorf("sqlitestore: desk %q: reading its head for a fold: %w", l.desk, err)
	}
	return storage.DigestRead{Head: transcript.Sequence(head), Desk: desk}, nil
}

// PutDigest implements digest.Store: it stores d as generation d.Generation of its
// conversation's digest, in one transaction on the writer connection, which holds the
// file's write lock and so takes its turn with the appends, when the desk is the one read
// names (its id: not a desk made anew under the name of one deleted since), the
// conversation's newest digest is generation d.Generation-1 (none for 1) with a Through
// below d.Through, and no row after read.Head that is no aside corrects a row at or below
// d.Through. Otherwise it stores nothing and returns an error matching
// storage.ErrSuperseded that says which. A digest no fold could have made
// (storage.CheckDigest: another desk, a generation below 1, a Through beyond read, text a
// store cannot keep) is an error matching storage.ErrInvalidDigest, and nothing is stored.
// A read-only Store refuses with ErrReadOnly.
func (l *deskLog) PutDigest(ctx context.Context, d transcript.Digest, r storage.DigestRead) error {
	read := r.Head
	if err := ctx.Err(); err != nil {
		return err
	}
	if l.s.closed.Load() {
		return ErrClosed
	}
	if err := l.s.writable(); err != nil {
		return err
	}
	if err := storage.CheckDigest(l.desk, d, read); err != nil {
		return fmt.Errorf("sqlitestore: %w", err)
	}
	what := fmt.Sprintf("desk %q: digest of %s, generation %d through %d", l.desk, storage.ConversationName(d.Conversation), d.Generation, d.Through)
	failed := func(err error) error { return stmtError(ctx, what, err) }
	superseded := func(why string, args ...any) error {
		return fmt.Errorf("sqlitestore: %s: %w: %s", what, storage.ErrSuperseded, fmt.Sprintf(why, args...))
	}
	tx, err := l.s.writer.BeginTx(ctx, nil) // BEGIN IMMEDIATE: the write lock
	if err != nil {
		return failed(err)
	}
	defer tx.Rollback() // after a Commit, a no-op
	var desk, head int64
	switch err := tx.StmtContext(ctx, l.s.deskHead).QueryRowContext(ctx, l.desk).Scan(&desk, &head); {
	case errors.Is(err, sql.ErrNoRows):
		return superseded("the desk holds no rows")
	case err != nil:
		return failed(err)
	case desk != r.Desk:
		return superseded("the desk its fold read was deleted since, and this desk made anew under its name")
	case head < int64(read):
		return superseded("the desk holds %d rows, fewer than the %d its fold read: it was deleted since", head, read)
	}
	var generation, through int64
	switch err := tx.StmtContext(ctx, l.s.digests.newest).QueryRowContext(ctx, desk, int64(d.Conversation.Thread)).Scan(&generation, &through); {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return failed(err)
	}
	if generation != int64(d.Generation)-1 || through >= int64(d.Through) {
		return superseded("the newest digest is generation %d through %d", generation, through)
	}
	var corrected bool
	if err := tx.StmtContext(ctx, l.s.digests.correctedSince).QueryRowContext(ctx, desk, int64(read), int64(d.Through)).Scan(&corrected); err != nil {
		return failed(err)
	}
	if corrected {
		return superseded("a row appended after %d corrects a row it folded", read)
	}
	if _, err := tx.StmtContext(ctx, l.s.digests.put).ExecContext(ctx, desk, int64(d.Conversation.Thread), d.Generation, int64(d.Through), d.Rows, d.Digester, d.Text); err != nil {
		return failed(err)
	}
	if err := tx.Commit(); err != nil {
		return failed(err)
	}
	return nil
}

// close closes the digests' statements and returns their errors.
func (d *digestStmts) close() []error {
	var errs []error
	for _, stmt := range []*sql.Stmt{d.read, d.head, d.newest, d.correctedSince, d.put} {
		if stmt != nil {
			errs = append(errs, stmt.Close())
		}
	}
	return errs
}
