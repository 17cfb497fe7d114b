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

// TestReadSettlesPending: a view's first read under a context carrying a token.Pending
// settles it, with and without the digest, so that Confirm reads nothing more; the view
// is the one read without it while the token is good, and holds no row, and no digest,
// once the token is revoked or gone: the gated statements read nothing.
func TestReadSettlesPending(t *testing.T) {
	t.Parallel()
	st, dsn := openStore(t)
	pool := connect(t, dsn)
	if !st.SettlesPending() {
		t.Fatal("a Store without standbys does not settle pendings")
	}
	ctx := t.Context()
	rows := make([]transcript.Message, 12)
	for i := range rows {
		rows[i] = transcript.Message{Author: alice, Content: fmt.Sprintf("row %d of the desk", i+1)}
	}
	if err := st.AppendBatch(ctx, "eng", rows); err != nil {
		t.Fatal(err)
	}
	if _, folded, err := digest.Fold(ctx, st.Log("eng").(digest.Store), digest.Extractive{}, digest.Policy{KeepLive: 5, FoldAfter: 1, InputLimit: 50}, transcript.Conversation{Desk: "eng"}); err != nil || !folded {
		t.Fatalf("fold: %v, %v", folded, err)
	}
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
			if !p.Settled() {
				t.Errorf("digest %v, token %s: the view's read did not settle the pending", withDigest, end.name)
			}
			if err := p.Confirm(ctx, failingTokens{st}); !errors.Is(err, end.want) || (end.want == nil) != (err == nil) {
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

// TestPendingOneSnapshot: a revocation committed while a read that settles a pending runs
// (its page statement held behind a lock) is seen by the token's lookup and the gated
// statements alike: the read answers as for a good token with every row, never with a
// good token and no row.
func TestPendingOneSnapshot(t *testing.T) {
	t.Parallel()
	// st has one connection, whose statements the first read prepares; other revokes,
	// while that connection waits.
	other, dsn := openStore(t)
	st := mustOpen(t, withParam(dsn, "pool_max_conns", "1"))
	pool := connect(t, dsn)
	ctx := t.Context()
	if err := st.AppendBatch(ctx, "eng", []transcript.Message{{Author: alice, Content: "one"}, {Author: alice, Content: "two"}}); err != nil {
		t.Fatal(err)
	}
	warm, _ := pendingFor(t, st)
	if _, err := st.Log("eng").ReadBefore(token.WithPending(ctx, warm), 0, 10); err != nil || !warm.Settled() {
		t.Fatalf("a first read with a pending: settled %v, %v", warm.Settled(), err)
	}
	p, tok := pendingFor(t, st)
	lock, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback(ctx)
	if _, err := lock.Exec(ctx, `LOCK TABLE transcript_messages IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		page transcript.Page
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		page, err := st.Log("eng").ReadBefore(token.WithPending(ctx, p), 0, 10)
		done <- answer{page, err}
	}()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		var waiting bool
		if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%FROM transcript_messages%')`).Scan(&waiting); err != nil {
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
	err = p.Confirm(ctx, failingTokens{st})
	switch {
	case err == nil && len(a.page.Messages) != 2:
		t.Errorf("the token confirmed good, with %d rows read, want 2", len(a.page.Messages))
	case err != nil && !errors.Is(err, token.ErrRevoked):
		t.Errorf("Confirm: %v, want nil or ErrRevoked", err)
	case err != nil && len(a.page.Messages) != 0:
		t.Errorf("the token revoked, with %d rows read, want none", len(a.page.Messages))
	}
}
