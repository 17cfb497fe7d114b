package sharing

import (
	"cmp"
	"slices"

	"github.com/sharedesk/transcript"
)

// corrections finds a delta's corrections during its walk, which reads rows newest first:
// for each target that qualifies for the conversation as the viewer reads it, over the
// walk's scan, the newest correction of it above the watermark.
//
// A target qualifies as a row of a view does: at channel level a root, or the first reply
// of a root (its oldest direct reply the viewer may read, not blank); at thread level the
// thread's root, wherever it lies, or one of its direct replies; in every case readable by
// the viewer and not blank (a redacted row is not blank). The walk learns it by reading the
// target and, for a reply at channel level, the rows down to its root: the walk goes on
// while an answer is pending, within the scan, and a target or root the scan does not reach
// does not qualify. A thread's root needs no read: the correction's readers are its
// target's, and a corrected row is never blank.
type corrections struct {
	viewer transcript.Author
	thread transcript.Sequence // the conversation's thread; 0 at channel level
	// pending maps each target not yet read to its newest correction; a correction the
	// viewer may not read is not kept, its target being unreadable too.
	pending map[transcript.Sequence]transcript.Message
	// awaiting maps, at channel level, a root not yet read to the corrected reply that is
	// its oldest reply the viewer may read so far, whose correction waits in replies.
	awaiting  map[transcript.Sequence]transcript.Sequence
	replies   map[transcript.Sequence]transcript.Message // corrected reply → its newest correction
	found     []transcript.Message                       // the corrections of qualifying targets
	rootFound bool                                       // found holds the thread root's
}

// add takes the next row of the walk, above the watermark when above is set.
func (c *corrections) add(m *transcript.Message, above bool) {
	if m.IsCorrection() {
		if above && m.ReadableBy(c.viewer) {
			c.record(m)
		}
		return
	}
	if len(c.pending) == 0 && len(c.awaiting) == 0 {
		return // the common case: nothing to learn from m
	}
	if root, ok := c.awaiting[m.Seq]; ok {
		delete(c.awaiting, m.Seq)
		if m.IsRoot() {
			c.found = append(c.found, c.replies[root])
		}
		delete(c.replies, root)
	}
	corr, corrected := c.pending[m.Seq]
	if corrected {
		delete(c.pending, m.Seq)
	}
	shown := !m.Blank() && m.ReadableBy(c.viewer)
	switch {
	case !shown:
	case c.thread != 0:
		if corrected && m.Parent == c.thread {
			c.found = append(c.found, corr)
		}
	case m.IsRoot():
		if corrected {
			c.found = append(c.found, corr)
		}
	default: // a reply the viewer reads: older than any reply awaiting its parent
		if newer, ok := c.awaiting[m.Parent]; ok {
			delete(c.replies, newer)
			delete(c.awaiting, m.Parent)
		}
		if corrected {
			c.await(m.Parent, m.Seq, corr)
		}
	}
}

// record keeps m, a correction the viewer may read, when it is the newest of its target.
func (c *corrections) record(m *transcript.Message) {
	switch _, seen := c.pending[m.Corrects]; {
	case seen: // an older correction of a target whose newest is kept
		return
	case c.thread != 0 && m.Corrects == c.thread:
		if !c.rootFound {
			c.rootFound = true
			c.found = append(c.found, *m)
		}
		return
	case c.thread != 0 && m.Corrects < c.thread: // older than the root: no reply of it
		return
	}
	if c.pending == nil {
		c.pending = make(map[transcript.Sequence]transcript.Message)
	}
	c.pending[m.Corrects] = *m
}

// await notes the corrected reply seq, with its correction corr, as the first reply of
// root so far.
func (c *corrections) await(root, seq transcript.Sequence, corr transcript.Message) {
	if c.awaiting == nil {
		c.awaiting = make(map[transcript.Sequence]transcript.Sequence)
		c.replies = make(map[transcript.Sequence]transcript.Message)
	}
	c.awaiting[root] = seq
	c.replies[seq] = corr
}

// settled reports whether no row older than low, the oldest row read, can qualify a
// correction any more; it drops the targets and roots the walk passed over (not in the
// log). It is O(pending): call it once a page. A nil *corrections is settled.
func (c *corrections) settled(low transcript.Sequence) bool {
	if c == nil {
		return true
	}
	for target := range c.pending {
		if target >= low {
			delete(c.pending, target)
		}
	}
	for root, reply := range c.awaiting {
		if root >= low {
			delete(c.awaiting, root)
			delete(c.replies, reply)
		}
	}
	return len(c.pending) == 0 && len(c.awaiting) == 0
}

// delta returns the corrections of the qualifying targets, ascending Seq, less those in
// present; nil when none is left, and for a nil *corrections.
func (c *corrections) delta(present []transcript.Sequence) []transcript.Message {
	var out []transcript.Message
	if c == nil {
		return nil
	}
	for _, m := range c.found {
		if _, in := slices.BinarySearch(present, m.Seq); in {
			continue
		}
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b transcript.Message) int { return cmp.Compare(a.Seq, b.Seq) })
	return out
}

// except returns corrections without those by author (none when author is the zero
// Author), in the same array.
func except(corrections []transcript.Message, author transcript.Author) []transcript.Message {
	if author == (transcript.Author{}) || len(corrections) == 0 {
		return corrections
	}
	out := slices.DeleteFunc(corrections, func(m transcript.Message) bool { return m.Author.Same(author) })
	if len(out) == 0 {
		return nil
	}
	return out
}
