package pgstore_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/pgstore"
)

// heldAppend is the first append a store makes after holdNextAppend, stopped inside its
// transaction with its rows inserted and its Seq assigned, before it commits.
type heldAppend struct {
	reached chan []transcript.Message // receives the held rows once the append is stopped
	release chan struct{}             // close it to let the append commit
}

// holdNextAppend makes the next append of st stop before committing, until release is
// closed (or the test ends). Later appends pass straight through, though each with its
// COMMIT in a round trip of its own while the hook stays set (SetBeforeCommit).
func holdNextAppend(t *testing.T, st *pgstore.Store) heldAppend {
	t.Helper()
	h := heldAppend{reached: make(chan []transcript.Message, 1), release: make(chan struct{})}
	var taken atomic.Bool
	pgstore.SetBeforeCommit(st, func(ctx context.Context, desk string, rows []transcript.Message) {
		if !taken.CompareAndSwap(false, true) {
			return
		}
		h.reached <- rows
		select {
		case <-h.release:
		case <-ctx.Done():
		}
	})
	return h
}
