package pgstore

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5"

	"github.com/sharedesk/transcript/token"
)

// The statements that delete a desk (DeleteDesk), each on an index that leads with the desk's
// name. lockDeskSQL deletes the desk's row first: it takes the row's lock, which every append
// to the desk takes (lockHeadSQL), so the delete waits for the appends in flight and an
// append that comes after it makes the desk anew.
const (
	lockDeskSQL         = `DELETE FROM transcript_desks WHERE name = $1 RETURNING head`
	deskTokensSQL       = `SELECT count(*) FROM transcript_tokens WHERE desk = $1`
	deleteDeskTokensSQL = `DELETE FROM transcript_tokens WHERE desk = $1`
)

// deletedNotifySQL tells the database's listeners that desk $1 was deleted, once the
// deletion commits: its head, read after the deletion, is 0 (notifySQL).
const deletedNotifySQL = `SELECT ` + notifyHeadsSQL + `, pg_notify('` + notifyChannel + `', $1)`

// deleteDeskSQL are the statements that delete what the database keeps of desk $1 besides
// its row and its tokens.
var deleteDeskSQL = []string{
	`DELETE FROM transcript_messages WHERE desk = $1`,
	`DELETE FROM transcript_terms WHERE desk = $1`,
	`DELETE FROM transcript_term_readers WHERE desk = $1`,
	`DELETE FROM transcript_books WHERE desk = $1`,
	`DELETE FROM transcript_digests WHERE desk = $1`,
}

// DeleteDesk deletes desk and everything the database keeps of it, in one transaction: its
// rows, their search index entries and reader sets, its digests, the participants' books of it and,
// when tokens is true, the tokens for it. It returns how many rows the desk held; a desk
// the database does not hold is no error, and has its books and tokens deleted all the
// same. When tokens is false and the database holds a token for desk, revoked or not,
// DeleteDesk deletes nothing and returns an error matching token.ErrDeskHasTokens: a token
// that outlived its desk would be a token for the next desk of that name.
//
// It waits for the appends to desk in flight (it takes the desk row's lock, as each of
// them does); an append that waits for it makes the desk anew, from row 1. Watch names the
// desk once the delete commits, so that every Store on the database drops the desk's rows
// it read ahead, and WatchHeads reports it as 0. This Store forgets what it knew of the
// desk's rows (its fences), and reads the desk from a standby only once that standby has
// replayed the delete, so that no read through this Store after DeleteDesk returns shows a
// row it deleted. Another Store with standbys does the same once its Watch named the
// deletion; before that, a standby may show it the deleted desk until it replays the
// delete. PostgreSQL keeps deleted rows' text in the table's pages until VACUUM reuses
// them (transcript compact runs VACUUM FULL).
func (s *Store) DeleteDesk(ctx context.Context, desk string, tokens bool) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	what := fmt.Sprintf("deleting desk %q", desk)
	if err := s.writable(what); err != nil {
		return 0, err
	}
	var head int64
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}, func(tx pgx.Tx) error {
		switch err := tx.QueryRow(ctx, lockDeskSQL, desk).Scan(&head); {
		case errors.Is(err, pgx.ErrNoRows):
			head = 0
		case err != nil:
			return err
		}
		if !tokens {
			var held int64
			if err := tx.QueryRow(ctx, deskTokensSQL, desk).Scan(&held); err != nil {
				return err
			}
			if held > 0 {
				return fmt.Errorf("%d tokens are for it: %w", held, token.ErrDeskHasTokens)
			}
		}
		stmts := deleteDeskSQL
		if tokens {
			stmts = append(stmts[:len(stmts):len(stmts)], deleteDeskTokensSQL)
		}
		for _, stmt := range stmts {
			if _, err := tx.Exec(ctx, stmt, desk); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, deletedNotifySQL, notifyPayload(desk))
		return err
	})
	if err != nil {
		return 0, stmtError(ctx, what, err)
	}
	s.heads.forget(desk)
	s.replicas.fences.forget(desk)
	if s.replicas.active() {
		s.replicas.fences.deletedAt(desk, s.walPosition(ctx))
	}
	s.changes.bump(desk) // last: rows a read took from a standby before the line above are stale
	return head, nil
}

// walPositionSQL reads the primary's WAL insert position as a number of bytes: after a
// commit, at or past the commit's record.
const walPositionSQL = `SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::int8`

// walPosition returns where the primary's WAL stands now, or, when it cannot be read, a
// position no standby reaches: the reads it guards then go to the primary.
func (s *Store) walPosition(ctx context.Context) int64 {
	ctx, cancel := attempt(context.WithoutCancel(ctx))
	defer cancel()
	var lsn int64
	if err := s.pool.QueryRow(ctx, walPositionSQL).Scan(&lsn); err != nil {
		return math.MaxInt64
	}
	return lsn
}

// forget drops desk's fence, for DeleteDesk: the desk made anew under its name numbers its
// rows from 1 again. It is the one way a fence goes down.
func (f *fences) forget(desk string) { f.m.Delete(desk) }

// deleteTokenSQL deletes a token by its primary key.
const deleteTokenSQL = `DELETE FROM transcript_tokens WHERE id = $1`

// DeleteToken deletes the token named id for good, so that no list shows it and no lookup
// finds it: for a token that was never given to anyone (serve --demo's, whose secret only
// that process printed). An id the database does not hold is an error matching
// token.ErrUnknown, unquoted when it is not of an ID's form (token.IsID).
func (s *Store) DeleteToken(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkTokenID("deleting a token", id); err != nil {
		return err
	}
	what := fmt.Sprintf("deleting token %q", id)
	if err := s.writable(what); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, deleteTokenSQL, id)
	if err != nil {
		return stmtError(ctx, what, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("pgstore: %s: %w", what, token.ErrUnknown)
	}
	return nil
}
