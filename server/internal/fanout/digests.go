package fanout

import (
	"slices"
	"sync"

	"github.com/sharedesk/transcript"
)

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
	// holds no connection for them.
	source     func() (stop func())
	stopSource func()
}

// DigestWatch is one watcher of a desk's digest changes (DigestNotes.Watch).
type DigestWatch struct {
	notes *DigestNotes
	desk  string
	wake  chan struct{} // capacity 1: a note is pending

	mu      sync.Mutex
	pending []transcript.Conversation
}

// Watch starts a watch of desk's digest changes; the caller calls Stop when done.
func (n *DigestNotes) Watch(desk string) *DigestWatch {
	w := &DigestWatch{notes: n, desk: desk, wake: make(chan struct{}, 1)}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.watchers == nil {
		n.watchers = make(map[string]map[*DigestWatch]struct{})
	}
	if n.watchers[desk] == nil {
		n.watchers[desk] = make(map[*DigestWatch]struct{})
	}
	n.watchers[desk][w] = struct{}{}
	if n.open++; n.open == 1 && n.source != nil {
		n.stopSource = n.source()
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

func (w *DigestWatch) note(c transcript.Conversation) {
	w.mu.Lock()
	if !slices.Contains(w.pending, c) {
		w.pending = append(w.pending, c)
	}
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
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
		n.stopSource = nil
	}
}
