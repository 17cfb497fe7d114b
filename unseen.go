package transcript

import (
	"cmp"
	"context"
	"slices"

	"github.com/sharedesk/transcript/internal/cut"
)

// UnseenQuery asks ReadUnseen for what a reader has not seen of one conversation.
type UnseenQuery struct {
	Conversation Conversation
	Viewer       Author     // whose view it is, as in Query
	After        Sequence   // the reader's watermark: every qualifying row at or below it was seen
	Seen         []Sequence // rows above After the reader has seen already, ascending
	Before       Sequence   // exclusive upper bound; 0: up to the newest row
	// Except's messages and corrections are left out of the answer, and take none of the
	// budget; they still part the elisions around them. The zero Author leaves out none.
	Except   Author
	MaxBytes int // the answer's byte budget; 0 (or less) means none
	// Digest is the Through of the conversation's digest the reader holds; 0: none.
	Digest Sequence
}

// Unseen is ReadUnseen's answer.
type Unseen struct {
	Messages    []Message // chronological
	Elided      []Elision // ascending From, placed among Messages and Corrections by sequence
	Corrections []Message // ascending Seq; nil when none
	Head        Sequence  // the newest row read (0 if none)
	// Cut is, with a budget, the Seq of the oldest message or correction the budget leaves
	// out: Messages and Corrections from it on hold no content. 0 when the budget left out none.
	Cut Sequence
	// Lost reports that After is not in the log: it lies above the log's newest row
	// (Before == 0), the row Before-1 is newer than the log's newest row, or the log ended
	// above a watermark other than 0. Partial reports that the walk did not cross After
	// within ScanLimit rows. Either way the rest of the answer is empty.
	Lost, Partial bool
	// DigestCorrected reports that a row of (After, Before) corrects a row the digest the
	// reader holds (UnseenQuery.Digest) may stand for (correctsDigested): the digest may hold
	// words the log no longer does.
	DigestCorrected bool
}

// unseenFirstRead is the limit of an unseen walk's first read. Most deltas between two turns
// are a few rows; the reads double from here, up to PageSize, for the rest.
const unseenFirstRead = 8

// ReadUnseen walks log down from q.Before and returns what a reader of q.Conversation, as
// q.Viewer reads it, has not seen above its watermark q.After. Over the same scan as
// Project's (P, the first ScanLimit rows below Before), the messages are exactly the rows
// of (After, Before) that qualify under Project's definitions, less q.Seen (ascending) and
// q.Except's; the elisions are those of the rows of (After, Before) Project would elide,
// grouped among the messages, Except's and the corrections; the corrections are, for each
// row that qualifies over the scan (at channel level a root or a root's first reply, at
// thread level the thread's root wherever it lies or a direct reply; a redacted row as it
// did before), its newest correction in (After, Before), less q.Seen and Except's. To learn
// whether a reply above After is a first reply, or a corrected row qualifies, the walk reads
// on below After, within ScanLimit.
//
// With q.MaxBytes, the answer keeps its oldest messages and corrections, in sequence order,
// whose content fits in the budget together (at least one), and Cut says where it stops.
// The walk holds about MaxBytes of content and a page: it keeps the sequence and size of
// what it passes over, and reads a row again, once, should the answer carry one whose
// content it let go while that was not known.
//
// With q.Digest, the answer reports whether a row of (After, Before) corrects a row that
// digest may stand for (Unseen.DigestCorrected), whatever the correction's author, q.Seen,
// the budget, and however old its target: the correction itself is read, its target need
// not be.
//
// Pages are checked as Pager describes; errors are as Project's, and on error the answer is
// zero. Knowing the log's newest row costs no read of its own, except when Before != 0 and
// the first read shows no row Before-1: then one read of the newest row tells.
func ReadUnseen(ctx context.Context, log Log, q UnseenQuery) (Unseen, error) {
	v := &unseenView{q: q, log: log, first: firstReplies{viewer: q.Viewer}, budget: budget{max: max(q.MaxBytes, 0)}}
	if v.budget.max > 0 {
		v.first.budget = &v.budget
	}
	v.pager = Pager{log: log, before: q.Before}
	w, err := walkLog(ctx, &v.pager, unseenFirstRead, false, v, nil)
	if err != nil {
		return Unseen{}, err
	}
	switch {
	case v.lost:
		return Unseen{Lost: true}, nil
	case !v.crossed && w.scanned >= ScanLimit: // also when the log ends exactly there
		return Unseen{Partial: true}, nil
	case !v.crossed && q.After != 0: // the log ended above the watermark
		return Unseen{Lost: true}, nil
	}
	return v.answer(ctx)
}

// unseenView collects the qualifying rows above the watermark, and the corrections of
// qualifying rows.
type unseenView struct {
	q       UnseenQuery
	log     Log
	reads   int      // pages added
	head    Sequence // the newest row read
	low     Sequence // the oldest row read
	crossed bool     // a row at or below the watermark was read
	lost    bool
	// digestCorrected: a row above the watermark corrects a row q.Digest may stand for.
	digestCorrected bool
	// fresh holds the answer's messages: qualifying, above the watermark, not seen, not
	// Except's; unsorted.
	fresh    []held
	elided   elided
	excepted []Sequence // the rows of the answer Except left out, unsorted
	first    firstReplies
	corr     *unseenCorrections // nil until the walk reads a correction it may need
	budget   budget
	// pager is the walk's, and freshBuf and itemsBuf the first arrays of fresh and of items'
	// answers: made with the view, in its one allocation, and enough for most deltas.
	pager    Pager
	freshBuf [1]held
	itemsBuf [4]*held
}

func (v *unseenView) add(rows []Message) {
	v.reads++
	if v.reads == 1 && len(rows) > 0 {
		v.head = rows[0].Seq
	}
	channel := v.q.Conversation.IsChannel()
	for i := range rows {
		m := &rows[i]
		above := m.Seq > v.q.After
		v.crossed = v.crossed || !above
		v.low = m.Seq
		if above && !v.digestCorrected && v.q.Digest != 0 {
			v.digestCorrected = correctsDigested(v.q.Conversation, v.q.Digest, m)
		}
		if v.corr != nil || m.IsCorrection() {
			v.addCorrection(m, above)
		}
		if channel {
			if r, ok := v.first.add(m); ok {
				if v.corr != nil {
					v.corr.confirm(m.Seq, r.first.Seq, &v.budget)
				}
				if r.first.Seq > v.q.After {
					h := hold(r.first)
					h.size, h.gone = r.size()
					v.keep(h)
				}
			}
		}
		if above && v.q.Conversation.AtLevel(m) {
			switch m.visibilityFor(v.q.Viewer) {
			case shown:
				v.keep(hold(m))
			case unshown:
				v.elided.add(m)
			}
		}
	}
	if v.budget.max > 0 {
		if pageBytes(rows) > smallPage {
			v.first.detach(rows)
		}
		if v.budget.over() {
			v.release()
		}
	}
}

// pageBytes returns the content rows hold.
func pageBytes(rows []Message) int {
	n := 0
	for i := range rows {
		n += len(rows[i].Content)
	}
	return n
}

// addCorrection hands m to the walk's corrections, made when the walk reads the first
// correction above the watermark that the viewer may read: a walk that reads none keeps no
// state for them. The walk calls it for a correction, and for every row once they exist.
func (v *unseenView) addCorrection(m *Message, above bool) {
	if v.corr == nil {
		if !above || !m.ReadableBy(v.q.Viewer) {
			return
		}
		v.corr = &unseenCorrections{conv: v.q.Conversation, viewer: v.q.Viewer}
	}
	v.corr.add(m, above, v.carries(m), &v.budget)
}

// carries reports how the answer carries m, a correction, should its target qualify: not
// at all when the reader has seen it, as a row that only parts elisions when Except wrote it.
func (v *unseenView) carries(m *Message) carriage {
	switch {
	case !m.IsCorrection():
		return 0
	case slices.Contains(v.q.Seen, m.Seq):
		return notCarried
	case v.q.Except != (Author{}) && m.Author.Same(v.q.Except):
		return parts
	}
	return carried
}

// keep adds m to the answer's messages, unless the reader has seen it already; a row by
// Except goes to excepted, without its content.
func (v *unseenView) keep(h held) {
	if _, found := slices.BinarySearch(v.q.Seen, h.Seq); found {
		return
	}
	if v.q.Except != (Author{}) && h.Author.Same(v.q.Except) {
		v.excepted = append(v.excepted, h.Seq)
		return
	}
	if v.budget.max > 0 {
		v.budget.held += len(h.Content)
	}
	if v.fresh == nil {
		v.fresh = v.freshBuf[:0]
	}
	v.fresh = append(v.fresh, h)
}

// release lets go of the content of every item of the answer the budget is certain to drop,
// then, while the walk still holds more than the budget, of the corrections whose targets it
// has not confirmed yet, the newest first: the answer keeps the oldest.
func (v *unseenView) release() {
	items := v.items()
	v.budget.releaseBeyond(len(items), func(i int) *held { return items[i] })
	if v.budget.over() { // the answer keeps the oldest: let the newest pending rows go first
		pending := v.first.held(nil)
		if v.corr != nil {
			pending = append(pending, v.corr.unconfirmed()...)
		}
		slices.SortFunc(pending, func(a, b *held) int { return cmp.Compare(b.Seq, a.Seq) })
		v.budget.evict(pending)
	}
}

// items returns the answer's messages and confirmed corrections, ascending Seq, in an array
// the next call may reuse.
func (v *unseenView) items() []*held {
	n := len(v.fresh)
	if v.corr != nil {
		n += len(v.corr.found)
	}
	items := v.itemsBuf[:0]
	if n > len(v.itemsBuf) {
		items = make([]*held, 0, n)
	}
	for i := range v.fresh {
		items = append(items, &v.fresh[i])
	}
	if v.corr != nil {
		for i := range v.corr.found {
			items = append(items, &v.corr.found[i])
		}
	}
	slices.SortFunc(items, func(a, b *held) int { return cmp.Compare(a.Seq, b.Seq) })
	return items
}

func (v *unseenView) settle(ctx context.Context, p *Pager) (bool, error) {
	if v.reads == 1 {
		beyond, err := v.beyondHead(ctx)
		if err != nil {
			return false, err
		}
		if beyond {
			v.lost = true
			return true, nil
		}
	}
	switch {
	case p.Done():
		return true, nil
	case !v.crossed:
		return false, nil
	case v.q.Conversation.IsChannel() && v.first.newest() > v.q.After:
		return false, nil // a reply still pending could be a first reply above the watermark
	}
	return v.corr.settled(v.low, &v.first, &v.budget), nil // no corrected row still unread could qualify
}

func (v *unseenView) wanted() int { return 0 }

// beyondHead reports, once the first read has set head, whether the watermark (bound 0) or
// the bound's row Before-1 is newer than the log's newest row. With a bound, a first read
// that shows row Before-1 settles it; otherwise the newest row of the log is read.
func (v *unseenView) beyondHead(ctx context.Context) (bool, error) {
	b := v.q.Before
	if b == 0 {
		return v.head < v.q.After, nil
	}
	if b == 1 || v.head == b-1 {
		return false, nil
	}
	rows, err := NewPager(v.log, 0).Next(ctx, 1)
	if err != nil {
		return false, err
	}
	// The first read showed no row Before-1: a newest row below Before is older than
	// Before-1, or was committed after that read, which missed it all the same.
	return len(rows) == 0 || rows[0].Seq < b, nil
}

// answer returns what the walk found, cut by the budget, with the content of what the answer
// carries and the walk let go read again.
func (v *unseenView) answer(ctx context.Context) (Unseen, error) {
	u := Unseen{Head: v.head, DigestCorrected: v.digestCorrected}
	items := v.items()
	if v.budget.max > 0 {
		kept := cut.Within(len(items), v.budget.max, func(i int) int { return items[i].size })
		if kept < len(items) {
			u.Cut = items[kept].Seq
		}
		var gone []*Message
		for _, h := range items[:kept] {
			if h.gone {
				gone = append(gone, &h.Message)
			}
		}
		if _, err := reread(ctx, v.log, gone); err != nil {
			return Unseen{}, err
		}
	}
	u.Messages = make([]Message, 0, len(v.fresh))
	for _, h := range items {
		if h.IsCorrection() {
			u.Corrections = append(u.Corrections, h.Message)
		} else {
			u.Messages = append(u.Messages, h.Message)
		}
	}
	parting := u.Messages // what parts the elisions: more than the messages, as Seq only, when there is more
	var exceptedCorrections []Sequence
	if v.corr != nil {
		exceptedCorrections = v.corr.excepted
	}
	if len(v.elided.rows) > 0 && (len(v.excepted) > 0 || len(u.Corrections) > 0 || len(exceptedCorrections) > 0) {
		parting = make([]Message, 0, len(items)+len(v.excepted)+len(exceptedCorrections))
		for _, h := range items {
			parting = append(parting, Message{Seq: h.Seq})
		}
		for _, seq := range slices.Concat(v.excepted, exceptedCorrections) {
			parting = append(parting, Message{Seq: seq})
		}
		slices.SortFunc(parting, func(a, b Message) int { return cmp.Compare(a.Seq, b.Seq) })
	}
	u.Elided = v.elided.above(0, parting)
	if u.Elided == nil {
		u.Elided = []Elision{}
	}
	return u, nil
}
