package transcript

import (
	"cmp"
	"slices"
)

// unseenCorrections finds the corrections of an unseen walk, which reads rows newest first:
// for each target that qualifies for the conversation as the viewer reads it, over the
// walk's scan, the newest correction of it above the watermark.
//
// A target qualifies as a row of a view does: at channel level a root, or the first reply
// of a root (firstReplies decides); at thread level the thread's root, wherever it lies, or
// one of its direct replies; in every case readable by the viewer and not blank (a redacted
// row is not blank). The walk learns it by reading the target and, for a reply at channel
// level, the rows down to its root: the walk goes on while an answer is pending, within the
// scan, and a target or root the scan does not reach does not qualify. A thread's root needs
// no read: the correction's readers are its target's, and a corrected row is never blank.
type unseenCorrections struct {
	conv   Conversation
	viewer Author
	// pending maps each target not yet read to its newest correction; a correction the
	// viewer may not read is not kept, its target being unreadable too.
	pending map[Sequence]*correction
	// awaiting maps, at channel level, a root not yet read to a corrected reply of it that
	// was its first reply when read, with that reply's correction.
	awaiting  map[Sequence]awaited
	found     []held     // the carried corrections of qualifying targets
	excepted  []Sequence // the corrections of qualifying targets that only part elisions
	rootFound bool       // the thread root's correction was found
}

// carriage is how an answer carries a correction whose target qualifies.
type carriage uint8

const (
	notCarried carriage = iota + 1 // the reader has it: the target takes no correction
	parts                          // it parts the elisions only
	carried                        // it is in the answer
)

// correction is a correction the walk keeps until it knows whether its target qualifies.
type correction struct {
	held
	carriage carriage
}

type awaited struct {
	reply Sequence
	corr  *correction
}

// add takes the next row of the walk, above the watermark when above is set; c is how the
// answer carries m when m is a correction.
func (u *unseenCorrections) add(m *Message, above bool, c carriage, b *budget) {
	if m.IsCorrection() {
		if above && m.ReadableBy(u.viewer) {
			u.record(m, c, b)
		}
		return
	}
	if len(u.pending) == 0 && len(u.awaiting) == 0 {
		return // the common case: nothing to learn from m
	}
	if a, ok := u.awaiting[m.Seq]; ok && m.Parent != 0 { // a reply to a reply: never a first reply
		delete(u.awaiting, m.Seq)
		u.drop(a.corr, b)
	}
	corr, corrected := u.pending[m.Seq]
	if !corrected {
		return
	}
	delete(u.pending, m.Seq)
	switch {
	case m.visibilityFor(u.viewer) != shown:
		u.drop(corr, b)
	case u.conv.AtLevel(m):
		u.find(corr)
	case u.conv.IsChannel(): // a reply: it qualifies if it is its root's first reply
		if a, ok := u.awaiting[m.Parent]; ok {
			u.drop(a.corr, b)
		}
		if u.awaiting == nil {
			u.awaiting = make(map[Sequence]awaited)
		}
		u.awaiting[m.Parent] = awaited{reply: m.Seq, corr: corr}
	default:
		u.drop(corr, b)
	}
}

// confirm takes a root the walk read, with its first reply: an awaited correction of that
// reply qualifies.
func (u *unseenCorrections) confirm(root, first Sequence, b *budget) {
	a, ok := u.awaiting[root]
	if !ok {
		return
	}
	delete(u.awaiting, root)
	if a.reply == first {
		u.find(a.corr)
	} else {
		u.drop(a.corr, b)
	}
}

// record keeps m, a correction the viewer may read, when it is the newest of its target.
func (u *unseenCorrections) record(m *Message, c carriage, b *budget) {
	thread := u.conv.Thread
	switch _, seen := u.pending[m.Corrects]; {
	case seen: // an older correction of a target whose newest is kept
		return
	case thread != 0 && m.Corrects == thread:
		if !u.rootFound {
			u.rootFound = true
			u.find(u.hold(m, c, b))
		}
		return
	case thread != 0 && m.Corrects < thread: // older than the root: no reply of it
		return
	}
	if u.pending == nil {
		u.pending = make(map[Sequence]*correction)
	}
	u.pending[m.Corrects] = u.hold(m, c, b)
}

// hold keeps m as the answer carries it: its content only when carried, counted in b.
func (u *unseenCorrections) hold(m *Message, c carriage, b *budget) *correction {
	corr := &correction{held: hold(m), carriage: c}
	if c != carried {
		corr.Content = ""
	} else if b.max > 0 {
		b.held += corr.size
	}
	return corr
}

// drop lets go of corr, whose target does not qualify.
func (u *unseenCorrections) drop(corr *correction, b *budget) {
	if corr.carriage == carried && b.max > 0 {
		b.held -= len(corr.Content)
	}
}

// find adds corr, whose target qualifies, to what the answer carries.
func (u *unseenCorrections) find(corr *correction) {
	switch corr.carriage {
	case carried:
		u.found = append(u.found, corr.held)
	case parts:
		u.excepted = append(u.excepted, corr.Seq)
	}
}

// unconfirmed returns the carried corrections whose targets are not confirmed yet and that
// still hold content, newest first.
func (u *unseenCorrections) unconfirmed() []*held {
	var out []*held
	for _, c := range u.pending {
		if c.carriage == carried && c.Content != "" {
			out = append(out, &c.held)
		}
	}
	for _, a := range u.awaiting {
		if a.corr.carriage == carried && a.corr.Content != "" {
			out = append(out, &a.corr.held)
		}
	}
	slices.SortFunc(out, func(a, b *held) int { return cmp.Compare(b.Seq, a.Seq) })
	return out
}

// settled reports whether no row older than low, the oldest row read, can qualify a
// correction any more; it drops the targets and roots the walk passed over (not in the
// log) and the awaited replies that are no longer their root's first reply (first). It is
// O(pending): call it once a page. A nil *unseenCorrections is settled.
func (u *unseenCorrections) settled(low Sequence, first *firstReplies, b *budget) bool {
	if u == nil {
		return true
	}
	for target, corr := range u.pending {
		if target >= low {
			delete(u.pending, target)
			u.drop(corr, b)
		}
	}
	for root, a := range u.awaiting {
		if reply, ok := first.pending[root]; root >= low || !ok || reply.Seq != a.reply {
			delete(u.awaiting, root)
			u.drop(a.corr, b)
		}
	}
	return len(u.pending) == 0 && len(u.awaiting) == 0
}
