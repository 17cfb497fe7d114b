package sharing

import (
	"fmt"
	"slices"

	"github.com/sharedesk/transcript"
)

// BookLimit is the most conversations a Book holds a State for. An agent works in the
// channel and a few threads at a time; 32 covers that with room to spare, and keeps a
// stored book a few kilobytes (at most about 50 KB, every present set full).
const BookLimit = 32

// EvictedLimit is the most evicted conversations a Book remembers, so that reading one of
// them again reports StateEvicted rather than a first read. A conversation evicted longer
// ago than that reads as never seen: it is reinitialized all the same, only without the
// reason.
const EvictedLimit = 2 * BookLimit

// Book is one participant's read states on one desk, one State per conversation (the
// channel or a thread), for at most BookLimit conversations, so that an agent moving between threads and the
// channel gets deltas in each rather than a reinitialization on every move.
//
// When a Put or Acknowledge adds a conversation beyond BookLimit, the least recently put or
// acknowledged one is evicted: its state is dropped and its conversation remembered (up to
// EvictedLimit of them), and Lookup reports StateEvicted for it until it is put again.
//
// A Book is a value, and immutable: Put and Acknowledge return a new Book and never write
// to the arrays of the one they were called on, and Lookup returns a State of its own, so
// a Book may be shared between goroutines and kept while its successors are made. The zero
// Book is empty and ready to use. Every conversation of a Book is on one desk.
type Book struct {
	states  []State                   // least recently used first; distinct conversations
	evicted []transcript.Conversation // least recently evicted first; none in states
}

// Len returns how many conversations b holds a state for.
func (b Book) Len() int { return len(b.states) }

// Conversations returns the conversations b holds a state for, least recently put or
// acknowledged first, in a new slice the caller owns.
func (b Book) Conversations() []transcript.Conversation {
	out := make([]transcript.Conversation, len(b.states))
	for i, s := range b.states {
		out[i] = s.Conversation
	}
	return out
}

// Lookup returns the state of c and ok = true when b holds one. Otherwise the caller must
// start c afresh from a full projection (Initialized at its Head) and report why: why is
// StateEvicted when c's state was evicted to make room for another conversation, and 0
// when b never held one (a first read). Lookup changes nothing, c's recency included: a
// conversation counts as used when its state is put or acknowledged. The State's Present
// array is the caller's.
func (b Book) Lookup(c transcript.Conversation) (s State, why Reason, ok bool) {
	if i := b.index(c); i >= 0 {
		return b.states[i].clone(), 0, true
	}
	if slices.Contains(b.evicted, c) {
		return State{}, StateEvicted, false
	}
	return State{}, 0, false
}

// Put returns b with s as the state of s.Conversation, replacing any state b held for it,
// and that conversation as the most recently used. It is for a state that must replace the
// stored one: the state a reinitialization starts from (Initialized at a projection's
// Head), since what failed may be the stored state itself (WatermarkUnavailable after a
// log was restored from an older copy). A delta's Next goes through Acknowledge instead.
//
// A conversation new to b beyond BookLimit evicts the least recently used one (see Book);
// putting a conversation that was evicted ends its StateEvicted. s must be a state Prepare
// accepts (at most PresentSetLimit present entries, strictly ascending, above the
// watermark: else ErrPresentSetTooLarge or ErrInvalidState) and name a desk, the desk of
// b's other conversations (else ErrInvalidBook). On error Put returns b unchanged.
func (b Book) Put(s State) (Book, error) {
	if err := b.admit(s); err != nil {
		return b, err
	}
	return b.put(s.owned()), nil
}

// Acknowledge returns b with s joined into the state of s.Conversation, and that
// conversation as the most recently used: the commit of a delta's Next once the turn it
// was prepared for is over. Joining keeps every acknowledgement of both states and moves
// no watermark backwards: the watermark is the higher of the two, and the present set the
// entries of both above it, in order. A present set that would exceed PresentSetLimit
// keeps its lowest entries; the rows of the entries dropped are delivered again (at least
// once, never lost). When b holds no state for the conversation, Acknowledge is Put.
//
// The join is commutative, associative and idempotent, so that acknowledgements may land
// in any order and any number of times: two sessions of one participant acknowledging
// their reads of one conversation through books.Update end with the union of what both
// accepted, whichever saves first, and a retry that applies an acknowledgement to a book
// that already holds it changes nothing but recency. The joined state names the viewer
// either names, and the newer digest either holds. Errors are those of Put, and
// ErrInvalidBook for a state that names another viewer than the one b holds for its
// conversation; on error Acknowledge returns b unchanged.
func (b Book) Acknowledge(s State) (Book, error) {
	if err := b.admit(s); err != nil {
		return b, err
	}
	if i := b.index(s.Conversation); i >= 0 {
		s.Viewer = viewerIdentity(s.Viewer)
		held := b.states[i]
		if held.Viewer != s.Viewer && held.Viewer != (transcript.Author{}) && s.Viewer != (transcript.Author{}) {
			return b, fmt.Errorf("%w: a state of %s acknowledged over a state of %s", ErrInvalidBook, s.Viewer, held.Viewer)
		}
		return b.put(join(held, s)), nil
	}
	return b.put(s.owned()), nil
}

// Equal reports whether b and o hold the same states, in the same order of recency, and
// remember the same evicted conversations in the same order.
func (b Book) Equal(o Book) bool {
	return slices.Equal(b.evicted, o.evicted) && slices.EqualFunc(b.states, o.states, func(s, t State) bool {
		return s.Conversation == t.Conversation && s.Watermark == t.Watermark && slices.Equal(s.Present, t.Present) && s.Viewer == t.Viewer && s.Digest == t.Digest
	})
}

// Desk returns the desk of b's conversations, "" for an empty book.
func (b Book) Desk() string {
	switch {
	case len(b.states) > 0:
		return b.states[0].Conversation.Desk
	case len(b.evicted) > 0:
		return b.evicted[0].Desk
	}
	return ""
}

// admit reports whether b can take s: a state Prepare accepts, on b's desk.
func (b Book) admit(s State) error {
	if err := s.check(); err != nil {
		return err
	}
	desk := s.Conversation.Desk
	if desk == "" {
		return fmt.Errorf("%w: a state of a conversation without a desk", ErrInvalidBook)
	}
	if d := b.Desk(); d != "" && d != desk {
		return fmt.Errorf("%w: a state of desk %q in a book of desk %q", ErrInvalidBook, desk, d)
	}
	return nil
}

// index returns the position of c's state in b.states, or -1.
func (b Book) index(c transcript.Conversation) int {
	return slices.IndexFunc(b.states, func(s State) bool { return s.Conversation == c })
}

// put returns b with s, which b may not share, as its most recently used state, evicting
// beyond BookLimit. It writes only to new arrays: the States it keeps share their Present
// arrays with b's, which nothing writes to.
func (b Book) put(s State) Book {
	states := make([]State, 0, len(b.states)+1)
	for _, t := range b.states {
		if t.Conversation != s.Conversation {
			states = append(states, t)
		}
	}
	states = append(states, s)
	evicted := slices.DeleteFunc(slices.Clone(b.evicted), func(c transcript.Conversation) bool { return c == s.Conversation })
	for len(states) > BookLimit {
		evicted = append(evicted, states[0].Conversation)
		states = states[1:]
	}
	if n := len(evicted) - EvictedLimit; n > 0 {
		evicted = evicted[n:]
	}
	return Book{states: states, evicted: evicted}
}

// join returns the state that has accepted what a and b, two states of one conversation,
// have: every row up to the higher watermark, and the present entries of either above it,
// ascending, the lowest PresentSetLimit of them, the viewer either names, and the newer of
// their digests (the one that may stand for more rows, so that a correction of any row
// either digest may stand for still reinitializes). Both must pass check and name no two
// viewers. The result shares no array with a or b.
func join(a, b State) State {
	w := max(a.Watermark, b.Watermark)
	var present []transcript.Sequence
	for _, seq := range a.Present {
		if seq > w {
			present = append(present, seq)
		}
	}
	for _, seq := range b.Present {
		if seq > w {
			present = append(present, seq)
		}
	}
	slices.Sort(present)
	present = slices.Compact(present)
	if len(present) > PresentSetLimit {
		present = present[:PresentSetLimit:PresentSetLimit]
	}
	viewer := a.Viewer
	if viewer == (transcript.Author{}) {
		viewer = b.Viewer
	}
	return State{Conversation: a.Conversation, Watermark: w, Present: present, Viewer: viewer, Digest: max(a.Digest, b.Digest)}
}
