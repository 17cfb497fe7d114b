package transcript

import (
	"context"
	"slices"
)

// rootState is what a thread walk knows about its root.
type rootState uint8

const (
	rootUnknown        rootState = iota // not reached, not fetched
	rootQualifies                       // exists, older than the bound, non-blank, readable by the viewer
	rootDoesNotQualify                  // missing, blank, unreadable, or not older than the bound
)

// threadView qualifies the root T and its non-blank direct replies that the viewer may read.
type threadView struct {
	viewer  Author
	root    Sequence
	window  int
	state   rootState
	rootRow Message
	passed  bool   // a row at or below the root was read: no reply can follow
	scanned int    // rows read as of the last settle
	replies []held // qualifying direct replies, newest first
	elided  elided // the root and direct replies the viewer may not read, newest first
	// budget counts the content of the replies read so far: a reply past the budget with
	// the newer ones is dropped by it whatever the root holds, so its content is let go as
	// it is read (the cut, within, taken one reply at a time).
	budget budget
}

func newThreadView(viewer Author, root, before Sequence, window, maxBytes int) *threadView {
	v := &threadView{viewer: viewer, root: root, window: window, budget: budget{max: maxBytes}}
	if before != 0 && root >= before {
		v.state = rootDoesNotQualify
	}
	return v
}

func (v *threadView) add(rows []Message) {
	for i := range rows {
		m := &rows[i]
		if m.Parent != v.root { // not a direct reply (which is newer than the root)
			if m.Seq > v.root {
				continue // not at the view's level
			}
			if m.Seq == v.root {
				if m.visibilityFor(v.viewer) == unshown {
					v.elided.add(m)
				}
				v.resolveRoot(m)
			}
			v.resolveRoot(nil)
			v.passed = true
			return
		}
		switch m.visibilityFor(v.viewer) {
		case shown:
			h := hold(m)
			v.budget.held += h.size
			if len(v.replies) > 0 && v.budget.over() {
				h.release()
			}
			v.replies = append(v.replies, h)
		case unshown:
			v.elided.add(m)
		}
	}
}

// resolveRoot records the root row, or nil for "not in the log", unless the root's state is
// known already.
func (v *threadView) resolveRoot(m *Message) {
	if v.state != rootUnknown {
		return
	}
	if m != nil && m.Seq == v.root && m.visibilityFor(v.viewer) == shown {
		v.state, v.rootRow = rootQualifies, *m
		return
	}
	v.state = rootDoesNotQualify
}

// settle fetches the root with one read of limit 1 once the walk stops above it (the
// replies fill Window-1 places, or the scan budget is spent) while older rows remain. A
// window of one that holds the root holds it alone, so its floor is the root: that walk goes
// on down to the root, for the elisions above it.
func (v *threadView) settle(ctx context.Context, p *Pager) (bool, error) {
	v.scanned = p.Scanned()
	if v.passed || p.Done() {
		v.resolveRoot(nil)
		return true, nil
	}
	if v.state == rootUnknown && (len(v.replies) >= v.window-1 || p.Scanned() >= ScanLimit) {
		rows, err := p.Peek(ctx, v.root+1, 1)
		if err != nil {
			return false, err
		}
		if len(rows) > 0 {
			v.resolveRoot(&rows[0])
		}
		v.resolveRoot(nil)
	}
	return v.state != rootUnknown && len(v.replies) >= v.places() && v.places() > 0, nil
}

// places is how many replies the result holds at most.
func (v *threadView) places() int {
	if v.state == rootQualifies {
		return v.window - 1
	}
	return v.window
}

// wanted estimates the rows still needed for the missing replies, as dense as those found
// so far with a quarter to spare.
func (v *threadView) wanted() int {
	found := len(v.replies)
	need := v.places() - found
	if v.state == rootUnknown {
		need = v.window - 1 - found
	}
	if found == 0 || need <= 0 || v.scanned == 0 {
		return 0
	}
	return need * v.scanned * 5 / (4 * found)
}

func (v *threadView) result() ([]Message, []int, []Elision) {
	replies := v.replies[:min(len(v.replies), v.places())]
	out := make([]Message, 0, len(replies)+1)
	var sizes []int // the content sizes of out, for the budget's cut; none without a budget
	if v.budget.max > 0 {
		sizes = make([]int, 0, cap(out))
	}
	if v.state == rootQualifies {
		out = append(out, v.rootRow)
		if sizes != nil {
			sizes = append(sizes, len(v.rootRow.Content))
		}
	}
	for _, h := range slices.Backward(replies) {
		out = append(out, h.Message)
		if sizes != nil {
			sizes = append(sizes, h.size)
		}
	}
	var floor Sequence // the oldest message other than the root, or the root alone
	if len(out) == v.window {
		floor = out[0].Seq
		if v.state == rootQualifies && len(out) > 1 {
			floor = out[1].Seq
		}
	}
	return out, sizes, v.elided.above(floor, out)
}
