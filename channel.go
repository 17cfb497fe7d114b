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
	// The confirmed rows, copies of the walk's. Roots arrive in the walk's order, newest
	// first, so they stay sorted; first replies arrive when their root does, in no order,
	// and are few: only they are sorted, when the window is asked about.
	roots   []held
	replies []held
	first   FirstReplies
	elided  elided
	want    int // rows the last settle estimated the view still needs; 0: no estimate
	budget  budget
}

func newChannelView(viewer Author, window, maxBytes int) *channelView {
	return &channelView{
		viewer: viewer, window: window, first: FirstReplies{Viewer: viewer},
		// Sized for a window of roots and their answers, so most walks never grow them: no
		// root beyond a full window is kept.
		roots:   make([]held, 0, min(window, PageSize)),
		replies: make([]held, 0, min(window, PageSize)),
		budget:  budget{max: maxBytes},
	}
}

func (v *channelView) add(rows []Message) {
	for i := range rows {
		m := &rows[i]
		if reply := v.first.Add(m); reply != nil {
			h := hold(reply)
			v.budget.keep(&h)
			v.replies = append(v.replies, h)
		}
		if !(Conversation{}).AtLevel(m) {
			continue
		}
		switch m.visibilityFor(v.viewer) {
		case shown:
			if len(v.roots)+len(v.replies) >= v.window {
				// Older than every confirmed row, a window of which is newer: rows confirmed
				// later are newer still, so it can never enter the window.
				continue
			}
			h := hold(m)
			v.budget.keep(&h)
			v.roots = append(v.roots, h)
		case unshown:
			v.elided.add(m)
		}
	}
	if v.budget.over() {
		v.release()
	}
}

// release lets go of the content of every confirmed row the budget is certain to drop: a
// row with newer confirmed rows whose content and its own pass the budget. Confirmed rows
// are in the answer (or newer ones fill its window), and rows confirmed later only add to
// what is newer than it, so such a row never returns. A pending first reply is held until
// its root is read: whether the newer ones will be confirmed is not known before.
func (v *channelView) release() {
	newer := 0 // content of the confirmed rows newer than the current one
	n := 0
	v.newest(func(h *held) bool {
		if n > 0 && newer+h.size > v.budget.max {
			v.budget.drop(h)
		}
		newer += h.size
		n++
		return true
	})
}

// newest calls yield with the confirmed rows, newest first, until it returns false.
func (v *channelView) newest(yield func(*held) bool) {
	slices.SortFunc(v.replies, func(a, b held) int { return cmp.Compare(b.Seq, a.Seq) })
	r, f := v.roots, v.replies
	for len(r) > 0 || len(f) > 0 {
		var h *held
		if len(f) == 0 || (len(r) > 0 && r[0].Seq > f[0].Seq) {
			h, r = &r[0], r[1:]
		} else {
			h, f = &f[0], f[1:]
		}
		if !yield(h) {
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
	v.newest(func(h *held) bool {
		n++
		last = h.Seq
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

func (v *channelView) result() ([]Message, []int, []Elision) {
	n := min(v.window, len(v.roots)+len(v.replies))
	out := make([]Message, n)
	var sizes []int // the content sizes of out, for the budget's cut; none without a budget
	if v.budget.max > 0 {
		sizes = make([]int, n)
	}
	v.newest(func(h *held) bool {
		n--
		out[n] = h.Message
		if sizes != nil {
			sizes[n] = h.size
		}
		return n > 0
	})
	var floor Sequence
	if len(out) == v.window {
		floor = out[0].Seq
	}
	return out, sizes, v.elided.above(floor, out)
}
