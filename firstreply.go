package transcript

import "slices"

// firstReplies finds each root's first reply — its oldest non-blank direct reply that the
// viewer may read — during a walk that reads rows newest first, and counts those replies:
// the one rule for which replies of a root a viewer sees, that the channel view, the thread
// list and a delta's messages and corrections all ask.
//
// It holds only the replies whose parent has not been read yet, keyed by parent: the oldest
// reply seen so far, with the count and the newest of them. Reading a root confirms its
// entry; reading a reply drops its entry, since a reply to a reply is never a first reply;
// an entry whose parent the walk passed over (not in the log) is dropped by newest. Its cost
// is one map lookup per row and one entry per pending parent, never a copy of the rows.
//
// The zero value is ready, for a viewer who reads only the rows the whole desk reads. It
// keeps pointers into the rows it is given, which must not change while it is in use, until
// detach gives them copies of their own.
type firstReplies struct {
	viewer  Author
	pending map[Sequence]*Message // parent → the oldest reply the viewer reads, so far
	low     Sequence              // the Seq of the last row added
	// count, when set, counts every parent's replies the viewer reads in counts.
	count  bool
	counts map[Sequence]replyCount
	// owned holds the copies detach made, by parent; budget, when set, counts their content.
	owned  map[Sequence]*held
	budget *budget
}

// replyCount is how many replies of one parent the viewer reads, and the newest of them.
type replyCount struct {
	n      int
	newest Sequence
}

// replies is what add returns of a root's replies the viewer reads.
type replies struct {
	first  *Message // the oldest: into the page it came in, or own's
	own    *held    // the copy detach made of first, when it did
	count  int      // with firstReplies.count
	newest Sequence // with firstReplies.count
}

// size returns the size of the first reply's content as read, and whether the content was
// let go while it was pending (evict).
func (r replies) size() (int, bool) {
	if r.own != nil {
		return r.own.size, r.own.gone
	}
	return len(r.first.Content), false
}

// unown drops the copy detach made of parent's pending reply, if any, and returns it.
func (f *firstReplies) unown(parent Sequence) *held {
	h := f.owned[parent]
	if h != nil {
		delete(f.owned, parent)
		f.budget.held -= len(h.Content)
	}
	return h
}

// add takes the next row of the walk, which must be older than every row added before.
// When m is a root whose replies were pending, add returns them (their first a pointer into
// the rows given earlier, or into the copy detach made), and ok; otherwise false.
func (f *firstReplies) add(m *Message) (r replies, ok bool) {
	f.low = m.Seq
	if len(f.pending) > 0 {
		if r.first, ok = f.pending[m.Seq]; ok {
			delete(f.pending, m.Seq)
			if len(f.owned) > 0 {
				r.own = f.unown(m.Seq) // the caller keeps what it takes of it
			}
			if f.count {
				c := f.counts[m.Seq]
				delete(f.counts, m.Seq)
				r.count, r.newest = c.n, c.newest
			}
		}
	}
	if m.Parent != 0 && m.visibilityFor(f.viewer) == shown {
		if f.pending == nil {
			f.pending = make(map[Sequence]*Message, 32) // most walks: no growth
		}
		if len(f.owned) > 0 {
			f.unown(m.Parent)
		}
		f.pending[m.Parent] = m // older than any reply to the same parent before it
		if f.count {
			if f.counts == nil {
				f.counts = make(map[Sequence]replyCount)
			}
			c := f.counts[m.Parent]
			c.n++
			c.newest = max(c.newest, m.Seq)
			f.counts[m.Parent] = c
		}
	}
	return r, ok && m.Parent == 0
}

// newest returns the Seq of the newest reply that a row not read yet could still confirm as
// a first reply, or 0 when none could. It is O(pending): call it once a page, not once a row.
func (f *firstReplies) newest() Sequence {
	var newest Sequence
	for parent, reply := range f.pending {
		if parent > f.low {
			delete(f.pending, parent) // passed over: the parent is not in the log
			if len(f.owned) > 0 {
				f.unown(parent)
			}
			continue
		}
		newest = max(newest, reply.Seq)
	}
	return newest
}

// lowestParentOfReplyAbove returns the oldest parent among the pending replies newer than
// seq, or 0 when there is none. Call it after newest, which drops passed-over entries.
func (f *firstReplies) lowestParentOfReplyAbove(seq Sequence) Sequence {
	var lowest Sequence
	for parent, reply := range f.pending {
		if reply.Seq > seq && (lowest == 0 || parent < lowest) {
			lowest = parent
		}
	}
	return lowest
}

// detach gives the pending first replies that came in rows, a page of the walk, copies of
// their own, counted in the budget, so that the page can go.
func (f *firstReplies) detach(rows []Message) {
	if len(rows) == 0 || len(f.pending) == 0 {
		return
	}
	high, low := rows[0].Seq, rows[len(rows)-1].Seq
	for parent, reply := range f.pending {
		if reply.Seq < low || reply.Seq > high || f.owned[parent] != nil {
			continue
		}
		if f.owned == nil {
			f.owned = make(map[Sequence]*held)
		}
		h := hold(reply)
		f.pending[parent], f.owned[parent] = &h.Message, &h
		f.budget.held += h.size
	}
}

// held returns the copies detach made that still hold content, in the order of cmp (any
// order when cmp is nil).
func (f *firstReplies) held(cmp func(a, b *held) int) []*held {
	var out []*held
	for _, h := range f.owned {
		if h.Content != "" {
			out = append(out, h)
		}
	}
	if cmp != nil {
		slices.SortFunc(out, cmp)
	}
	return out
}
