package transcript

// held is a message a walk keeps for its answer: a copy of the row, never a pointer into a
// page, so that pages go once read, and the size of its content, which stays known when the
// content is let go.
type held struct {
	Message
	size int // len(Content) as read
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
