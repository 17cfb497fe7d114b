package fanout

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/sharedesk/transcript"
)

// sourceWait bounds how long a new watch waits for the source to be up (DigestNotes.Watch).
const sourceWait = 2 * time.Second

// DigestNotes tells the streams that watch a desk which of its conversations' digests were
// stored: a fold this server made, or one the store's DigestWatcher reported, whatever
// process made it (a fold of this server may be noted twice). It carries no digest's text,
// only the conversation, so that a watcher reads the digest again through a read of its own.
// Its zero value is ready; it is safe for concurrent use.
//
// A watcher's notes are a set, not a queue: a conversation changed twice before the watcher
// takes its notes is one note, and a watcher holds at most one note per conversation of its
// desk.
type DigestNotes struct {
	mu       sync.Mutex
	watchers map[string]map[*DigestWatch]struct{} // by desk
	open     int                                  // watches open, every desk together

	// source, when set, starts what tells of other processes' digests (the hub's watch of
	// its store) and returns what stops it: it runs while a watch is open, started by the
	// first and stopped after the last, so that a server whose streams watch no digest
	// holds no connection for them. It calls up once its first attempt at the store's
	// watch has answered, up or failed; up may be called more than once.
	source     func(up func()) (stop func())
	stopSource func()
	sourceUp   chan struct{} // closed once the running source's first attempt answered; nil while none runs
	// wait, when set, is how long Watch waits for the source in the place of sourceWait: a
	// test seam, set by the tests only.
	wait time.Duration
}

// DigestWatch is one watcher of a desk's digest changes (DigestNotes.Watch).
type DigestWatch struct {
	notes *DigestNotes
	desk  string
	wake  chan struct{} // capacity 1: a note is pending

	mu      sync.Mutex
	pending []transcript.Conversation
	missed  bool // a digest may have been stored that no note told of (DigestNotes.Missed)
}

// Watch starts a watch of desk's digest changes; the caller calls Stop when done. Every
// digest stored after Watch returns is noted: one this server folds, and, once the source
// is up, one another process stores. Watch returns once the source's watch is up, or its
// attempt failed, or after a few seconds, or once ctx is done, whichever comes first: when
// the source was up by then and stays up, a caller that reads the digests it shows after
// Watch returns misses none stored since.
func (n *DigestNotes) Watch(ctx context.Context, desk string) *DigestWatch {
	w := &DigestWatch{notes: n, desk: desk, wake: make(chan struct{}, 1)}
	n.mu.Lock()
	if n.watchers == nil {
		n.watchers = make(map[string]map[*DigestWatch]struct{})
	}
	if n.watchers[desk] == nil {
		n.watchers[desk] = make(map[*DigestWatch]struct{})
	}
	n.watchers[desk][w] = struct{}{}
	if n.open++; n.open == 1 && n.source != nil {
		up := make(chan struct{})
		var once sync.Once
		n.sourceUp = up
		n.stopSource = n.source(func() { once.Do(func() { close(up) }) })
	}
	up, bound := n.sourceUp, cmp.Or(n.wait, sourceWait)
	n.mu.Unlock()
	if up != nil {
		wait := time.NewTimer(bound)
		defer wait.Stop()
		select {
		case <-up:
		case <-wait.C:
		case <-ctx.Done():
		}
	}
	return w
}

// Changed notes that c's digest changed for every watch of c's desk, and wakes them.
func (n *DigestNotes) Changed(c transcript.Conversation) {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for w := range n.watchers[c.Desk] {
		w.note(c)
	}
}

// Missed tells every open watch that a digest may have been stored that no note told of,
// as when the source's watch was down, and wakes it: its Missed reports true from then on.
func (n *DigestNotes) Missed() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, ws := range n.watchers {
		for w := range ws {
			w.mu.Lock()
			w.missed = true
			w.mu.Unlock()
			w.wakeUp()
		}
	}
}

func (w *DigestWatch) note(c transcript.Conversation) {
	w.mu.Lock()
	if !slices.Contains(w.pending, c) {
		w.pending = append(w.pending, c)
	}
	w.mu.Unlock()
	w.wakeUp()
}

func (w *DigestWatch) wakeUp() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Missed reports whether a digest may have been stored since Watch that the watch was not
// told of (DigestNotes.Missed): its caller then reads every digest it shows again.
func (w *DigestWatch) Missed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.missed
}

// Woken returns the channel that receives once a note waits to be taken.
func (w *DigestWatch) Woken() <-chan struct{} { return w.wake }

// Take returns the conversations noted since the last Take, in the order first noted, and
// forgets them.
func (w *DigestWatch) Take() []transcript.Conversation {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.pending
	w.pending = nil
	return out
}

// Stop ends the watch: no note reaches it any more. A second Stop does nothing.
func (w *DigestWatch) Stop() {
	n := w.notes
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, ok := n.watchers[w.desk][w]; !ok {
		return
	}
	delete(n.watchers[w.desk], w)
	if len(n.watchers[w.desk]) == 0 {
		delete(n.watchers, w.desk)
	}
	if n.open--; n.open == 0 && n.stopSource != nil {
		n.stopSource()
		n.stopSource, n.sourceUp = nil, nil
	}
}
