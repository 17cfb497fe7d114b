package transcript

import (
	"cmp"
	"context"
	"slices"
)

// channelView qualifies every non-blank root the viewer may read and each root's first
// reply within the scan.
type channelView struct {
	viewer Author
	window int
	// The confirmed rows, pointing into the pages the Pager keeps. Roots arrive in the walk's
	// order, newest first, so they stay sorted; first replies arrive when their root does, in
	// no order, and are few: only they are sorted, when the window is asked about.
	roots   []*Message
	replies []*Message
	first   FirstReplies
	elided  elided
	want    int // rows the last settle estimated the view still needs; 0: no estimate
}

func newChannelView(viewer Author, window int) *channelView {
	return &channelView{
		viewer: viewer, window: window, first: FirstReplies{Viewer: viewer},
		// Sized for a window of roots and their answers, so most walks never grow them.
		roots:   make([]*Message, 0, min(2*window, PageSize)),
		replies: make([]*Message, 0, min(window, PageSize)),
	}
}

func (v *channelView) add(rows []Message) {
	for i := range rows {
		m := &rows[i]
		if reply := v.first.Add(m); reply != nil {
			v.replies = append(v.replies, reply)
		}
		if m.Parent != 0 {
			continue
		}
		switch m.visibilityFor(v.viewer) {
		case shown:
			v.roots = append(v.roots, m)
		case unshown:
			v.elided.add(m)
		}
	}
}

// newest calls yield with the confirmed rows, newest first, until it returns false.
func (v *channelView) newest(yield func(*Message) bool) {
	slices.SortFunc(v.replies, func(a, b *Message) int { return cmp.Compare(b.Seq, a.Seq) })
	r, f := v.roots, v.replies
	for len(r) > 0 || len(f) > 0 {
		var m *Message
		if len(f) == 0 || (len(r) > 0 && r[0].Seq > f[0].Seq) {
			m, r = r[0], r[1:]
		} else {
			m, f = f[0], f[1:]
		}
		if !yield(m) {
			return
		}
	}
}

// settle reports whether the window is full with rows newer than every reply that could
// still be confirmed as a first reply.
func (v *channelView) settle(_ context.Context, p *Pager) (bool, error) {
	v.want = 0
	if p.Done() {
		return true, nil
	}
	if found := len(v.roots) + len(v.replies); found < v.window {
		if found > 0 {
			// As dense as what was read so far, with a quarter to spare.
			v.want = (v.window - found) * p.Scanned() * 5 / (4 * found)
		}
		return false, nil
	}
	var last Sequence // the oldest row the window holds now
	n := 0
	v.newest(func(m *Message) bool {
		n++
		last = m.Seq
		return n < v.window
	})
	if v.first.Newest() < last {
		return true, nil
	}
	// A pending reply could still enter: read down to its parent. Seqs are distinct, so no
	// more than low-parent rows lie between.
	if parent := v.first.lowestParentOfReplyAbove(last); parent != 0 {
		v.want = int(v.first.low - parent)
	}
	return false, nil
}

func (v *channelView) wanted() int { return v.want }

func (v *channelView) result() ([]Message, []Elision) {
	n := min(v.window, len(v.roots)+len(v.replies))
	out := make([]Message, n)
	v.newest(func(m *Message) bool {
		n--
		out[n] = *m
		return n > 0
	})
	var floor Sequence
	if len(out) == v.window {
		floor = out[0].Seq
	}
	return out, v.elided.above(floor, out)
}
