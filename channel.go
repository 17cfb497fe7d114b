package transcript

import (
	"cmp"
	"context"
	"slices"
)

// channelView qualifies every non-blank root the viewer may read and each root's first
// reply within the scan.
type channelView struct {
	viewer    Author
	window    int
	qualified []*Message // confirmed rows, pointing into the pages the Pager keeps; unordered
	first     FirstReplies
	elided    elided
	want      int // rows the last settle estimated the view still needs; 0: no estimate
}

func newChannelView(viewer Author, window int) *channelView {
	return &channelView{viewer: viewer, window: window, first: FirstReplies{Viewer: viewer}}
}

func (v *channelView) add(rows []Message) {
	for i := range rows {
		m := &rows[i]
		if reply := v.first.Add(m); reply != nil {
			v.qualified = append(v.qualified, reply)
		}
		if m.Parent != 0 {
			continue
		}
		switch m.visibilityFor(v.viewer) {
		case shown:
			v.qualified = append(v.qualified, m)
		case unshown:
			v.elided.add(m)
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
	if len(v.qualified) < v.window {
		if found := len(v.qualified); found > 0 {
			// As dense as what was read so far, with a quarter to spare.
			v.want = (v.window - found) * p.Scanned() * 5 / (4 * found)
		}
		return false, nil
	}
	slices.SortFunc(v.qualified, func(a, b *Message) int { return cmp.Compare(b.Seq, a.Seq) })
	last := v.qualified[v.window-1].Seq // the oldest row the window holds now
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
	slices.SortFunc(v.qualified, func(a, b *Message) int { return cmp.Compare(a.Seq, b.Seq) })
	newest := v.qualified[max(0, len(v.qualified)-v.window):]
	out := make([]Message, len(newest))
	for i, m := range newest {
		out[i] = *m
	}
	var floor Sequence
	if len(out) == v.window {
		floor = out[0].Seq
	}
	return out, v.elided.above(floor, out)
}
