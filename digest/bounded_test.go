package digest_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
)

// waitingDigester answers "done" after wait, or fails with its context's error once the
// context ends first.
type waitingDigester struct{ wait time.Duration }

func (w waitingDigester) Digest(ctx context.Context, r digest.Request) (string, error) {
	select {
	case <-time.After(w.wait):
		return "done", nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// TestBounded: a call past the timeout fails with an error that says so and matches
// context.DeadlineExceeded; a call within it answers; a caller's context that ends first
// fails the call with that context's error, not the timeout's; a timeout of 0 bounds
// nothing; the name is the digester's.
func TestBounded(t *testing.T) {
	r := digest.Request{Conversation: transcript.Conversation{Desk: "eng"}, Budget: 100}
	hung := digest.Bounded(waitingDigester{wait: time.Hour}, 50*time.Millisecond)
	_, err := hung.Digest(t.Context(), r)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no answer within 50ms") {
		t.Errorf("a call past the timeout: %v, want no answer within 50ms, matching context.DeadlineExceeded", err)
	}
	if !strings.Contains(hung.Name(), "waitingDigester") {
		t.Errorf("Name %q, want the digester's type", hung.Name())
	}
	if text, err := digest.Bounded(waitingDigester{}, time.Hour).Digest(t.Context(), r); text != "done" || err != nil {
		t.Errorf("a call within the timeout: %q, %v", text, err)
	}
	if text, err := digest.Bounded(waitingDigester{wait: 20 * time.Millisecond}, 0).Digest(t.Context(), r); text != "done" || err != nil {
		t.Errorf("a timeout of 0 bounds nothing: %q, %v", text, err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := hung.Digest(ctx, r); !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "no answer within") {
		t.Errorf("a call whose context was cancelled: %v, want context.Canceled alone", err)
	}
	if got := digest.Bounded(digest.Extractive{}, time.Second).Name(); got != "extractive" {
		t.Errorf("Name of a bounded Extractive: %q", got)
	}
}
