package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/token"
)

var _ token.Store = (*Store)(nil)

// The transcript_tokens table's statements (schema version 5). A lookup by hash is one
// probe of the hash's unique index (transcript_tokens_hash_key), and a revocation one of the
// primary key's; a list reads the whole table, which holds one row a token ever handed out,
// and sorts it. Each is one statement, its own transaction: nothing to roll back.
const (
	tokenColumns   = `id, hash, desk, author_kind, author_id, author_label, created, revoked`
	addTokenSQL    = `INSERT INTO transcript_tokens (` + tokenColumns + `) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`
	tokenByHashSQL = `SELECT ` + tokenColumns + ` FROM transcript_tokens WHERE hash = $1`
	listTokensSQL  = `SELECT ` + tokenColumns + ` FROM transcript_tokens ORDER BY created, id`
	// revokeTokenSQL keeps a first revocation: the row matches, and so counts as changed,
	// whether or not it was revoked already, and only an unknown id changes no row.
	revokeTokenSQL = `UPDATE transcript_tokens SET revoked = coalesce(revoked, $2) WHERE id = $1`
)

// AddToken implements token.Store: it stores t, which must pass t.Validate (else an error
// matching token.ErrInvalid, which quotes no ID), Revoked included, its times rounded down
// to the microsecond. A token whose ID or Hash the database holds already is an error
// matching token.ErrExists (ON CONFLICT DO NOTHING, on either unique index: the insert
// writes nothing), and the stored one is left as it was. Once it returns, every lookup, by
// this Store or any other process on the database, finds the token. Once ctx is done
// AddToken returns an error matching ctx.Err(), and the token is not stored. A read-only
// Store refuses it (ErrReadOnly), as it does RevokeToken.
func (s *Store) AddToken(ctx context.Context, t token.Token) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := t.Validate(); err != nil {
		return fmt.Errorf("pgstore: adding a token: %w", err) // t.ID unquoted: it may be anything
	}
	if err := s.writable(fmt.Sprintf("adding token %q", t.ID)); err != nil {
		return err
	}
	var revoked *time.Time // NULL: not revoked
	if t.IsRevoked() {
		at := token.Floor(t.Revoked)
		revoked = &at
	}
	tag, err := s.pool.Exec(ctx, addTokenSQL, t.ID, t.Hash[:], t.Desk, int16(t.Participant.Kind), t.Participant.ID, t.Participant.Label, token.Floor(t.Created), revoked)
	if err != nil {
		return stmtError(ctx, fmt.Sprintf("adding token %q", t.ID), err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("pgstore: adding token %q: %w", t.ID, token.ErrExists)
	}
	return nil
}

// TokenByHash implements token.Store: the token whose Hash is hash, revoked or not, or an
// error matching token.ErrUnknown when the database holds none. It is one probe of the
// hash's unique index, and sees every token committed when it starts, by whichever process:
// a Store caches no token, so a token added or revoked elsewhere (the command line, while
// the service runs) counts from the next lookup. Once ctx is done TokenByHash returns an
// error matching ctx.Err().
func (s *Store) TokenByHash(ctx context.Context, hash [32]byte) (token.Token, error) {
	if err := ctx.Err(); err != nil {
		return token.Token{}, err
	}
	rows, err := s.pool.Query(ctx, tokenByHashSQL, hash[:])
	if err != nil {
		return token.Token{}, stmtError(ctx, "looking a token up by its hash", err)
	}
	t, err := pgx.CollectExactlyOneRow(rows, scanToken)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return token.Token{}, fmt.Errorf("pgstore: looking a token up by its hash: %w", token.ErrUnknown)
	case err != nil:
		return token.Token{}, stmtError(ctx, "looking a token up by its hash", err)
	}
	return t, nil
}

// Tokens implements token.Store: every token of the database, revoked ones included,
// ordered by Created, then by ID (byte order: the column's collation is "C"), in a new
// slice the caller owns; nil when there is none. Once ctx is done Tokens returns an error
// matching ctx.Err().
func (s *Store) Tokens(ctx context.Context) ([]token.Token, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, listTokensSQL)
	if err != nil {
		return nil, stmtError(ctx, "listing tokens", err)
	}
	all, err := pgx.AppendRows([]token.Token(nil), rows, scanToken)
	if err != nil {
		return nil, stmtError(ctx, "listing tokens", err)
	}
	return all, nil
}

// RevokeToken implements token.Store: it sets the Revoked time of the token named id to at,
// rounded down to the microsecond, in one statement; a token revoked already keeps its first
// time, and RevokeToken returns nil. An id the database does not hold is an error matching
// token.ErrUnknown; one that is not of an ID's form (token.IsID) is refused so without a
// statement, and not quoted: it may be a secret given by mistake. An at that
// token.CheckRevocation refuses is an error matching token.ErrInvalid, and nothing is
// written. Once it returns, every lookup, by any process, finds the token revoked. Once ctx
// is done RevokeToken returns an error matching ctx.Err().
func (s *Store) RevokeToken(ctx context.Context, id string, at time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkTokenID("revoking a token", id); err != nil {
		return err
	}
	if err := token.CheckRevocation(at); err != nil {
		return fmt.Errorf("pgstore: revoking token %q: %w", id, err)
	}
	if err := s.writable(fmt.Sprintf("revoking token %q", id)); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, revokeTokenSQL, id, token.Floor(at))
	if err != nil {
		return stmtError(ctx, fmt.Sprintf("revoking token %q", id), err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("pgstore: revoking token %q: %w", id, token.ErrUnknown)
	}
	return nil
}

// scanToken reads a row of tokenColumns, its times in UTC. A hash that is not 32 bytes,
// which the schema refuses, is an error rather than a token nobody could present.
func scanToken(row pgx.CollectableRow) (token.Token, error) {
	var (
		t       token.Token
		hash    []byte
		kind    int16
		created time.Time
		revoked *time.Time
	)
	if err := row.Scan(&t.ID, &hash, &t.Desk, &kind, &t.Participant.ID, &t.Participant.Label, &created, &revoked); err != nil {
		return token.Token{}, err
	}
	if len(hash) != len(t.Hash) {
		return token.Token{}, fmt.Errorf("%w: token %s has a hash of %d bytes, not %d", errColumn, t.ID, len(hash), len(t.Hash))
	}
	copy(t.Hash[:], hash)
	t.Participant.Kind = transcript.AuthorKind(kind)
	t.Created = created.UTC()
	if revoked != nil {
		t.Revoked = revoked.UTC()
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
	return fmt.Errorf("pgstore: %s: the id given is not %s and 12 hex digits: %w", doing, token.IDPrefix, token.ErrUnknown)
}
