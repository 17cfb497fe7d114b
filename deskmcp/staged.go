package deskmcp

import (
	"sync"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/sharing"
)

// MaxStaged is the most reads a Service holds staged, unacknowledged, at once. Past it the
// oldest staged read is dropped: its messages are delivered again by the next read (at
// least once, never lost), as after a crash.
const MaxStaged = 1 << 14

// readKey names one participant's read of one conversation: the participant's identity
// (Kind and ID, as a book's) and the conversation, desk included.
type readKey struct {
	kind         transcript.AuthorKind
	id           string
	conversation transcript.Conversation
}

func keyOf(p transcript.Author, c transcript.Conversation) readKey {
	return readKey{kind: p.Kind, id: p.ID, conversation: c}
}

// stagedRead is a read delivered and not yet acknowledged: the state to commit when it is.
type stagedRead struct {
	state sharing.State
	// restart: the read started over (a first read or a reinitialization), so its state
	// replaces the stored one (sharing.Book.Put) rather than joining it (Acknowledge).
	restart bool
}

// commit applies r to a book.
func (r stagedRead) commit(b sharing.Book) (sharing.Book, error) {
	if r.restart {
		return b.Put(r.state)
	}
	return b.Acknowledge(r.state)
}

// staging holds a Service's staged reads, at most one per participant and conversation,
// in memory: a read is acknowledged by the participant's next read of that conversation or
// post in it, through any session of this Service, and a crash forgets it, so that the
// read is delivered again. It also serialises each participant's calls on one conversation
// (lock), so that two sessions of one participant in this process take turns there; the
// book's compare-and-swap (books.Update) covers sessions in other processes.
type staging struct {
	mu    sync.Mutex
	reads map[readKey]*stagedEntry
	order uint64 // stamps entries, to drop the oldest past MaxStaged
	locks map[readKey]*keyLock
}

type stagedEntry struct {
	read  stagedRead
	stamp uint64
}

type keyLock struct {
	mu    sync.Mutex
	users int // holders and waiters; the lock is forgotten at 0
}

// lock holds k's lock until unlock is called.
func (s *staging) lock(k readKey) (unlock func()) {
	s.mu.Lock()
	if s.locks == nil {
		s.locks = make(map[readKey]*keyLock)
	}
	l := s.locks[k]
	if l == nil {
		l = new(keyLock)
		s.locks[k] = l
	}
	l.users++
	s.mu.Unlock()
	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		s.mu.Lock()
		if l.users--; l.users == 0 {
			delete(s.locks, k)
		}
		s.mu.Unlock()
	}
}

// take removes and returns k's staged read.
func (s *staging) take(k readKey) (stagedRead, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.reads[k]
	if !ok {
		return stagedRead{}, false
	}
	delete(s.reads, k)
	return e.read, true
}

// stage holds r as k's staged read, replacing any, and drops the oldest beyond MaxStaged.
func (s *staging) stage(k readKey, r stagedRead) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reads == nil {
		s.reads = make(map[readKey]*stagedEntry)
	}
	s.order++
	s.reads[k] = &stagedEntry{read: r, stamp: s.order}
	if len(s.reads) <= MaxStaged {
		return
	}
	var oldest readKey
	stamp := s.order
	for key, e := range s.reads {
		if e.stamp < stamp {
			oldest, stamp = key, e.stamp
		}
	}
	delete(s.reads, oldest)
}
