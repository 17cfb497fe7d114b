package token_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/token"
)

// collidingStore is a token.Store whose AddToken says ErrExists a number of times first.
type collidingStore struct {
	token.Store
	collisions int
	added      []token.Token
}

func (s *collidingStore) AddToken(_ context.Context, t token.Token) error {
	if s.collisions > 0 {
		s.collisions--
		return token.ErrExists
	}
	s.added = append(s.added, t)
	return nil
}

// TestAddRetriesCollisions: an ID collision makes another token, a few times at most.
func TestAddRetriesCollisions(t *testing.T) {
	t.Parallel()
	p := transcript.Agent("triage", "")
	st := &collidingStore{collisions: token.AddAttempts - 1}
	secret, tok, err := token.Add(context.Background(), st, "eng", p, time.Now)
	if err != nil {
		t.Fatalf("after %d collisions: %v", token.AddAttempts-1, err)
	}
	if len(st.added) != 1 || st.added[0] != tok || tok.Hash != token.Hash(secret) {
		t.Errorf("stored %v, returned %v", st.added, tok)
	}

	st = &collidingStore{collisions: token.AddAttempts}
	if _, _, err := token.Add(context.Background(), st, "eng", p, time.Now); !errors.Is(err, token.ErrExists) || len(st.added) != 0 {
		t.Errorf("after %d collisions: %v, stored %v; want ErrExists and nothing", token.AddAttempts, err, st.added)
	}
}
