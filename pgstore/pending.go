package pgstore

import (
	"context"

	"github.com/sharedesk/transcript/token"
)

// SettlesPending implements token.Settler: true when the Store reads from the primary alone
// (it has no standbys, which may not have replayed a revocation yet). A Log's read under a
// context carrying a token.Pending (token.WithPending) then checks the token in its own
// statements: each reads nothing of the desk unless the token is good in its snapshot, and
// a read that shows it good (a page of rows, or the digest's row of a page read with its
// digest) settles the Pending as good. A read that cannot tell leaves it to
// Pending.Confirm, which looks the token up.
func (s *Store) SettlesPending() bool { return !s.replicas.active() }

// tokenGate is the condition, on $4, that gates a statement read with a pending token: the
// token of that hash exists and is not revoked. A token that is not good makes the
// statement read nothing of the desk, in the same time whatever the desk holds.
// tokenGateOn and tokenGateEnd make the same condition on another parameter.
const (
	tokenGate    = tokenGateOn + "$4" + tokenGateEnd
	tokenGateOn  = `EXISTS (SELECT FROM transcript_tokens WHERE hash = `
	tokenGateEnd = ` AND revoked IS NULL)`
)

// pendingRead is the token a read settles (token.PendingOf its context), if any: the read's
// statements are gated on its hash, and a statement that passed its gate settles it (good).
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

// good settles the Pending, if any, as a gated statement found it: its token, the one of
// its hash, in the database and not revoked when the statement ran.
func (r pendingRead) good() {
	if r.p != nil {
		t := r.p.Token()
		r.p.Settle(token.Token{ID: t.ID, Hash: t.Hash}, nil)
	}
}
