package transcript

import (
	"cmp"
	"context"
	"slices"
)

// channelView qualifies every non-blank root and each root's first reply within the scan.
type channelView struct {
	window    int
	qualified []Message // confirmed rows, in the order found (not sorted)
	first     FirstReplies
}

func newChannelView(window int) *channelView {
	return &channelView{window: window}
}

func (v *channelView) add(rows []Message) {
	for i := range rows {
		m := &rows[i]
		if reply, ok := v.first.Add(m); ok {
			v.qualified = append(v.qualified, reply)
		}
		if m.Parent == 0 && !m.Blank() {
			v.qualified = append(v.qualified, *m)
		}
	}
}

// settle reports whether the window is full with rows newer than every reply that could
// still be confirmed as a first reply.
func (v *channelView) settle(_ context.Context, p *Pager) (bool, error) {
	if p.Done() {
		return true, nil
	}
	if len(v.qualified) < v.window {
		return false, nil
	}
	pending := v.first.Newest()
	newer := 0
	for i := range v.qualified {
		if v.qualified[i].Seq > pending {
			newer++
		}
	}
	return newer >= v.window, nil
}

func (v *channelView) result() []Message {
	slices.SortFunc(v.qualified, func(a, b Message) int { return cmp.Compare(a.Seq, b.Seq) })
	return slices.Clone(v.qualified[max(0, len(v.qualified)-v.window):])
}
