package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sharedesk/transcript/token"
)

// SettlesPending implements token.Settler: true when the Store reads from the primary alone
// (it has no standbys, which may not have replayed a revocation yet). A Log's read under a
// context carrying a token.Pending (token.WithPending) then looks the token up in the same
// round trip as its rows, on the same connection and in the same snapshot, and its
// statements read nothing unless the token is good in that snapshot.
func (s *Store) SettlesPending() bool { return !s.replicas.active() }

// tokenGate is the condition, on $4, that gates a statement read with a pending token: the
// token of that hash exists and is not revoked. A token that is not good makes the
// statement read no row, in the same time whatever the desk holds.
const tokenGate = `
  AND EXISTS (SELECT FROM transcript_tokens WHERE hash = $4 AND revoked IS NULL)`

// pendingRead is the token a read settles (token.PendingOf its context), if any: the read
// queues the token's lookup first in its batch (queue), then its statements gated on it
// (stmt), then the end of their snapshot (end), and settles the Pending from the lookup's
// answer (settle). The lookup and the statements see one snapshot, so that a revocation
// committed while they run is seen by all of them or by none: the read never answers as
// for a good token with statements that read nothing.
type pendingRead struct {
	p    *token.Pending
	hash []byte
}

// pendingOf returns the pendingRead of a read on the primary under ctx.
func pendingOf(ctx context.Context) pendingRead {
	p := token.PendingOf(ctx)
	if p == nil {
		return pendingRead{}
	}
	h := p.Hash()
	return pendingRead{p: p, hash: h[:]}
}

// pendingTokenSQL reads what a Pending's check needs of the token of hash $1 (the hash
// the lookup was by, its ID and its revocation), by the hash's unique index, after the
// start of the snapshot it shares with the statements gated on it.
const (
	pendingSnapshotSQL = `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`
	pendingTokenSQL    = `SELECT id, revoked FROM transcript_tokens WHERE hash = $1`
	pendingEndSQL      = `COMMIT`
)

// queue queues the start of the snapshot and the token's lookup in b, when there is a
// token to settle.
func (r pendingRead) queue(b *pgx.Batch) {
	if r.p != nil {
		b.Queue(pendingSnapshotSQL)
		b.Queue(pendingTokenSQL, r.hash)
	}
}

// end queues the end of the snapshot in b, after the statements gated on the token.
func (r pendingRead) end(b *pgx.Batch) {
	if r.p != nil {
		b.Queue(pendingEndSQL)
	}
}

// stmt queues sql with args in b, or, when there is a token to settle, gated: sql's gated
// form, whose $4 is the token's hash.
func (r pendingRead) stmt(b *pgx.Batch, sql, gated string, args ...any) {
	if r.p == nil {
		b.Queue(sql, args...)
		return
	}
	b.Queue(gated, append(args, r.hash)...)
}

// settle reads the token's lookup from br, the batch's first answers, and settles the
// Pending with it: the token's ID, hash and revocation, what token.StillGood compares. A
// failure to read it settles nothing (Confirm then looks the token up) and is the read's.
func (r pendingRead) settle(ctx context.Context, br pgx.BatchResults) error {
	if r.p == nil {
		return nil
	}
	if _, err := br.Exec(); err != nil {
		return stmtError(ctx, "starting a snapshot", err)
	}
	now := token.Token{Hash: r.p.Hash()}
	var revoked *time.Time
	switch err := br.QueryRow().Scan(&now.ID, &revoked); {
	case errors.Is(err, pgx.ErrNoRows):
		r.p.Settle(token.Token{}, fmt.Errorf("pgstore: looking a token up by its hash: %w", token.ErrUnknown))
		return nil
	case err != nil:
		return stmtError(ctx, "looking a token up by its hash", err)
	}
	if revoked != nil {
		now.Revoked = revoked.UTC()
	}
	r.p.Settle(now, nil)
	return nil
}
