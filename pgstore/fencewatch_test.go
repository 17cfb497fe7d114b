package pgstore_test

import (
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/pgstore"
)

// TestFenceWatchListensAgain: a Store with standbys watches the primary of its own accord;
// when that watch's session is ended under it, the Store says it no longer listens, then
// listens again, and hears of another Store's commits once more.
func TestFenceWatchListensAgain(t *testing.T) {
	t.Parallel()
	st, primary, _ := openRouted(t)
	other := mustOpen(t, primary)
	ctx := t.Context()
	awaitFence := func(what string, want func(fence int64, listening bool) bool) {
		t.Helper()
		for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			if fence, listening := pgstore.Fence(st, "eng"); want(fence, listening) {
				return
			}
			if time.Now().After(deadline) {
				fence, listening := pgstore.Fence(st, "eng")
				t.Fatalf("%s: after 15 s the fence is %d, listening %v", what, fence, listening)
			}
		}
	}
	awaitFence("at Open", func(_ int64, listening bool) bool { return listening })
	m, err := other.Append(ctx, "eng", transcript.Message{Author: alice, Content: "heard of"})
	if err != nil {
		t.Fatal(err)
	}
	awaitFence("after another Store's append", func(fence int64, _ bool) bool { return fence >= int64(m.Seq) })

	var ended bool
	if err := connect(t, primary).QueryRow(ctx, `SELECT bool_or(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'`).Scan(&ended); err != nil || !ended {
		t.Fatalf("ending the watch's session: %v, %v", ended, err)
	}
	awaitFence("once its session ended", func(_ int64, listening bool) bool { return !listening })
	awaitFence("after it listens again", func(_ int64, listening bool) bool { return listening })
	m, err = other.Append(ctx, "eng", transcript.Message{Author: alice, Content: "heard of again"})
	if err != nil {
		t.Fatal(err)
	}
	awaitFence("after another Store's append, listening again", func(fence int64, _ bool) bool { return fence >= int64(m.Seq) })
}
