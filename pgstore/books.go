package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/sharing"
	"github.com/sharedesk/transcript/sharing/books"
)

var _ books.Store = (*Store)(nil)

// The transcript_books table's statements (schema version 6). Each is one probe of the
// primary key (desk, author_kind, author_id) and one statement, its own transaction. The
// INSERT of a new book writes nothing when one is stored (a concurrent INSERT of the key
// waits for the first and then does nothing), and the UPDATE nothing unless the version
// stored is the one loaded (a concurrent UPDATE of the row waits for the first to commit,
// and then re-reads the row and finds the version moved): a compare-and-swap at READ
// COMMITTED, without a transaction of the caller's or a lock held across round trips.
const (
	loadBookSQL   = `SELECT version, book FROM transcript_books WHERE desk = $1 AND author_kind = $2 AND author_id = $3`
	insertBookSQL = `INSERT INTO transcript_books (desk, author_kind, author_id, version, book) VALUES ($1, $2, $3, 1, $4) ON CONFLICT DO NOTHING`
	updateBookSQL = `UPDATE transcript_books SET version = version + 1, book = $5 WHERE desk = $1 AND author_kind = $2 AND author_id = $3 AND version = $4`
)

// LoadBook implements books.Store: p's book on desk (identity by p's Kind and ID,
// the label ignored) and its version, or the empty Book at version 0 when the database
// holds none. It is one probe of the primary key, and sees every save committed when it
// starts, by whichever process. A desk or participant books.ValidateOwner refuses, and a
// stored book that does not decode or names another desk, are errors matching
// sharing.ErrInvalidBook. Once ctx is done LoadBook returns an error matching ctx.Err().
func (s *Store) LoadBook(ctx context.Context, desk string, p transcript.Author) (sharing.Book, books.Version, error) {
	if err := ctx.Err(); err != nil {
		return sharing.Book{}, 0, err
	}
	if err := books.ValidateOwner(desk, p); err != nil {
		return sharing.Book{}, 0, fmt.Errorf("pgstore: loading a book: %w", err)
	}
	var (
		version int64
		text    string
	)
	err := s.pool.QueryRow(ctx, loadBookSQL, desk, int16(p.Kind), p.ID).Scan(&version, &text)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return sharing.Book{}, 0, nil
	case err != nil:
		return sharing.Book{}, 0, stmtError(ctx, fmt.Sprintf("loading the book of %s on desk %q", p, desk), err)
	}
	b, err := books.Decode(desk, p, []byte(text))
	if err != nil {
		return sharing.Book{}, 0, fmt.Errorf("pgstore: the stored book of %s on desk %q (version %d): %w", p, desk, version, err)
	}
	return b, books.Version(version), nil
}

// SaveBook implements books.Store: it stores b as p's book on desk if the version the
// database holds is expect (0: none), in one statement, and returns expect+1. Another
// version stored is an error matching books.ErrChanged, and nothing is written; so
// is a negative expect, which no book has. Of any number of saves over one version, by any
// processes, at most one succeeds. A book, desk or participant books.Validate refuses
// is an error matching sharing.ErrInvalidBook, and nothing is written. Once it returns,
// every load, by any process, finds the book. Once ctx is done SaveBook returns an error
// matching ctx.Err(). A read-only Store refuses it (ErrReadOnly).
func (s *Store) SaveBook(ctx context.Context, desk string, p transcript.Author, b sharing.Book, expect books.Version) (books.Version, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := books.Validate(desk, p, b); err != nil {
		return 0, fmt.Errorf("pgstore: saving a book: %w", err)
	}
	what := fmt.Sprintf("saving the book of %s on desk %q over version %d", p, desk, expect)
	if expect < 0 {
		return 0, fmt.Errorf("pgstore: %s: %w", what, books.ErrChanged)
	}
	if err := s.writable(what); err != nil {
		return 0, err
	}
	data, err := json.Marshal(b)
	if err != nil {
		return 0, fmt.Errorf("pgstore: %s: %w", what, err)
	}
	var n int64
	if expect == 0 {
		tag, err := s.pool.Exec(ctx, insertBookSQL, desk, int16(p.Kind), p.ID, string(data))
		if err != nil {
			return 0, stmtError(ctx, what, err)
		}
		n = tag.RowsAffected()
	} else {
		tag, err := s.pool.Exec(ctx, updateBookSQL, desk, int16(p.Kind), p.ID, int64(expect), string(data))
		if err != nil {
			return 0, stmtError(ctx, what, err)
		}
		n = tag.RowsAffected()
	}
	if n == 0 {
		return 0, fmt.Errorf("pgstore: %s: %w", what, books.ErrChanged)
	}
	return expect + 1, nil
}
