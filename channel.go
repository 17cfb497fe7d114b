package transcript

import (
	"cmp"
	"context"
	"slices"
)

// channelView qualifies every non-blank root and each root's first reply: its oldest
// non-blank direct reply within the scan.
//
// Its bookkeeping holds only the replies whose parent has not been reached yet, keyed by
// parent, each the oldest non-blank reply seen so far. Reaching a root confirms its entry
// as a first reply; reaching a reply drops its entry, since a reply to a reply never
// qualifies.
type channelView struct {
	window    int
	qualified []Message             // confirmed rows, in the order found (not sorted)
	pending   map[Sequence]*Message // parent → oldest non-blank reply so far
	low       Sequence              // the oldest row read so far
}

func newChannelView(window int) *channelView {
	return &channelView{window: window}
}

func (v *channelView) add(rows []Message) {
	for i := range rows {
		m := &rows[i]
		if reply, ok := v.pending[m.Seq]; ok {
			delete(v.pending, m.Seq)
			if m.Parent == 0 {
				v.qualified = append(v.qualified, *reply)
			}
		}
		switch {
		case m.Blank():
		case m.Parent == 0:
			v.qualified = append(v.qualified, *m)
		default:
			if v.pending == nil {
				v.pending = make(map[Sequence]*Message)
			}
			v.pending[m.Parent] = m
		}
	}
	if len(rows) > 0 {
		v.low = rows[len(rows)-1].Seq
	}
}

// settle reports whether the window is full with rows newer than every reply that could
// still be confirmed as a first reply. Entries whose parent lies above the oldest row read
// were passed over (their parent is not in the log) and are dropped here.
func (v *channelView) settle(_ context.Context, p *Pager) (bool, error) {
	if p.Done() {
		return true, nil
	}
	if len(v.qualified) < v.window {
		return false, nil
	}
	var newestPending Sequence
	for parent, reply := range v.pending {
		if parent > v.low {
			delete(v.pending, parent)
			continue
		}
		newestPending = max(newestPending, reply.Seq)
	}
	newer := 0
	for i := range v.qualified {
		if v.qualified[i].Seq > newestPending {
			newer++
		}
	}
	return newer >= v.window, nil
}

func (v *channelView) result() []Message {
	slices.SortFunc(v.qualified, func(a, b Message) int { return cmp.Compare(a.Seq, b.Seq) })
	return slices.Clone(v.qualified[max(0, len(v.qualified)-v.window):])
}
