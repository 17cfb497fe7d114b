package transcript

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
// keeps pointers into the rows it is given, which must not change while it is in use.
type firstReplies struct {
	viewer  Author
	pending map[Sequence]replies // parent → its replies the viewer reads, so far
	low     Sequence             // the Seq of the last row added
}

// replies is what a walk has read of one root's replies the viewer reads.
type replies struct {
	first  *Message // the oldest
	count  int
	newest Sequence
}

// add takes the next row of the walk, which must be older than every row added before.
// When m is a root whose replies were pending, add returns them (their first a pointer into
// the rows given earlier), and ok; otherwise a zero replies and false.
func (f *firstReplies) add(m *Message) (r replies, ok bool) {
	f.low = m.Seq
	if len(f.pending) > 0 {
		if r, ok = f.pending[m.Seq]; ok {
			delete(f.pending, m.Seq)
		}
	}
	if m.Parent != 0 && m.visibilityFor(f.viewer) == shown {
		if f.pending == nil {
			f.pending = make(map[Sequence]replies, 32) // most walks: no growth
		}
		p := f.pending[m.Parent]
		p.first = m // older than any reply to the same parent before it
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
