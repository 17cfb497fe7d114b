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

var _ token.Store = (*Store)(nil)

// The tokens table's statements (schema version 6). A lookup by hash is a point SEARCH of
// the hash column's UNIQUE index, and a revocation one of the primary key's; a list reads
// the whole table, which holds one row a token ever handed out, and sorts it.
const (
	tokenColumns   = `id, hash, desk, kind, ident, label, created_us, revoked_us`
	addTokenSQL    = `INSERT INTO tokens (` + tokenColumns + `) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT DO NOTHING`
	tokenByHashSQL = `SELECT ` + tokenColumns + ` FROM tokens WHERE hash = ?1`
	listTokensSQL  = `SELECT ` + tokenColumns + ` FROM tokens ORDER BY created_us, id`
	// revokeTokenSQL keeps a first revocation: the row matches, and so counts as changed,
	// whether or not it was revoked already, and only an unknown id changes no row.
	revokeTokenSQL = `UPDATE tokens SET revoked_us = ifnull(revoked_us, ?2) WHERE id = ?1`
)

// AddToken implements token.Store: it stores t, which must pass t.Validate (else an error
// matching token.ErrInvalid), Revoked included, its times rounded down to the microsecond.
// A token whose ID or Hash the file holds already is an error matching token.ErrExists,
// and the stored one is left as it was. It writes on the writer connection, taking its turn
// with appends for as long as ctx allows, and once it returns every read, in this process or
// another, finds the token. Once ctx is done AddToken returns an error matching ctx.Err();
// after Close, ErrClosed.
func (s *Store) AddToken(ctx context.Context, t token.Token) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.closed.Load() {
		return ErrClosed
	}
	if err := s.writable(); err != nil {
		return err
	}
	if err := t.Validate(); err != nil {
		return fmt.Errorf("sqlitestore: adding a token: %w", err) // t.ID unquoted: it may be anything
	}
	var revoked any // NULL: not revoked
	if t.IsRevoked() {
		revoked = t.Revoked.UnixMicro()
	}
	res, err := s.addToken.ExecContext(ctx, t.ID, t.Hash[:], t.Desk, int64(t.Participant.Kind), t.Participant.ID, t.Participant.Label, t.Created.UnixMicro(), revoked)
	if err == nil {
		var n int64
		if n, err = res.RowsAffected(); err == nil && n == 0 {
			return fmt.Errorf("sqlitestore: adding token %q: %w", t.ID, token.ErrExists)
		}
	}
	if err != nil {
		return stmtError(ctx, fmt.Sprintf("adding token %q", t.ID), err)
	}
	return nil
}

// TokenByHash implements token.Store: the token whose Hash is hash, revoked or not, or an
// error matching token.ErrUnknown when the file holds none. It reads on the readers, a
// point SEARCH of the hash's UNIQUE index, and sees every token committed when it starts,
// by whichever process; a Store caches no token, so a token added or revoked by another
// process (the command line, while the service runs) counts from the next lookup. When ctx
// is done as it is called, TokenByHash returns an error matching ctx.Err(); once begun, the
// lookup runs to its end. After Close, ErrClosed.
func (s *Store) TokenByHash(ctx context.Context, hash [32]byte) (token.Token, error) {
	if err := ctx.Err(); err != nil {
		return token.Token{}, err
	}
	if s.closed.Load() {
		return token.Token{}, ErrClosed
	}
	t, err := scanToken(s.tokenByHash.QueryRowContext(boundedRead(ctx), hash[:]))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return token.Token{}, fmt.Errorf("sqlitestore: looking a token up by its hash: %w", token.ErrUnknown)
	case err != nil:
		return token.Token{}, stmtError(ctx, "looking a token up by its hash", err)
	}
	return t, nil
}

// Tokens implements token.Store: every token of the file, revoked ones included, ordered by
// Created, then by ID (byte order), in a new slice the caller owns; nil when there is none.
// It reads on the readers. Once ctx is done Tokens returns an error matching ctx.Err();
// after Close, ErrClosed.
func (s *Store) Tokens(ctx context.Context) ([]token.Token, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.closed.Load() {
		return nil, ErrClosed
	}
	rows, err := s.listTokens.QueryContext(ctx)
	if err != nil {
		return nil, stmtError(ctx, "listing tokens", err)
	}
	defer rows.Close()
	var all []token.Token
	for rows.Next() {
		t, err := scanToken(rows)
		if err != nil {
			return nil, stmtError(ctx, "listing tokens", err)
		}
		all = append(all, t)
	}
	if err := rows.Err(); err != nil {
		return nil, stmtError(ctx, "listing tokens", err)
	}
	return all, nil
}

// RevokeToken implements token.Store: it sets the Revoked time of the token named id to at,
// rounded down to the microsecond, in one statement on the writer connection; a token
// revoked already keeps its first time, and RevokeToken returns nil. An id the file does
// not hold is an error matching token.ErrUnknown; one that is not of an ID's form
// (token.IsID) is refused so without a statement, and not quoted: it may be a secret given
// by mistake. An at that token.CheckRevocation refuses is an error matching
// token.ErrInvalid, and nothing is written. Once it returns, every
// lookup, in this process or another, finds the token revoked. Once ctx is done
// RevokeToken returns an error matching ctx.Err(); after Close, ErrClosed.
func (s *Store) RevokeToken(ctx context.Context, id string, at time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.closed.Load() {
		return ErrClosed
	}
	if err := s.writable(); err != nil {
		return err
	}
	if err := checkTokenID("revoking a token", id); err != nil {
		return err
	}
	if err := token.CheckRevocation(at); err != nil {
		return fmt.Errorf("sqlitestore: revoking token %q: %w", id, err)
	}
	res, err := s.revokeToken.ExecContext(ctx, id, at.UnixMicro())
	return tokenWritten(ctx, fmt.Sprintf("revoking token %q", id), res, err)
}

// tokenWritten is the outcome of a statement that writes the one token what names: err,
// wrapped by stmtError, or an error matching token.ErrUnknown when it wrote no row.
func tokenWritten(ctx context.Context, what string, res sql.Result, err error) error {
	if err == nil {
		var n int64
		if n, err = res.RowsAffected(); err == nil && n == 0 {
			return fmt.Errorf("sqlitestore: %s: %w", what, token.ErrUnknown)
		}
	}
	if err != nil {
		return stmtError(ctx, what, err)
	}
	return nil
}

// scanToken reads a row of tokenColumns. A hash that is not 32 bytes, which the schema
// refuses, is an error rather than a token nobody could present.
func scanToken(row interface{ Scan(...any) error }) (token.Token, error) {
	var (
		t               token.Token
		hash            []byte
		kind, createdUS int64
		revokedUS       sql.NullInt64
	)
	if err := row.Scan(&t.ID, &hash, &t.Desk, &kind, &t.Participant.ID, &t.Participant.Label, &createdUS, &revokedUS); err != nil {
		return token.Token{}, err
	}
	if len(hash) != len(t.Hash) {
		return token.Token{}, fmt.Errorf("token %s has a hash of %d bytes, not %d", t.ID, len(hash), len(t.Hash))
	}
	copy(t.Hash[:], hash)
	t.Participant.Kind = transcript.AuthorKind(kind)
	t.Created = time.UnixMicro(createdUS).UTC()
	if revokedUS.Valid {
		t.Revoked = time.UnixMicro(revokedUS.Int64).UTC()
	}
	return t, nil
}

// checkTokenID refuses an id that is not of a token ID's form (token.IsID), which no token
// has, with an error matching token.ErrUnknown that names what it was doing and does not
// quote the id: it may be a secret given by mistake.
func checkTokenID(doing, id string) error {
	if token.IsID(id) {
		return nil
	}
	return fmt.Errorf("sqlitestore: %s: the id given is not %s and 12 hex digits: %w", doing, token.IDPrefix, token.ErrUnknown)
}
