package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/sharing"
	"github.com/sharedesk/transcript/sharing/books"
)

var _ books.Store = (*Store)(nil)

// The books table's statements (schema version 7). Each is one point SEARCH of the primary
// key (desk, kind, ident). A save is one statement, its own transaction: the INSERT of a
// new book writes nothing when one is stored, and the UPDATE nothing unless the version
// stored is the one loaded, so that SQLite's write lock, which every writer of the file
// takes in turn, makes the comparison and the write one step.
const (
	loadBookSQL   = `SELECT version, book FROM books WHERE desk = ?1 AND kind = ?2 AND ident = ?3`
	insertBookSQL = `INSERT INTO books (desk, kind, ident, version, book) VALUES (?1, ?2, ?3, 1, ?4) ON CONFLICT DO NOTHING`
	updateBookSQL = `UPDATE books SET version = version + 1, book = ?5 WHERE desk = ?1 AND kind = ?2 AND ident = ?3 AND version = ?4`
)

// LoadBook implements books.Store: p's book on desk (identity by p's Kind and ID,
// the label ignored) and its version, or the empty Book at version 0 when the file holds
// none. It reads on the readers and sees every save committed when it starts, by whichever
// process. A desk or participant books.ValidateOwner refuses, and a stored book that does
// not decode or names another desk, are errors matching sharing.ErrInvalidBook. Once ctx
// is done LoadBook returns an error matching ctx.Err(); after Close, ErrClosed.
func (s *Store) LoadBook(ctx context.Context, desk string, p transcript.Author) (sharing.Book, books.Version, error) {
	if err := ctx.Err(); err != nil {
		return sharing.Book{}, 0, err
	}
	if s.closed.Load() {
		return sharing.Book{}, 0, ErrClosed
	}
	if err := books.ValidateOwner(desk, p); err != nil {
		return sharing.Book{}, 0, fmt.Errorf("sqlitestore: loading a book: %w", err)
	}
	var (
		version int64
		text    string
	)
	err := s.loadBook.QueryRowContext(ctx, desk, int64(p.Kind), p.ID).Scan(&version, &text)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return sharing.Book{}, 0, nil
	case err != nil:
		return sharing.Book{}, 0, stmtError(ctx, fmt.Sprintf("loading the book of %s on desk %q", p, desk), err)
	}
	b, err := books.Decode(desk, p, []byte(text))
	if err != nil {
		return sharing.Book{}, 0, fmt.Errorf("sqlitestore: the stored book of %s on desk %q (version %d): %w", p, desk, version, err)
	}
	return b, books.Version(version), nil
}

// SaveBook implements books.Store: it stores b as p's book on desk if the version the
// file holds is expect (0: none), in one statement on the writer connection, taking its
// turn with appends for as long as ctx allows, and returns expect+1. Another version stored
// is an error matching books.ErrChanged, and nothing is written; so is a negative
// expect, which no book has. A book, desk or participant books.Validate refuses is an
// error matching sharing.ErrInvalidBook, and nothing is written. Once it returns, every
// load, in this process or another, finds the book. Once ctx is done SaveBook returns an
// error matching ctx.Err(); after Close, ErrClosed.
func (s *Store) SaveBook(ctx context.Context, desk string, p transcript.Author, b sharing.Book, expect books.Version) (books.Version, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if s.closed.Load() {
		return 0, ErrClosed
	}
	if err := s.writable(); err != nil {
		return 0, err
	}
	if err := books.Validate(desk, p, b); err != nil {
		return 0, fmt.Errorf("sqlitestore: saving a book: %w", err)
	}
	what := fmt.Sprintf("saving the book of %s on desk %q over version %d", p, desk, expect)
	if expect < 0 {
		return 0, fmt.Errorf("sqlitestore: %s: %w", what, books.ErrChanged)
	}
	data, err := json.Marshal(b)
	if err != nil {
		return 0, fmt.Errorf("sqlitestore: %s: %w", what, err)
	}
	var res sql.Result
	if expect == 0 {
		res, err = s.insertBook.ExecContext(ctx, desk, int64(p.Kind), p.ID, string(data))
	} else {
		res, err = s.updateBook.ExecContext(ctx, desk, int64(p.Kind), p.ID, int64(expect), string(data))
	}
	if err == nil {
		var n int64
		if n, err = res.RowsAffected(); err == nil && n == 0 {
			return 0, fmt.Errorf("sqlitestore: %s: %w", what, books.ErrChanged)
		}
	}
	if err != nil {
		return 0, stmtError(ctx, what, err)
	}
	return expect + 1, nil
}
