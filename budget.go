package transcript

import "github.com/sharedesk/transcript/internal/cut"

// WithinBytes returns p, a projection of thread (0: the channel), with as few of its
// oldest messages dropped (DropOldest) as keep the content of the rest within max bytes.
// It never drops the newest message nor a pinned root, which may therefore exceed max
// between them. max <= 0 returns p.
func (p Projection) WithinBytes(thread Sequence, max int) Projection {
	return p.withinBytes(thread, max, func(i int) int { return len(p.Messages[i].Content) })
}

// withinBytes is WithinBytes with the content size of p.Messages[i] given by size.
func (p Projection) withinBytes(thread Sequence, max int, size func(i int) int) Projection {
	if max <= 0 {
		return p
	}
	first := p.pinned(thread)
	rest := len(p.Messages) - first
	// The pinned root counts first, then the messages after it from the newest; the newest
	// stays even when the root alone is over max.
	n := cut.Within(len(p.Messages), max, func(i int) int {
		if i < first {
			return size(i)
		}
		return size(len(p.Messages) - 1 - (i - first))
	})
	keep := n - first
	if keep == 0 && rest > 0 {
		keep = 1
	}
	return p.DropOldest(thread, rest-keep)
}

// DropOldest returns p, a projection of thread (0: the channel), without its n oldest
// messages, each with the elisions before it, and with Dropped grown by as many. In a
// thread's view whose first message is the root, the root is pinned: it and the elisions
// before it are never dropped. n is capped at the messages there are to drop; n <= 0
// returns p. The result's slices are its own.
func (p Projection) DropOldest(thread Sequence, n int) Projection {
	first := p.pinned(thread)
	n = min(n, len(p.Messages)-first)
	if n <= 0 {
		return p
	}
	newestDropped := p.Messages[first+n-1].Seq
	kept := append(append([]Message{}, p.Messages[:first]...), p.Messages[first+n:]...)
	elided := []Elision{}
	for _, e := range p.Elided {
		if e.From > newestDropped || (first == 1 && e.From < p.Messages[0].Seq) {
			elided = append(elided, e)
		}
	}
	p.Messages, p.Elided = kept, elided
	p.Dropped += n
	return p
}

// pinned is how many of p's first messages a budget never drops: 1 for a thread's view
// that starts with its root, else 0.
func (p Projection) pinned(thread Sequence) int {
	if thread != 0 && len(p.Messages) > 0 && p.Messages[0].Seq == thread {
		return 1
	}
	return 0
}
