package transcript

import (
	"cmp"
	"context"
	"slices"

	"github.com/sharedesk/transcript/internal/cut"
)

// channelView qualifies every non-blank root the viewer may read and each root's first
// reply within the scan.
type channelView struct {
	viewer Author
	window int
	// The confirmed rows. Roots arrive in the walk's order, newest first, so they stay
	// sorted; first replies arrive when their root does, in no order, and are few: only
	// they are sorted, when the window is asked about.
	roots   []ref
	replies []ref
	copies  []Message // where the refs that do not point into a page point: filled, then replaced, never moved
	first   firstReplies
	elided  elided
	want    int // rows the last settle estimated the view still needs; 0: no estimate
	budget  budget
}

// ref is a confirmed row of a channel view: a pointer into the page it came in, when that
// page is small (smallPage: holding it on costs little), else into a copy of the view's,
// so that a large page goes once read; and the size of its content, which stays known when
// the budget lets the content go.
type ref struct {
	m    *Message
	size int
	own  bool // m points into the view's copies, not into a page
}

// smallPage is the content up to which a channel view keeps pointers into a page rather
// than copies of its rows: the pages a walk of small rows reads stay in memory while it
// runs, as they cost less than copying its rows would.
const smallPage = 64 << 10

func newChannelView(viewer Author, window, maxBytes int) *channelView {
	v := &channelView{
		viewer: viewer, window: window, first: firstReplies{viewer: viewer},
		// Sized for a window of roots and their answers, so most walks never grow them: no
		// root beyond a full window is kept.
		roots:   make([]ref, 0, min(window, PageSize)),
		replies: make([]ref, 0, min(window, PageSize)),
		budget:  budget{max: maxBytes},
	}
	if maxBytes > 0 {
		v.first.budget = &v.budget
	}
	return v
}

// copyOf returns a pointer to a copy of m that the view owns.
func (v *channelView) copyOf(m *Message) *Message {
	if len(v.copies) == cap(v.copies) {
		v.copies = make([]Message, 0, 16) // a new array: the pointers into the last one stay good
	}
	v.copies = append(v.copies, *m)
	return &v.copies[len(v.copies)-1]
}

func (v *channelView) add(rows []Message) {
	bytes := 0
	for i := range rows {
		bytes += len(rows[i].Content)
	}
	small := bytes <= smallPage
	for i := range rows {
		m := &rows[i]
		if replies, ok := v.first.add(m); ok {
			// The reply's page is an older one, maybe large: the view keeps a copy.
			size, _ := replies.size()
			r := ref{m: v.copyOf(replies.first), size: size, own: true}
			v.budget.held += len(r.m.Content)
			v.replies = append(v.replies, r)
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
			r := ref{m: m, size: len(m.Content)}
			if !small {
				r.m, r.own = v.copyOf(m), true
			}
			v.budget.held += r.size
			v.roots = append(v.roots, r)
		case unshown:
			v.elided.add(m)
		}
	}
	if v.budget.max > 0 && !small {
		v.first.detach(rows)
	}
	if v.budget.over() {
		v.release()
	}
	if v.budget.over() { // the view keeps the newest: let the oldest pending replies go first
		v.budget.evict(v.first.held(func(a, b *held) int { return cmp.Compare(a.Seq, b.Seq) }))
	}
}

// release lets go of the content of every confirmed row the budget is certain to drop: a
// row past the cut (within) of the confirmed rows newer than it. Confirmed rows are in the
// answer (or newer ones fill its window), and rows confirmed later only add to what is newer
// than it, so such a row never returns. A pending first reply is held until its root is
// read: whether the newer ones will be confirmed is not known before.
func (v *channelView) release() {
	var order []*ref // newest first
	v.newest(func(r *ref) bool {
		order = append(order, r)
		return true
	})
	for _, r := range order[cut.Within(len(order), v.budget.max, func(i int) int { return order[i].size }):] {
		if r.m.Content == "" {
			continue
		}
		v.budget.held -= len(r.m.Content)
		if !r.own { // the page's row is the host's: point at a copy, and the page may go
			r.m, r.own = v.copyOf(r.m), true
		}
		r.m.Content = ""
	}
}

// newest calls yield with the confirmed rows, newest first, until it returns false.
func (v *channelView) newest(yield func(*ref) bool) {
	slices.SortFunc(v.replies, func(a, b ref) int { return cmp.Compare(b.m.Seq, a.m.Seq) })
	r, f := v.roots, v.replies
	for len(r) > 0 || len(f) > 0 {
		var h *ref
		if len(f) == 0 || (len(r) > 0 && r[0].m.Seq > f[0].m.Seq) {
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
	v.newest(func(r *ref) bool {
		n++
		last = r.m.Seq
		return n < v.window
	})
	if v.first.newest() < last {
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
	v.newest(func(r *ref) bool {
		n--
		out[n] = *r.m
		if sizes != nil {
			sizes[n] = r.size
		}
		return n > 0
	})
	var floor Sequence
	if len(out) == v.window {
		floor = out[0].Seq
	}
	return out, sizes, v.elided.above(floor, out)
}
