package fanout

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/memdesks"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/token"
)

// TestDigestNotes: a watch of a desk is woken by a change of its conversations, not of
// another desk's; it takes each conversation once however often it changed, in the order
// first noted; after Stop nothing reaches it.
func TestDigestNotes(t *testing.T) {
	var n DigestNotes
	eng, ops := n.Watch(t.Context(), "eng"), n.Watch(t.Context(), "ops")
	channel, thread := transcript.Conversation{Desk: "eng"}, transcript.Conversation{Desk: "eng", Thread: 7}
	n.Changed(thread)
	n.Changed(channel)
	n.Changed(thread)
	select {
	case <-eng.Woken():
	default:
		t.Fatal("the watch of eng was not woken")
	}
	if got := eng.Take(); !slices.Equal(got, []transcript.Conversation{thread, channel}) {
		t.Errorf("eng's notes %v, want thread 7 then the channel, once each", got)
	}
	if got := eng.Take(); len(got) != 0 {
		t.Errorf("notes taken twice: %v", got)
	}
	select {
	case <-ops.Woken():
		t.Error("the watch of ops was woken by eng's digests")
	default:
	}
	eng.Stop()
	n.Changed(channel)
	if got := eng.Take(); len(got) != 0 {
		t.Errorf("a stopped watch took %v", got)
	}
	ops.Stop()
	if len(n.watchers) != 0 {
		t.Errorf("watchers left after every Stop: %v", n.watchers)
	}
	(*DigestNotes)(nil).Changed(channel) // a server that folds nothing
}

// digestStore is a Store whose DigestWatcher tells what the test sends (memdesks.DigestFeed).
type digestStore struct {
	*token.MemStore
	*memdesks.DigestFeed
}

func newDigestStore() *digestStore {
	return &digestStore{MemStore: new(token.MemStore), DigestFeed: memdesks.NewDigestFeed()}
}

func (s *digestStore) Log(string) transcript.Log { return memlog.New() }

// TestDigestWatchWhileWatched: a hub watches its store's digests only while a stream
// watches a desk's: none before the first DigestNotes.Watch, one from it on, whose
// conversations reach the watch, and none after the last Stop.
func TestDigestWatchWhileWatched(t *testing.T) {
	st := newDigestStore()
	h := NewHub(st, testOptions(100, testTailBytes), new(Metrics))
	waitOpen := func(want int64) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); st.Open.Load() != want; {
			if time.Now().After(deadline) {
				t.Fatalf("%d digest watches of the store open, want %d", st.Open.Load(), want)
			}
			time.Sleep(time.Millisecond)
		}
	}
	time.Sleep(50 * time.Millisecond) // nothing would start it: a watch started here would show
	waitOpen(0)
	a, b := h.Digests().Watch(t.Context(), "eng"), h.Digests().Watch(t.Context(), "ops")
	waitOpen(1)
	c := transcript.Conversation{Desk: "eng", Thread: 7}
	st.Convs <- c
	noted(t, a, "the store's report", c)
	a.Stop()
	a.Stop() // a second Stop counts for nothing
	waitOpen(1)
	b.Stop()
	waitOpen(0)
}

// gatedDigestStore is a digestStore whose WatchDigests answers only once gate is closed,
// as a store's watch that takes a while to be up (a LISTEN's round trip).
type gatedDigestStore struct {
	*digestStore
	gate chan struct{}
}

func (s *gatedDigestStore) WatchDigests(ctx context.Context) (<-chan transcript.Conversation, error) {
	select {
	case <-s.gate:
	case <-ctx.Done():
	}
	if err := ctx.Err(); err != nil { // both ready: a watch stopped before the gate opened opens none
		return nil, err
	}
	return s.digestStore.WatchDigests(ctx)
}

// TestDigestWatchWaitsForTheStore: the first DigestNotes.Watch returns only once the
// store's digest watch is up, so that a digest another process stores after Watch returns
// is noted; a second watch finds it up; a watch whose ctx ends first returns then. Watch's
// bound is lengthened past the test's, so that a Watch that waits for it fails the test.
func TestDigestWatchWaitsForTheStore(t *testing.T) {
	st := &gatedDigestStore{digestStore: newDigestStore(), gate: make(chan struct{})}
	h := NewHub(st, testOptions(100, testTailBytes), new(Metrics))
	h.Digests().wait = time.Hour
	returns := func(what string, watch func() *DigestWatch) *DigestWatch {
		t.Helper()
		returned := make(chan *DigestWatch, 1)
		go func() { returned <- watch() }()
		select {
		case w := <-returned:
			return w
		case <-time.After(5 * time.Second):
			t.Fatal(what)
			return nil
		}
	}

	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	early := returns("a Watch whose ctx was done waited for the store", func() *DigestWatch { return h.Digests().Watch(cancelled, "eng") })
	early.Stop()

	returned := make(chan *DigestWatch)
	go func() { returned <- h.Digests().Watch(t.Context(), "eng") }()
	select {
	case w := <-returned:
		w.Stop()
		t.Fatal("Watch returned before the store's digest watch was up")
	case <-time.After(100 * time.Millisecond):
	}
	close(st.gate)
	w := returns("Watch did not return once the store's digest watch was up", func() *DigestWatch { return <-returned })
	defer w.Stop()
	if st.Open.Load() != 1 {
		t.Fatalf("%d digest watches of the store open once Watch returned, want 1", st.Open.Load())
	}
	second := returns("a second Watch waited for a store's watch already up", func() *DigestWatch { return h.Digests().Watch(t.Context(), "ops") })
	defer second.Stop()
	c := transcript.Conversation{Desk: "eng"}
	st.Convs <- c // stored by another process after Watch returned
	noted(t, w, "a digest stored after Watch returned", c)
}

// failingDigestStore is a digestStore whose WatchDigests always fails.
type failingDigestStore struct{ *digestStore }

func (failingDigestStore) WatchDigests(context.Context) (<-chan transcript.Conversation, error) {
	return nil, errors.New("no digest watch")
}

// TestDigestWatchStoreFails: a Watch whose store's digest watch fails returns once it has
// failed, without waiting out its bound (lengthened past the test's), and a change this
// server notes still reaches it.
func TestDigestWatchStoreFails(t *testing.T) {
	st := failingDigestStore{newDigestStore()}
	h := NewHub(st, testOptions(100, testTailBytes), new(Metrics))
	h.Digests().wait = time.Hour
	returned := make(chan *DigestWatch, 1)
	go func() { returned <- h.Digests().Watch(t.Context(), "eng") }()
	var w *DigestWatch
	select {
	case w = <-returned:
	case <-time.After(5 * time.Second):
		t.Fatal("Watch waited on after the store's digest watch failed")
	}
	defer w.Stop()
	c := transcript.Conversation{Desk: "eng", Thread: 3}
	h.Digests().Changed(c)
	if got := w.Take(); !slices.Equal(got, []transcript.Conversation{c}) {
		t.Errorf("the watch took %v, want %v", got, c)
	}
}

// TestDigestWatchMissedOnceLost: a watch is not told it missed anything while the store's
// digest watch stays up; once that watch is lost and up again, every open watch is woken
// and told a digest may have gone untold, and the conversations reported from then on
// still reach it.
func TestDigestWatchMissedOnceLost(t *testing.T) {
	st := newDigestStore()
	h := NewHub(st, testOptions(100, testTailBytes), new(Metrics))
	w := h.Digests().Watch(t.Context(), "eng")
	defer w.Stop()
	c := transcript.Conversation{Desk: "eng"}
	st.Convs <- c
	noted(t, w, "the store's report", c)
	if w.Missed() {
		t.Fatal("the watch was told it missed a digest while the store's watch was up")
	}
	st.Lose <- struct{}{}
	select {
	case <-w.Woken():
	case <-time.After(10 * time.Second):
		t.Fatal("the watch was not woken once the store's watch was up again")
	}
	if !w.Missed() {
		t.Fatal("after the store's watch was lost and up again, the watch was not told it may have missed a digest")
	}
	thread := transcript.Conversation{Desk: "eng", Thread: 3}
	st.Convs <- thread
	for deadline := time.After(5 * time.Second); ; {
		if slices.Contains(w.Take(), thread) {
			break
		}
		select {
		case <-w.Woken():
		case <-deadline:
			t.Fatal("a report after the store's watch was up again did not reach the watch")
		}
	}
}

// noted waits up to 5 s for w to be woken, then wants its notes to be want; what names the
// report in a failure.
func noted(t *testing.T, w *DigestWatch, what string, want ...transcript.Conversation) {
	t.Helper()
	select {
	case <-w.Woken():
	case <-time.After(5 * time.Second):
		t.Fatalf("%s did not reach the watch", what)
	}
	if got := w.Take(); !slices.Equal(got, want) {
		t.Fatalf("the watch took %v, want %v", got, want)
	}
}
