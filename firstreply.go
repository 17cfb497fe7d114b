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
	pending map[Sequence]replies // parent → its replies the viewer reads, so far
	low     Sequence             // the Seq of the last row added
	// budget, when set, counts the content of the copies detach makes.
	budget *budget
}

// replies is what a walk has read of one root's replies the viewer reads.
type replies struct {
	first  *Message // the oldest: into the page it came in, or own's
	own    *held    // the copy detach made of first, when it did
	count  int
	newest Sequence
}

// size returns the size of the first reply's content as read, and whether the content was
// let go while it was pending (evict).
func (r replies) size() (int, bool) {
	if r.own != nil {
		return r.own.size, r.own.gone
	}
	return len(r.first.Content), false
}

// forget uncounts the copy of r's first reply, which the tracker no longer holds.
func (f *firstReplies) forget(r replies) {
	if r.own != nil && f.budget != nil {
		f.budget.held -= len(r.own.Content)
	}
}

// add takes the next row of the walk, which must be older than every row added before.
// When m is a root whose replies were pending, add returns them (their first a pointer into
// the rows given earlier), and ok; otherwise a zero replies and false.
func (f *firstReplies) add(m *Message) (r replies, ok bool) {
	f.low = m.Seq
	if len(f.pending) > 0 {
		if r, ok = f.pending[m.Seq]; ok {
			delete(f.pending, m.Seq)
			f.forget(r) // the caller keeps what it takes of it
		}
	}
	if m.Parent != 0 && m.visibilityFor(f.viewer) == shown {
		if f.pending == nil {
			f.pending = make(map[Sequence]replies, 32) // most walks: no growth
		}
		p := f.pending[m.Parent]
		f.forget(p)
		p.first, p.own = m, nil // older than any reply to the same parent before it
		p.count++
		p.newest = max(p.newest, m.Seq)
		f.pending[m.Parent] = p
	}
	return r, ok && m.Parent == 0
}

// newest returns the Seq of the newest reply that a row not read yet could still confirm as
// a first reply, or 0 when none could. It is O(pending): call it once a page, not once a row.
func (f *firstReplies) newest() Sequence {
	var newest Sequence
	for parent, r := range f.pending {
		if parent > f.low {
			delete(f.pending, parent) // passed over: the parent is not in the log
			f.forget(r)
			continue
		}
		newest = max(newest, r.first.Seq)
	}
	return newest
}

// lowestParentOfReplyAbove returns the oldest parent among the pending replies newer than
// seq, or 0 when there is none. Call it after newest, which drops passed-over entries.
func (f *firstReplies) lowestParentOfReplyAbove(seq Sequence) Sequence {
	var lowest Sequence
	for parent, r := range f.pending {
		if r.first.Seq > seq && (lowest == 0 || parent < lowest) {
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
	for parent, r := range f.pending {
		if r.own == nil && r.first.Seq >= low && r.first.Seq <= high {
			h := hold(r.first)
			r.first, r.own = &h.Message, &h
			f.budget.held += h.size
			f.pending[parent] = r
		}
	}
}

// held returns the copies detach made that still hold content, in the order of cmp (any
// order when cmp is nil).
func (f *firstReplies) held(cmp func(a, b *held) int) []*held {
	var out []*held
	for _, r := range f.pending {
		if r.own != nil && r.own.Content != "" {
			out = append(out, r.own)
		}
	}
	if cmp != nil {
		slices.SortFunc(out, cmp)
	}
	return out
}
