package transcript

import "github.com/sharedesk/transcript/internal/cut"

// held is a message a walk keeps for its answer: a copy of the row, never a pointer into a
// page, so that pages go once read, and the size of its content as read, which stays known
// when the content is let go.
type held struct {
	Message
	size int
	// gone is set when the content was let go while the answer might still carry the row:
	// the walk reads it again if it does.
	gone bool
}

func hold(m *Message) held { return held{Message: *m, size: len(m.Content)} }

// release lets go of h's content, once the answer's byte budget is certain to drop h.
func (h *held) release() { h.Content = "" }

// budget is what a walk knows of its answer's byte budget: max bytes of content (0: none),
// and the content it holds now.
type budget struct {
	max  int
	held int
}

// over reports whether the walk holds more content than the budget lets an answer keep:
// only then is a message worth releasing.
func (b *budget) over() bool { return b.max > 0 && b.held > b.max }

// releaseBeyond lets go of the content of the n held messages, taken in the order the
// answer keeps them (at(0) first), that the budget is certain to drop: those past the cut
// (within) of the messages before them. Messages confirmed later only add to what comes
// before any message, so a message it lets go never returns to the answer.
func (b *budget) releaseBeyond(n int, at func(i int) *held) {
	k := cut.Within(n, b.max, func(i int) int { return at(i).size })
	for i := k; i < n; i++ {
		if h := at(i); h.Content != "" {
			b.held -= len(h.Content)
			h.release()
		}
	}
}

// evict lets go of the content of held messages whose place in the answer is not known yet,
// in the order given (the least likely kept first), until the walk holds no more than the
// budget; each is marked gone, to be read again should the answer carry it.
func (b *budget) evict(pending []*held) {
	for _, h := range pending {
		if b.held <= b.max {
			return
		}
		if h.Content != "" {
			b.held -= len(h.Content)
			h.Content, h.gone = "", true
		}
	}
}
