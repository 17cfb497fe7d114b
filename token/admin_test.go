package token_test

import (
	"errors"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/token"
)

// TestListAndRevoke: List filters by desk ("" every desk's), revoked tokens included;
// Revoke returns the token as it was, revokes it once, and refuses an unknown ID with
// ErrUnknown without quoting it.
func TestListAndRevoke(t *testing.T) {
	ctx := t.Context()
	st := newMemStore()
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	_, eng, err := token.Add(ctx, st, "eng", transcript.Agent("triage", "Triage"), func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	_, ops, err := token.Add(ctx, st, "ops", transcript.Operator(), func() time.Time { return now.Add(time.Second) })
	if err != nil {
		t.Fatal(err)
	}
	if list, err := token.List(ctx, st, "eng"); err != nil || len(list) != 1 || list[0].ID != eng.ID {
		t.Errorf("List(eng) = %v, %v; want the eng token alone", list, err)
	}
	if list, err := token.List(ctx, st, ""); err != nil || len(list) != 2 || list[1].ID != ops.ID {
		t.Errorf("List(\"\") = %v, %v; want both, oldest first", list, err)
	}
	if list, err := token.List(ctx, st, "none"); err != nil || list == nil || len(list) != 0 {
		t.Errorf("List(none) = %#v, %v; want an empty slice", list, err)
	}

	before, err := token.Revoke(ctx, st, eng.ID, now.Add(time.Minute))
	if err != nil || before.ID != eng.ID || before.IsRevoked() {
		t.Fatalf("Revoke = %v, %v; want the token as it was, not revoked", before, err)
	}
	again, err := token.Revoke(ctx, st, eng.ID, now.Add(time.Hour))
	if err != nil || !again.Revoked.Equal(now.Add(time.Minute)) {
		t.Errorf("Revoke again = %v (revoked %v), %v; want it revoked at the first time", again, again.Revoked, err)
	}
	if list, _ := token.List(ctx, st, "eng"); len(list) != 1 || !list[0].IsRevoked() {
		t.Errorf("List after Revoke = %v, want the revoked token still listed", list)
	}
	const unknown = "tok_000000000000"
	if _, err := token.Revoke(ctx, st, unknown, now); !errors.Is(err, token.ErrUnknown) || errors.Is(err, token.ErrRevoked) {
		t.Errorf("Revoke of an unknown ID = %v, want ErrUnknown", err)
	}
}
