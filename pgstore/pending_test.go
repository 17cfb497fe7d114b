package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/pgstore"
	"github.com/sharedesk/transcript/token"
)

// pendingFor returns a Pending for a new token of st's desk eng, as a server's Cache gives
// one for a token it accepted before, and the token.
func pendingFor(t *testing.T, st *pgstore.Store) (*token.Pending, token.Token) {
	t.Helper()
	secret, tok := newToken(t, "eng", alice, 0)
	if err := st.AddToken(t.Context(), tok); err != nil {
		t.Fatal(err)
	}
	c := token.NewCache(1)
	for range 2 {
		if _, p, err := c.Authenticate(t.Context(), st, "Bearer "+secret); err != nil {
			t.Fatal(err)
		} else if p != nil {
			return p, tok
		}
	}
	t.Fatal("the Cache gave no pending for a token it accepted")
	return nil, tok
}

// foldedDesk appends rows rows by alice to desk "eng" of st and folds the channel's digest,
// leaving the newest keepLive rows out of it.
func foldedDesk(t *testing.T, st *pgstore.Store, rows, keepLive int) {
	t.Helper()
	msgs := make([]transcript.Message, rows)
	for i := range msgs {
		msgs[i] = transcript.Message{Author: alice, Content: fmt.Sprintf("row %d of the desk", i+1)}
	}
	if err := st.AppendBatch(t.Context(), "eng", msgs); err != nil {
		t.Fatal(err)
	}
	foldChannel(t, st, digest.Policy{KeepLive: keepLive, FoldAfter: 1, InputLimit: 50})
}

// foldChannel folds the digest of desk "eng"'s channel in st under policy, which must fold.
func foldChannel(t *testing.T, st *pgstore.Store, policy digest.Policy) {
	t.Helper()
	if _, folded, err := digest.Fold(t.Context(), st.Log("eng").(digest.Store), digest.Extractive{}, policy, transcript.Conversation{Desk: "eng"}); err != nil || !folded {
		t.Fatalf("fold: %v, %v", folded, err)
	}
}

// TestReadSettlesPending: a view's first read under a context carrying a token.Pending
// settles it, with and without the digest, while the token is good, so that Confirm reads
// nothing more, and the view is the one read without it. Once the token is revoked or gone
// the view holds no row and no digest (the gated statements read nothing) and the pending
// is left to Confirm, which refuses the token.
func TestReadSettlesPending(t *testing.T) {
	t.Parallel()
	st, dsn := openStore(t)
	pool := connect(t, dsn)
	if !st.SettlesPending() {
		t.Fatal("a Store without standbys does not settle pendings")
	}
	ctx := t.Context()
	foldedDesk(t, st, 12, 5)
	for _, withDigest := range []bool{false, true} {
		q := transcript.Query{Conversation: transcript.Conversation{Desk: "eng"}, Viewer: alice, Window: 3, Digest: withDigest}
		want, err := transcript.Project(ctx, st.Log("eng"), q)
		if err != nil || len(want.Messages) != 3 || (want.Digest != nil) != withDigest {
			t.Fatalf("digest %v: the view without a pending: %+v, %v", withDigest, want, err)
		}
		for _, end := range []struct {
			name string
			end  func(token.Token) error
			want error
		}{
			{"good", func(token.Token) error { return nil }, nil},
			{"revoked", func(tok token.Token) error { return st.RevokeToken(ctx, tok.ID, time.Now()) }, token.ErrRevoked},
			{"removed", func(tok token.Token) error {
				_, err := pool.Exec(ctx, `DELETE FROM transcript_tokens WHERE id = $1`, tok.ID)
				return err
			}, token.ErrUnknown},
		} {
			p, tok := pendingFor(t, st)
			if err := end.end(tok); err != nil {
				t.Fatal(err)
			}
			got, err := transcript.Project(token.WithPending(ctx, p), st.Log("eng"), q)
			if err != nil {
				t.Fatalf("digest %v, token %s: %v", withDigest, end.name, err)
			}
			if p.Settled() != (end.want == nil) {
				t.Errorf("digest %v, token %s: the view's read settled the pending: %v, want %v", withDigest, end.name, p.Settled(), end.want == nil)
			}
			var confirmWith token.Store = st
			if end.want == nil {
				confirmWith = failingTokens{st} // settled: Confirm reads nothing
			}
			if err := p.Confirm(ctx, confirmWith); !errors.Is(err, end.want) || (end.want == nil) != (err == nil) {
				t.Errorf("digest %v, token %s: Confirm: %v, want %v", withDigest, end.name, err, end.want)
			}
			if end.want == nil {
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("digest %v: the view with a good token's pending differs (-without +with):\n%s", withDigest, diff)
				}
			} else if len(got.Messages) != 0 || got.Digest != nil {
				t.Errorf("digest %v, token %s: the gated read returned %d rows, digest %v; want none", withDigest, end.name, len(got.Messages), got.Digest != nil)
			}
		}
	}
}

// TestEmptyReadLeavesPending: a good token's read of a desk with no row cannot tell the
// token good from bad by its page, and leaves the pending to Confirm, which looks it up;
// with the digest, the digest's row, there whenever the gate passes, tells, and settles it.
func TestEmptyReadLeavesPending(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	ctx := t.Context()
	for _, withDigest := range []bool{false, true} {
		p, _ := pendingFor(t, st)
		got, err := transcript.Project(token.WithPending(ctx, p), st.Log("quiet"), transcript.Query{Conversation: transcript.Conversation{Desk: "quiet"}, Viewer: alice, Digest: withDigest})
		if err != nil || len(got.Messages) != 0 {
			t.Fatalf("digest %v: the view of an empty desk: %+v, %v", withDigest, got, err)
		}
		if p.Settled() != withDigest {
			t.Errorf("digest %v: the read settled the pending: %v", withDigest, p.Settled())
		}
		var confirmWith token.Store = st
		if withDigest {
			confirmWith = failingTokens{st}
		}
		if err := p.Confirm(ctx, confirmWith); err != nil {
			t.Errorf("digest %v: Confirm of a good token: %v", withDigest, err)
		}
	}
}

// failingTokens is a token.Store whose lookups fail: Confirm of a settled Pending must
// not read.
type failingTokens struct{ token.Store }

func (failingTokens) TokenByHash(context.Context, [32]byte) (token.Token, error) {
	return token.Token{}, errors.New("Confirm read the token again")
}

// TestStandbysSettleNoPending: a Store that reads from standbys, which may not have
// replayed a revocation, says it settles no pending, and its reads leave one unsettled.
func TestStandbysSettleNoPending(t *testing.T) {
	t.Parallel()
	st, _, _ := openRouted(t)
	if st.SettlesPending() {
		t.Fatal("a Store with standbys settles pendings")
	}
	if err := st.AppendBatch(t.Context(), "eng", []transcript.Message{{Author: alice, Content: "hi"}}); err != nil {
		t.Fatal(err)
	}
	p, _ := pendingFor(t, st)
	if _, err := st.Log("eng").ReadBefore(token.WithPending(t.Context(), p), 0, 5); err != nil {
		t.Fatal(err)
	}
	if p.Settled() {
		t.Error("a read through standbys settled the pending")
	}
}

// TestRevokedMidRead: a revocation committed while a read that settles a pending runs,
// its statement held behind a lock on the messages (a page) or on the digests (a page and
// its digest), never leaves the pending settled as good with rows or a digest missing from
// the answer: a read settles it only when its statement passed the token's gate.
func TestRevokedMidRead(t *testing.T) {
	t.Parallel()
	for _, held := range []string{"transcript_messages", "transcript_digests"} {
		t.Run(held, func(t *testing.T) {
			t.Parallel()
			// st has one connection, whose statements the first read prepares; other
			// revokes, while that connection waits.
			other, dsn := openStore(t)
			st := mustOpen(t, withParam(dsn, "pool_max_conns", "1"))
			pool := connect(t, dsn)
			ctx := t.Context()
			foldedDesk(t, st, 8, 3)
			q := transcript.Query{Conversation: transcript.Conversation{Desk: "eng"}, Viewer: alice, Window: 2, Digest: held == "transcript_digests"}
			warm, _ := pendingFor(t, st)
			if p, err := transcript.Project(token.WithPending(ctx, warm), st.Log("eng"), q); err != nil || !warm.Settled() || len(p.Messages) != 2 || (p.Digest != nil) != q.Digest {
				t.Fatalf("a first read with a pending: settled %v, %d rows, digest %v, %v", warm.Settled(), len(p.Messages), p.Digest != nil, err)
			}
			p, tok := pendingFor(t, st)
			lock, err := pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer lock.Rollback(ctx)
			if _, err := lock.Exec(ctx, `LOCK TABLE `+held+` IN ACCESS EXCLUSIVE MODE`); err != nil {
				t.Fatal(err)
			}
			type answer struct {
				view transcript.Projection
				err  error
			}
			done := make(chan answer, 1)
			go func() {
				view, err := transcript.Project(token.WithPending(ctx, p), st.Log("eng"), q)
				done <- answer{view, err}
			}()
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
				var waiting bool
				if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%FROM `+held+`%')`).Scan(&waiting); err != nil {
					t.Fatal(err)
				}
				if waiting {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the read never waited for the lock")
				}
			}
			if err := other.RevokeToken(ctx, tok.ID, time.Now()); err != nil {
				t.Fatal(err)
			}
			if err := lock.Rollback(ctx); err != nil {
				t.Fatal(err)
			}
			a := <-done
			if a.err != nil {
				t.Fatal(a.err)
			}
			if p.Settled() {
				t.Fatalf("the read settled the pending, with %d rows and digest %v, though the token was revoked while it ran", len(a.view.Messages), a.view.Digest != nil)
			}
			if err := p.Confirm(ctx, other); !errors.Is(err, token.ErrRevoked) {
				t.Errorf("Confirm: %v, want ErrRevoked", err)
			}
		})
	}
}
