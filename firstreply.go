package transcript

// FirstReplies finds each root's first reply — its oldest non-blank direct reply that Viewer
// may read — during a walk that reads rows newest first, as Project's channel view and the
// sharing package do.
//
// It holds only the replies whose parent has not been read yet, keyed by parent, each the
// oldest non-blank reply seen so far. Reading a root confirms its entry; reading a reply drops
// its entry, since a reply to a reply is never a first reply; an entry whose parent the walk
// passed over (not in the log) is dropped too. Its cost is one map lookup per row and one
// entry per pending parent, never a copy of the rows.
//
// The zero FirstReplies is ready to use, for a viewer who reads only the rows the whole desk
// reads. It keeps pointers into the rows it is given, which must not change while it is in
// use; a page it points into stays in memory while its reply is pending, so a walk that
// keeps what Add returns copies it.
type FirstReplies struct {
	Viewer  Author                // whose first replies: a row Viewer may not read counts as blank
	pending map[Sequence]*Message // parent → oldest qualifying reply so far
	low     Sequence              // the Seq of the last row added
}

// Add takes the next row of the walk, which must be older than every row added before.
// When m is a root whose first reply was pending, Add returns that reply: a pointer into
// the rows given earlier, which it does not copy. Otherwise it returns nil.
func (f *FirstReplies) Add(m *Message) *Message {
	f.low = m.Seq
	reply, ok := f.pending[m.Seq]
	if ok {
		delete(f.pending, m.Seq)
	}
	if m.Parent != 0 && m.visibilityFor(f.Viewer) == shown {
		if f.pending == nil {
			f.pending = make(map[Sequence]*Message, 32) // most walks: no growth
		}
		f.pending[m.Parent] = m // older than any reply to the same parent before it
	}
	if ok && m.Parent == 0 {
		return reply
	}
	return nil
}

// Newest returns the Seq of the newest reply that a row not read yet could still confirm as a
// first reply, or 0 when none could. It is O(pending): call it once a page, not once a row.
func (f *FirstReplies) Newest() Sequence {
	var newest Sequence
	for parent, reply := range f.pending {
		if parent > f.low {
			delete(f.pending, parent) // passed over: the parent is not in the log
			continue
		}
		newest = max(newest, reply.Seq)
	}
	return newest
}

// lowestParentOfReplyAbove returns the oldest parent among the pending replies newer than
// seq, or 0 when there is none. Call it after Newest, which drops passed-over entries.
func (f *FirstReplies) lowestParentOfReplyAbove(seq Sequence) Sequence {
	var lowest Sequence
	for parent, reply := range f.pending {
		if reply.Seq > seq && (lowest == 0 || parent < lowest) {
			lowest = parent
		}
	}
	return lowest
}
