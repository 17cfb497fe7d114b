package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/token"
)

// The statements that delete a desk (DeleteDesk), each on an index of the desk's name or id.
const (
	deskRowsSQL          = `SELECT id, ifnull((SELECT max(seq) FROM messages WHERE desk = desks.id), 0) FROM desks WHERE name = ?1`
	deskTokensSQL        = `SELECT count(*) FROM tokens WHERE desk = ?1`
	deleteDeskRowsSQL    = `DELETE FROM messages WHERE desk = ?1`
	deleteDeskBooksSQL   = `DELETE FROM books WHERE desk = ?1`
	deleteDeskTokensSQL  = `DELETE FROM tokens WHERE desk = ?1`
	deleteDeskMembersSQL = `DELETE FROM reader_set_members WHERE desk = ?1`
	deleteDeskSetsSQL    = `DELETE FROM reader_sets WHERE desk = ?1`
	// The desk's row stays, under a name no desk can have (see liveDesk), so that its id is
	// never given to another desk: a process that cached what it knew of the deleted desk by
	// its id (its reader sets) can never take it for a later desk's.
	deleteDeskSQL = `UPDATE desks SET name = ' deleted ' || id WHERE id = ?1`
)

// liveDesk is the condition on the desks table that leaves out deleted desks' rows, whose
// names begin with a space, which no desk's name holds.
const liveDesk = `substr(name, 1, 1) <> ' '`

// DeleteDesk deletes desk and what the file keeps of it, in one transaction: its rows,
// their search index entries, its digests, the participants' books of it and, when tokens is true, the
// tokens for it. It returns how many rows the desk held; a desk the file does not hold is
// no error, and has its books and tokens deleted all the same. When tokens is false and
// the file holds a token for desk, revoked or not, DeleteDesk deletes nothing and returns
// an error matching token.ErrDeskHasTokens: a token that outlived its desk would be a
// token for the next desk of that name.
//
// What stays names participants without any content, and is shared with other desks or
// cached by every process that has the file open, whose caches never expire: the authors
// rows (kind, id, label) and the audiences rows (their members). The desk's reader sets
// go; its id is never given to another desk. A desk made later under the same name is a
// new desk: it starts empty, at row 1. With secure_delete on the writer's
// connection and the search index's secure-delete, the deleted rows' text is overwritten
// in the file's pages; once the Store is closed (see Close) no file of the database holds
// it.
//
// Once DeleteDesk returns, every read, in this process or another, finds the desk empty
// and no search finds its words. It takes its turn with appends on the writer connection
// for as long as ctx allows; an append to desk that waits for it makes the desk anew.
func (s *Store) DeleteDesk(ctx context.Context, desk string, tokens bool) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if s.closed.Load() {
		return 0, ErrClosed
	}
	if err := s.writable(); err != nil {
		return 0, err
	}
	what := fmt.Sprintf("deleting desk %q", desk)
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return 0, stmtError(ctx, what, err)
	}
	defer tx.Rollback() // after a Commit, a no-op
	var held int64
	if !tokens {
		if err := tx.QueryRowContext(ctx, deskTokensSQL, desk).Scan(&held); err != nil {
			return 0, stmtError(ctx, what, err)
		}
		if held > 0 {
			return 0, fmt.Errorf("sqlitestore: %s: %d tokens are for it: %w", what, held, token.ErrDeskHasTokens)
		}
	}
	var id, head int64
	switch err := tx.QueryRowContext(ctx, deskRowsSQL, desk).Scan(&id, &head); {
	case errors.Is(err, sql.ErrNoRows):
		id = 0 // no rows: books and tokens only
	case err != nil:
		return 0, stmtError(ctx, what, err)
	}
	if id != 0 {
		if err := s.unindexDesk(ctx, tx, id, transcript.Sequence(head)); err != nil {
			return 0, stmtError(ctx, what, err)
		}
	}
	stmts := []struct {
		sql string
		arg any
	}{
		{deleteDeskRowsSQL, id},
		{deleteDeskDigestsSQL, id},
		{deleteDeskMembersSQL, id},
		{deleteDeskSetsSQL, id},
		{deleteDeskSQL, id},
		{deleteDeskBooksSQL, desk},
	}
	if tokens {
		stmts = append(stmts, struct {
			sql string
			arg any
		}{deleteDeskTokensSQL, desk})
	}
	for _, st := range stmts {
		if _, err := tx.ExecContext(ctx, st.sql, st.arg); err != nil {
			return 0, stmtError(ctx, what, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, stmtError(ctx, what, err)
	}
	return head, nil
}

// unindexDesk deletes, in tx, the search index entry of every row of the desk whose id is
// desk, rows 1 to head: each computed again from the row as stored, as a correction's
// unindex does.
func (s *Store) unindexDesk(ctx context.Context, tx *sql.Tx, desk int64, head transcript.Sequence) error {
	if s.skipIndex {
		return nil
	}
	w := &writeTx{s: s, tx: tx, desk: desk, now: time.Now()}
	for seq := transcript.Sequence(1); seq <= head; seq++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, _, err := w.unindex(ctx, seq); err != nil {
			return err
		}
	}
	return nil
}

// deleteTokenSQL deletes a token by its primary key.
const deleteTokenSQL = `DELETE FROM tokens WHERE id = ?1`

// DeleteToken deletes the token named id for good, so that no list shows it and no lookup
// finds it: for a token that was never given to anyone (serve --demo's, whose secret only
// that process printed). An id the file does not hold is an error matching
// token.ErrUnknown, unquoted when it is not of an ID's form (token.IsID).
func (s *Store) DeleteToken(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.closed.Load() {
		return ErrClosed
	}
	if err := s.writable(); err != nil {
		return err
	}
	if err := checkTokenID("deleting a token", id); err != nil {
		return err
	}
	res, err := s.writer.ExecContext(ctx, deleteTokenSQL, id)
	return tokenWritten(ctx, fmt.Sprintf("deleting token %q", id), res, err)
}
