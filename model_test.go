package transcript_test

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/proptest"
	"github.com/sharedesk/transcript/memlog"
)

// This file checks Project against a model of SPEC §5 and §10 written to be obviously correct
// rather than fast: it looks at every row of the log, with no early stop, no paging and no
// bookkeeping, and applies the definitions word for word, for every kind of viewer. Generated desks (gaps, blanks,
// dangling parents, threads of every kind, desks larger than ScanLimit) are projected through
// memlog, with full and with short pages, and every read Project makes is checked against
// the paging rules. fuzz_test.go reuses the model for its consistent host.

// modelResult is what the model says a projection must hold.
type modelResult struct {
	Messages []transcript.Message
	Elided   []transcript.Elision
	Head     transcript.Sequence
	Older    int  // rows older than Before in the whole log
	Partial  bool // more than ScanLimit rows are older than Before, and P does not settle the view
}

// modelBlank is the spec's definition, spelled the spec's way: a correction, or a row whose
// content is only white space and was not erased.
func modelBlank(m transcript.Message) bool {
	return m.Corrects != 0 || (!m.Redacted && strings.TrimSpace(m.Content) == "")
}

// modelReadable is §10's reading rule: a desk row, or an aside the viewer is the operator,
// the author or a listed reader of; a viewer that is not a valid author reads desk rows only.
func modelReadable(m transcript.Message, viewer transcript.Author) bool {
	if len(m.Audience) == 0 {
		return true
	}
	if viewer.Validate() != nil {
		return false
	}
	if viewer.Kind == transcript.KindOperator || modelSame(viewer, m.Author) {
		return true
	}
	return slices.ContainsFunc(m.Audience, func(a transcript.Author) bool { return modelSame(a, viewer) })
}

func modelSame(a, b transcript.Author) bool { return a.Kind == b.Kind && a.ID == b.ID }

// modelHidden is §10's "treated exactly like a blank row": blank, or unreadable by viewer.
func modelHidden(m transcript.Message, viewer transcript.Author) bool {
	return modelBlank(m) || !modelReadable(m, viewer)
}

// modelReaders is an aside's author and audience, each identity once (the author's label
// first, else the first listed), sorted by kind and then id.
func modelReaders(m transcript.Message) []transcript.Author {
	var out []transcript.Author
	for _, a := range append([]transcript.Author{m.Author}, m.Audience...) {
		if !slices.ContainsFunc(out, func(b transcript.Author) bool { return modelSame(a, b) }) {
			out = append(out, a)
		}
	}
	slices.SortFunc(out, func(a, b transcript.Author) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.ID, b.ID))
	})
	return out
}

func modelWindow(q transcript.Query) int {
	if q.Window <= 0 {
		return transcript.SessionWindow
	}
	return q.Window
}

// modelProject computes SPEC §5 over all of a log's rows, given in ascending Seq.
func modelProject(rows []transcript.Message, q transcript.Query) modelResult {
	// The rows older than Before, newest first.
	var older []transcript.Message
	for i := len(rows) - 1; i >= 0; i-- {
		if q.Before == 0 || rows[i].Seq < q.Before {
			older = append(older, rows[i])
		}
	}
	res := modelResult{Older: len(older)}
	if len(older) > 0 {
		res.Head = older[0].Seq
	}
	p := older[:min(len(older), transcript.ScanLimit)]
	res.Messages = modelView(rows, p, q)
	res.Elided = modelElisions(res.Messages, modelElidedRows(rows, p, q, res.Messages))
	res.Partial = len(older) > transcript.ScanLimit && !modelSettled(rows, p, q)
	return res
}

// modelElidedRows returns §10's elided rows, ascending: the rows of p that are non-blank, not
// readable by the viewer and at the view's level, newer than the window's floor.
func modelElidedRows(rows, p []transcript.Message, q transcript.Query, result []transcript.Message) []transcript.Message {
	var floor transcript.Sequence
	t := q.Conversation.Thread
	if len(result) == modelWindow(q) {
		floor = result[0].Seq
		if t != 0 && result[0].Seq == t && len(result) > 1 {
			floor = result[1].Seq
		}
	}
	var out []transcript.Message
	for _, m := range p {
		atLevel := m.Parent == 0
		if t != 0 {
			atLevel = m.Seq == t || m.Parent == t
		}
		if atLevel && m.Seq > floor && !modelBlank(m) && !modelReadable(m, q.Viewer) {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b transcript.Message) int { return cmp.Compare(a.Seq, b.Seq) })
	return out
}

// modelElisions groups elided rows among a view's messages: with both in one sequence order,
// each maximal run of elided rows with the same readers, by identity, is one Elision with
// the readers of its newest row.
func modelElisions(msgs, elided []transcript.Message) []transcript.Elision {
	key := func(m transcript.Message) string {
		var b strings.Builder
		for _, a := range modelReaders(m) {
			fmt.Fprintf(&b, "%d:%q,", a.Kind, a.ID)
		}
		return b.String()
	}
	var out []transcript.Elision
	lastKey := ""
	for _, m := range elided {
		between := slices.ContainsFunc(msgs, func(x transcript.Message) bool {
			return len(out) > 0 && x.Seq > out[len(out)-1].Through && x.Seq < m.Seq
		})
		if k := key(m); len(out) > 0 && !between && k == lastKey {
			e := &out[len(out)-1]
			e.Through, e.Count, e.Readers = m.Seq, e.Count+1, modelReaders(m)
			continue
		}
		lastKey = key(m)
		out = append(out, transcript.Elision{From: m.Seq, Through: m.Seq, Count: 1, Readers: modelReaders(m)})
	}
	return out
}

// modelView returns the newest Window rows of p (newest first) that qualify for q's view,
// chronological; a thread view's root comes from the whole log.
func modelView(rows, p []transcript.Message, q transcript.Query) []transcript.Message {
	window := modelWindow(q)
	if t := q.Conversation.Thread; t != 0 {
		root := modelRoot(rows, q)
		replies := modelReplies(p, t, q.Viewer)
		replies = replies[:min(len(replies), window-len(root))]
		slices.Reverse(replies)
		return append(root, replies...)
	}
	qualifying := modelChannel(p, q.Viewer)
	slices.SortFunc(qualifying, func(a, b transcript.Message) int { return cmp.Compare(a.Seq, b.Seq) })
	return qualifying[max(0, len(qualifying)-window):]
}

// modelRoot returns the thread root when it qualifies: it exists anywhere in the log, is
// older than Before, is not blank and the viewer may read it.
func modelRoot(rows []transcript.Message, q transcript.Query) []transcript.Message {
	t := q.Conversation.Thread
	for _, m := range rows {
		if m.Seq == t && (q.Before == 0 || t < q.Before) && !modelHidden(m, q.Viewer) {
			return []transcript.Message{m}
		}
	}
	return nil
}

// modelReplies returns the direct replies of t in p that qualify for viewer, in p's order.
func modelReplies(p []transcript.Message, t transcript.Sequence, viewer transcript.Author) []transcript.Message {
	var replies []transcript.Message
	for _, m := range p {
		if m.Parent == t && !modelHidden(m, viewer) {
			replies = append(replies, m)
		}
	}
	return replies
}

// modelChannel returns every row of p that qualifies for the channel view for viewer,
// unsorted: the roots neither blank nor unreadable, and each root's first reply, the oldest
// such row of p replying to it.
func modelChannel(p []transcript.Message, viewer transcript.Author) []transcript.Message {
	var qualifying []transcript.Message
	for _, m := range p {
		if m.Parent == 0 && !modelHidden(m, viewer) {
			qualifying = append(qualifying, m)
		}
	}
	oldest := modelOldestReplies(p, viewer)
	for _, r := range p {
		if m, ok := oldest[r.Seq]; ok && r.Parent == 0 {
			qualifying = append(qualifying, m)
		}
	}
	return qualifying
}

// modelOldestReplies maps each parent to its oldest reply in p that qualifies for viewer. p
// is newest first, so the last reply seen for a parent is its oldest.
func modelOldestReplies(p []transcript.Message, viewer transcript.Author) map[transcript.Sequence]transcript.Message {
	oldest := make(map[transcript.Sequence]transcript.Message)
	for _, m := range p {
		if m.Parent != 0 && !modelHidden(m, viewer) {
			oldest[m.Parent] = m
		}
	}
	return oldest
}

// modelSettled reports whether no row older than prefix — a non-empty prefix of the rows
// older than Before, newest first, with older rows beyond it — could change q's view: the
// point at which SPEC §5 says a walk stops reading.
func modelSettled(rows, prefix []transcript.Message, q transcript.Query) bool {
	window := modelWindow(q)
	low := prefix[len(prefix)-1].Seq
	if t := q.Conversation.Thread; t != 0 {
		// Every direct reply is newer than its root: once the prefix reaches T, none is
		// left. Above T, the rows beyond can only add older replies, which matter while the
		// replies in the prefix do not fill the places the root leaves, and while the root
		// fills the window alone: its floor is then the root, and every row above it may be
		// elided.
		places := window - len(modelRoot(rows, q))
		return low <= t || (places > 0 && len(modelReplies(prefix, t, q.Viewer)) >= places)
	}
	// Rows beyond the prefix are older than every row in it. What they can change: they may
	// qualify themselves, and a reply in the prefix whose parent lies beyond it becomes a
	// first reply if that parent is a root with no older non-blank reply. (A root in the
	// prefix has all its replies in it; a parent above low that the prefix lacks is not in
	// the log.) So the view is settled when window rows qualify already that are newer than
	// every such candidate.
	var candidate transcript.Sequence
	for parent, m := range modelOldestReplies(prefix, q.Viewer) {
		if parent < low {
			candidate = max(candidate, m.Seq)
		}
	}
	newer := 0
	for _, m := range modelChannel(prefix, q.Viewer) {
		if m.Seq > candidate {
			newer++
		}
	}
	return newer >= window
}

// modelCheckStops reports a walk that read on after the rows it had read settled the view:
// SPEC §5 says it stops as soon as more reading cannot change the result.
func modelCheckStops(rows []transcript.Message, calls []modelRead, extra int, q transcript.Query) []string {
	var prefix []transcript.Message
	last := len(calls) - 1
	if last == extra {
		last--
	}
	for k, c := range calls[:max(0, last)] {
		if k == extra {
			continue
		}
		prefix = append(prefix, c.page.Messages...)
		if len(prefix) > 0 && c.page.Next != 0 && modelSettled(rows, prefix, q) {
			return []string{fmt.Sprintf("read on after read %d, although its %d rows settle the view", k+1, len(prefix))}
		}
	}
	return nil
}

// modelRead is one ReadBefore call as a modelRecorder saw it.
type modelRead struct {
	before transcript.Sequence
	limit  int
	page   transcript.Page
}

// modelRecorder wraps a Log and records every read. With short set, it asks the inner log for
// fewer rows than Project asked for, so pages come back short but with a valid Next.
type modelRecorder struct {
	log   transcript.Log
	short *rand.Rand
	calls []modelRead
}

func (l *modelRecorder) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	ask := limit
	if l.short != nil && limit > 1 {
		if l.short.IntN(4) == 0 {
			ask = 1 + l.short.IntN(min(limit, 3)) // now and then a tiny page
		} else {
			ask = 1 + l.short.IntN(limit)
		}
	}
	pg, err := l.log.ReadBefore(ctx, before, ask)
	if err == nil {
		l.calls = append(l.calls, modelRead{before: before, limit: limit, page: pg})
	}
	return pg, err
}

// modelExtraRead returns the index of the thread root's extra read among calls, or -1. The
// walk's own reads form a chain: each asks below the previous one's Next. The extra read asks for
// limit 1 below Thread+1 and leaves the chain where it was, so the chain read after it asks
// for the same bound again.
func modelExtraRead(calls []modelRead, q transcript.Query, scanned int) int {
	t := q.Conversation.Thread
	if t == 0 {
		return -1
	}
	bound, rows := q.Before, 0
	for k, c := range calls {
		if c.limit == 1 && c.before == t+1 {
			switch {
			case c.before != bound:
				return k
			case k+1 < len(calls) && calls[k+1].before == c.before:
				return k // the chain read after it asks for the same bound
			case k == len(calls)-1 && len(c.page.Messages) > 0 && rows == scanned:
				return k // the last read, at the chain's own bound: only Scanned tells them apart
			}
		}
		bound, rows = c.page.Next, rows+len(c.page.Messages)
	}
	return -1
}

// modelCheckReads reports every way the reads Project made break SPEC §5's paging rules:
// limits within 1..PageSize and the scan budget, one chain of bounds, nothing read after the log
// ended, at most one extra read (the thread root's), made only while the walk was above the
// root with older rows left, and Scanned and Reads matching what the host returned.
func modelCheckReads(calls []modelRead, q transcript.Query, proj transcript.Projection) []string {
	var bad []string
	if len(calls) != proj.Reads {
		bad = append(bad, fmt.Sprintf("Reads = %d, host saw %d reads", proj.Reads, len(calls)))
	}
	extra := modelExtraRead(calls, q, proj.Scanned)
	bound, rows, ended := q.Before, 0, false
	for k, c := range calls {
		if c.limit < 1 || c.limit > transcript.PageSize {
			bad = append(bad, fmt.Sprintf("read %d: limit %d outside 1..%d", k+1, c.limit, transcript.PageSize))
		}
		if ended {
			bad = append(bad, fmt.Sprintf("read %d (before %d): made after the log ended", k+1, c.before))
		}
		if k == extra {
			t := q.Conversation.Thread
			if k == 0 || bound == 0 {
				bad = append(bad, fmt.Sprintf("read %d: root's extra read with no older rows left", k+1))
			}
			if modelRowsAtOrBelow(calls[:k], t) {
				bad = append(bad, fmt.Sprintf("read %d: root's extra read after the walk reached row %d", k+1, t))
			}
			continue
		}
		if c.before != bound {
			bad = append(bad, fmt.Sprintf("read %d: before %d, want the previous Next %d", k+1, c.before, bound))
		}
		if left := transcript.ScanLimit - rows; c.limit > left {
			bad = append(bad, fmt.Sprintf("read %d: limit %d above the %d rows of scan budget left", k+1, c.limit, left))
		}
		bound, rows = c.page.Next, rows+len(c.page.Messages)
		ended = c.page.Next == 0
	}
	if rows != proj.Scanned {
		bad = append(bad, fmt.Sprintf("Scanned = %d, the walk's reads returned %d rows", proj.Scanned, rows))
	}
	if proj.Scanned > transcript.ScanLimit {
		bad = append(bad, fmt.Sprintf("Scanned = %d > ScanLimit", proj.Scanned))
	}
	return bad
}

// modelRowsAtOrBelow reports whether any read in calls returned a row with Seq <= t.
func modelRowsAtOrBelow(calls []modelRead, t transcript.Sequence) bool {
	for _, c := range calls {
		for _, m := range c.page.Messages {
			if m.Seq <= t {
				return true
			}
		}
	}
	return false
}

// modelCheckProjection reports how proj differs from the model and from the facts every
// projection satisfies.
func modelCheckProjection(proj transcript.Projection, want modelResult) []string {
	var bad []string
	// slices.Equal first: go-cmp is slow, and thousands of projections agree.
	if !gocmp.Equal(want.Messages, proj.Messages, cmpopts.EquateEmpty()) {
		if d := gocmp.Diff(want.Messages, proj.Messages, cmpopts.EquateEmpty()); d != "" {
			bad = append(bad, "Messages (-model +Project):\n"+d)
		}
	}
	if !gocmp.Equal(want.Elided, proj.Elided, cmpopts.EquateEmpty()) {
		bad = append(bad, "Elided (-model +Project):\n"+gocmp.Diff(want.Elided, proj.Elided, cmpopts.EquateEmpty()))
	}
	if proj.Head != want.Head {
		bad = append(bad, fmt.Sprintf("Head = %d, want %d (newest row below Before)", proj.Head, want.Head))
	}
	if proj.Partial && proj.Scanned != transcript.ScanLimit {
		bad = append(bad, fmt.Sprintf("Partial with Scanned = %d, want ScanLimit", proj.Scanned))
	}
	if proj.Partial != want.Partial {
		bad = append(bad, fmt.Sprintf("Partial = %v, want %v", proj.Partial, want.Partial))
	}
	if proj.Partial && want.Older <= transcript.ScanLimit {
		bad = append(bad, fmt.Sprintf("Partial although only %d rows are older than Before", want.Older))
	}
	if proj.Scanned > want.Older {
		bad = append(bad, fmt.Sprintf("Scanned = %d, but only %d rows are older than Before", proj.Scanned, want.Older))
	}
	if proj.Reads < 1 {
		bad = append(bad, fmt.Sprintf("Reads = %d, want >= 1", proj.Reads))
	}
	for i := 1; i < len(proj.Messages); i++ {
		if proj.Messages[i].Seq <= proj.Messages[i-1].Seq {
			bad = append(bad, fmt.Sprintf("Messages not strictly ascending at %d: %d then %d", i, proj.Messages[i-1].Seq, proj.Messages[i].Seq))
		}
	}
	return bad
}

// modelBlanks are contents that trim to nothing; modelTricky are contents that look empty
// but are not white space to unicode.IsSpace.
var (
	modelBlanks = []string{"", " ", "  ", "\n\t", "\r\n", "\v\f", "\u00a0\u2003", "\u0085", "\u3000\u2028\u2029", "\u1680\u202f\u205f"}
	modelTricky = []string{"\u200b", "\ufeff", "\u00a0x\u00a0", ".", "\x00"}
)

// modelDesk is a generated log and the roles of some of its rows, to aim queries at.
type modelDesk struct {
	rows    []transcript.Message // ascending Seq, possibly gapped
	roots   []transcript.Sequence
	replies []transcript.Sequence
	missing []transcript.Sequence // sequences skipped by the gaps
}

func (d *modelDesk) head() transcript.Sequence {
	if len(d.rows) == 0 {
		return 0
	}
	return d.rows[len(d.rows)-1].Seq
}

// modelShape tunes modelGenDesk.
type modelShape struct {
	rows     int     // how many rows
	rootP    float64 // chance a row is a root
	blankP   float64 // chance a row is blank
	gapP     float64 // chance of a gap before a row
	thread   transcript.Sequence
	threadP  float64 // chance a row replies to thread (when it exists already)
	danglesP float64 // chance a reply's parent is any older number, maybe missing
	asideP   float64 // chance a root, or a reply to a desk row, is an aside
}

var modelAuthors = []transcript.Author{
	transcript.Operator(),
	transcript.Person("ana", "Ana"),
	transcript.Person("bo", ""),
	transcript.Agent("triage", "Triage"),
	transcript.Agent("writer", "Writer"),
	transcript.System("workflow", "Workflow"),
	transcript.System("alert", ""),
	transcript.Person("ana", "Ana Lima"), // Ana renamed: the same identity
}

// modelViewers are the viewers queries are made for: every author, the zero Author, a
// participant who never writes, and viewers that fail Validate.
var modelViewers = append(slices.Clone(modelAuthors),
	transcript.Author{},
	transcript.Agent("stranger", "Stranger"),
	transcript.Agent("", "no id"),
	transcript.Author{Kind: transcript.KindOperator, ID: "fake"},
)

// modelGenAudience returns 1 to 3 distinct authors other than author, sorted by kind and id.
func modelGenAudience(r *rand.Rand, author transcript.Author) []transcript.Author {
	var out []transcript.Author
	for range 1 + r.IntN(3) {
		a := modelAuthors[r.IntN(len(modelAuthors))]
		if !modelSame(a, author) && !slices.ContainsFunc(out, func(b transcript.Author) bool { return modelSame(a, b) }) {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return modelReaders(transcript.Message{Author: out[0], Audience: out[1:]})
}

// modelApplyReplyRule makes m, a reply to the aside parent, follow §10's rule as a writer
// would: an author who may not read parent is swapped for one of its readers, and the
// audience is parent's readers without the author.
func modelApplyReplyRule(r *rand.Rand, m *transcript.Message, parent transcript.Message) {
	readers := modelReaders(parent)
	if !modelReadable(parent, m.Author) {
		m.Author = append(readers, transcript.Operator())[r.IntN(len(readers)+1)]
	}
	m.Audience = slices.DeleteFunc(readers, func(a transcript.Author) bool { return modelSame(a, m.Author) })
}

func modelGenDesk(r *rand.Rand, s modelShape) *modelDesk {
	d := new(modelDesk)
	index := make(map[transcript.Sequence]int) // seq → position in d.rows
	var seq transcript.Sequence
	for len(d.rows) < s.rows {
		seq++
		if r.Float64() < s.gapP {
			gap := transcript.Sequence(1 + r.IntN(4))
			for g := range gap {
				d.missing = append(d.missing, seq+g)
			}
			seq += gap
		}
		m := transcript.Message{Seq: seq, Author: modelAuthors[r.IntN(len(modelAuthors))]}
		switch {
		case s.thread != 0 && s.thread < seq && r.Float64() < s.threadP:
			m.Parent = s.thread
		case len(d.roots) == 0 || r.Float64() < s.rootP:
		case r.Float64() < s.danglesP:
			m.Parent = 1 + transcript.Sequence(r.Uint64N(uint64(seq-1)))
		case len(d.replies) > 0 && r.IntN(4) == 0:
			m.Parent = d.replies[r.IntN(len(d.replies))] // a reply to a reply
		default:
			// Favour recent roots, so threads stay near their replies.
			m.Parent = d.roots[len(d.roots)-1-min(len(d.roots)-1, int(r.ExpFloat64()*3))]
		}
		switch {
		case r.Float64() < s.blankP:
			m.Content = modelBlanks[r.IntN(len(modelBlanks))]
		case r.IntN(20) == 0:
			m.Content = modelTricky[r.IntN(len(modelTricky))]
		default:
			m.Content = fmt.Sprintf("m%d", seq)
		}
		if i, ok := index[m.Parent]; ok && len(d.rows[i].Audience) > 0 {
			modelApplyReplyRule(r, &m, d.rows[i])
		} else if r.Float64() < s.asideP {
			m.Audience = modelGenAudience(r, m.Author)
		}
		if m.Parent == 0 {
			d.roots = append(d.roots, seq)
		} else {
			d.replies = append(d.replies, seq)
		}
		index[seq] = len(d.rows)
		d.rows = append(d.rows, m)
	}
	return d
}

// modelGenQuery aims a query at d: a channel or a thread (a root, a reply, a blank row, a
// missing or future sequence), a bound (newest, 1, random, a row, above the head) and a window.
func modelGenQuery(r *rand.Rand, d *modelDesk) transcript.Query {
	q := transcript.Query{Viewer: modelViewers[r.IntN(len(modelViewers))]}
	head := d.head()
	pick := func(seqs []transcript.Sequence) transcript.Sequence {
		if len(seqs) == 0 {
			return 1 + transcript.Sequence(r.Uint64N(uint64(head)+2))
		}
		return seqs[r.IntN(len(seqs))]
	}
	switch r.IntN(10) {
	case 0, 1, 2, 3:
		// channel
	case 4, 5, 6:
		q.Conversation.Thread = pick(d.roots)
	case 7:
		q.Conversation.Thread = pick(d.replies)
	case 8:
		q.Conversation.Thread = pick(d.missing)
	default:
		q.Conversation.Thread = 1 + transcript.Sequence(r.Uint64N(uint64(head)+3))
	}
	switch r.IntN(8) {
	case 0, 1:
		// newest
	case 2:
		q.Before = 1
	case 3:
		q.Before = head + 1 + transcript.Sequence(r.IntN(3))
	case 4:
		if q.Conversation.Thread != 0 && r.IntN(2) == 0 {
			q.Before = q.Conversation.Thread + transcript.Sequence(r.IntN(2)) // at or just above the root
		} else {
			q.Before = pick(nil)
		}
	case 5:
		if len(d.rows) > 0 {
			q.Before = d.rows[r.IntN(len(d.rows))].Seq
		}
	default:
		q.Before = pick(nil)
	}
	switch r.IntN(9) {
	case 0:
		q.Window = 1
	case 1:
		q.Window = 2
	case 2, 3:
		q.Window = 3 + r.IntN(6)
	case 4:
		q.Window = transcript.SessionWindow
	case 5:
		q.Window = -r.IntN(3) // 0 or below: SessionWindow
	case 6:
		q.Window = 31 + r.IntN(200)
	case 7:
		q.Window = 1000 + r.IntN(5000)
	default:
		q.Window = 1 + r.IntN(40)
	}
	return q
}

// modelCheckDesk projects q over d twice, with full and with short pages, recording the reads,
// and reports every difference from the model. Both must agree with it, so they agree with
// each other: short pages change Scanned and Reads, never Messages, Head or Partial.
func modelCheckDesk(t *testing.T, seed uint64, d *modelDesk, q transcript.Query) modelResult {
	t.Helper()
	log, err := memlog.From(d.rows)
	if err != nil {
		t.Fatalf("seed %d: memlog.From: %v", seed, err)
	}
	want := modelProject(d.rows, q)
	ctx := context.Background()
	for _, short := range []bool{false, true} {
		rec := &modelRecorder{log: log}
		if short {
			rec.short = rand.New(rand.NewPCG(seed, 1))
		}
		proj, err := transcript.Project(ctx, rec, q)
		if err != nil {
			t.Fatalf("seed %d, short pages %v, query %+v: Project: %v", seed, short, q, err)
		}
		bad := modelCheckProjection(proj, want)
		bad = append(bad, modelCheckReads(rec.calls, q, proj)...)
		bad = append(bad, modelCheckStops(d.rows, rec.calls, modelExtraRead(rec.calls, q, proj.Scanned), q)...)
		if len(bad) > 0 {
			t.Errorf("seed %d, short pages %v, query %+v, %d rows (head %d), Scanned %d, Reads %d, Partial %v:\n%s%s",
				seed, short, q, len(d.rows), d.head(), proj.Scanned, proj.Reads, proj.Partial,
				strings.Join(bad, "\n"), modelDeskString(d))
		}
	}
	return want
}

// modelDeskString prints a desk short enough to read, to reproduce a failure by hand.
func modelDeskString(d *modelDesk) string {
	if len(d.rows) > 40 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nrows:")
	for _, m := range d.rows {
		fmt.Fprintf(&b, "\n  {Seq: %d, Parent: %d, Author: %v, Audience: %v, Content: %q}", m.Seq, m.Parent, m.Author, m.Audience, m.Content)
	}
	return b.String()
}

// TestProjectModelSmallDesks checks Project against the model on thousands of small, dense
// desks: every shape of thread, blank rows, gaps and dangling parents, every kind of bound
// and window. A failure names its seed; rerun it with the seed in place of i.
func TestProjectModelSmallDesks(t *testing.T) {
	t.Parallel()
	desks := proptest.Desks(2000, 300)
	if testing.Short() {
		desks = 300
	}
	var reach modelReach
	for i := range desks {
		seed := uint64(i)
		r := rand.New(rand.NewPCG(seed, 0x5eed))
		shape := modelShape{
			rows:     r.IntN(60),
			rootP:    r.Float64(),
			blankP:   r.Float64() * 0.5,
			gapP:     r.Float64() * 0.4,
			danglesP: r.Float64() * 0.2,
			asideP:   []float64{0, 0.1, 0.3, 0.7}[r.IntN(4)],
		}
		if r.IntN(3) == 0 {
			shape.rows = r.IntN(300)
		}
		d := modelGenDesk(r, shape)
		for range 6 {
			want := modelCheckDesk(t, seed, d, modelGenQuery(r, d))
			reach.note(want)
		}
		if t.Failed() {
			return
		}
	}
	reach.check(t, desks/20)
}

// modelReach counts what a model test's views held, so that a generator that drifts and no
// longer makes asides, elisions or views with asides shown fails the test instead of
// passing it vacuously.
type modelReach struct {
	elided, runs, asidesShown int
}

func (c *modelReach) note(want modelResult) {
	if len(want.Elided) > 0 {
		c.elided++
	}
	for _, e := range want.Elided {
		if e.Count > 1 {
			c.runs++
		}
	}
	for _, m := range want.Messages {
		if len(m.Audience) > 0 {
			c.asidesShown++
			break
		}
	}
}

func (c *modelReach) check(t *testing.T, least int) {
	t.Helper()
	if c.elided < least || c.runs < least || c.asidesShown < least {
		t.Errorf("the generated views reached too little: %d with elisions, %d elisions of several rows, %d showing asides; want %d of each", c.elided, c.runs, c.asidesShown, least)
	}
}

// TestProjectModelBusyDesks checks Project against the model on desks larger than ScanLimit,
// where a thread is sparse and a window may not fill before the scan budget runs out.
func TestProjectModelBusyDesks(t *testing.T) {
	t.Parallel()
	desks := proptest.Desks(12, 6)
	if testing.Short() {
		desks = 6
	}
	for i := range desks {
		seed := uint64(i)
		r := rand.New(rand.NewPCG(seed, 0xb05e))
		shape := modelShape{
			rows:     2000 + r.IntN(4001),
			rootP:    0.2 + r.Float64()*0.7,
			blankP:   r.Float64() * 0.3,
			gapP:     r.Float64() * 0.1,
			danglesP: r.Float64() * 0.05,
			asideP:   []float64{0, 0.05, 0.3}[r.IntN(3)],
			thread:   transcript.Sequence(1 + r.IntN(3000)),
			threadP:  []float64{0, 0.0005, 0.002, 0.01, 0.1}[r.IntN(5)],
		}
		d := modelGenDesk(r, shape)
		queries := []transcript.Query{
			{Conversation: transcript.Conversation{Thread: shape.thread}},
			{Conversation: transcript.Conversation{Thread: shape.thread}, Window: 1000},
			{Conversation: transcript.Conversation{Thread: shape.thread}, Before: shape.thread + 2500, Window: 5},
			{Window: 5000},
			{Before: d.head() / 2, Window: 3000},
		}
		for i := range queries {
			queries[i].Viewer = modelViewers[r.IntN(len(modelViewers))]
		}
		for range 3 {
			queries = append(queries, modelGenQuery(r, d))
		}
		for _, q := range queries {
			modelCheckDesk(t, seed, d, q)
		}
		if t.Failed() {
			return
		}
	}
}

// busyAsides makes every third root of rows an aside to reader, and every reply to one an
// aside as the reply rule makes it (rows written by one author, so readers stay the same).
func busyAsides(rows []transcript.Message, reader transcript.Author) []transcript.Message {
	for i := range rows {
		m := &rows[i]
		switch {
		case m.Parent == 0 && m.Seq%3 == 0:
			m.Audience = []transcript.Author{reader}
		case m.Parent != 0 && len(rows[m.Parent-1].Audience) > 0:
			m.Audience = rows[m.Parent-1].Audience
		}
	}
	return rows
}

// TestProjectModelCases pins the cases the model test is meant to reach, so they are checked
// even if the generators drift.
func TestProjectModelCases(t *testing.T) {
	t.Parallel()
	root := func(seq transcript.Sequence, content string) transcript.Message {
		return transcript.Message{Seq: seq, Author: transcript.Agent("a", "A"), Content: content}
	}
	reply := func(seq, parent transcript.Sequence, content string) transcript.Message {
		m := root(seq, content)
		m.Parent = parent
		return m
	}
	triage, review := transcript.Agent("triage", "Triage"), transcript.Agent("review", "Reviewer")
	aside := func(m transcript.Message, audience ...transcript.Author) transcript.Message {
		m.Audience = audience
		return m
	}
	outsider := transcript.Query{Viewer: review}
	busy := func(n int, thread transcript.Sequence) []transcript.Message {
		var rows []transcript.Message
		for i := range n {
			seq := transcript.Sequence(i + 1)
			switch {
			case seq == thread:
				rows = append(rows, root(seq, "the thread"))
			case thread != 0 && seq > thread && seq%997 == 0:
				rows = append(rows, reply(seq, thread, "sparse"))
			case seq%3 == 0:
				rows = append(rows, reply(seq, seq-1, "chatter"))
			default:
				rows = append(rows, root(seq, "noise"))
			}
		}
		return rows
	}
	cases := []struct {
		name string
		rows []transcript.Message
		q    transcript.Query
	}{
		{"empty log", nil, transcript.Query{}},
		{"empty log thread", nil, transcript.Query{Conversation: transcript.Conversation{Thread: 3}}},
		{"before 1", []transcript.Message{root(1, "a")}, transcript.Query{Before: 1}},
		{"blank root anchors its first reply", []transcript.Message{root(1, " "), reply(2, 1, "x"), reply(3, 1, "y")}, transcript.Query{}},
		{"first reply is the oldest non-blank", []transcript.Message{root(1, "r"), reply(2, 1, "\u00a0"), reply(3, 1, "x"), reply(4, 1, "y")}, transcript.Query{}},
		{"reply to a reply never qualifies", []transcript.Message{root(1, "r"), reply(2, 1, "x"), reply(3, 2, "y")}, transcript.Query{Conversation: transcript.Conversation{Thread: 1}}},
		{"thread of a reply", []transcript.Message{root(1, "r"), reply(2, 1, "x"), reply(3, 2, "y")}, transcript.Query{Conversation: transcript.Conversation{Thread: 2}}},
		{"thread root blank", []transcript.Message{root(1, "\n\t"), reply(2, 1, "x"), reply(3, 1, "y")}, transcript.Query{Conversation: transcript.Conversation{Thread: 1}, Window: 1}},
		{"thread root at before", []transcript.Message{root(1, "r"), root(2, "s"), reply(3, 2, "x")}, transcript.Query{Conversation: transcript.Conversation{Thread: 2}, Before: 2}},
		{"thread root missing", []transcript.Message{root(1, "r"), reply(5, 3, "x"), reply(6, 3, "y")}, transcript.Query{Conversation: transcript.Conversation{Thread: 3}, Window: 1}},
		{"window 1 thread", []transcript.Message{root(1, "r"), reply(2, 1, "x"), reply(3, 1, "y")}, transcript.Query{Conversation: transcript.Conversation{Thread: 1}, Window: 1}},
		{"busy sparse thread", busy(6000, 100), transcript.Query{Conversation: transcript.Conversation{Thread: 100}}},
		{"busy sparse thread window 2", busy(6000, 3000), transcript.Query{Conversation: transcript.Conversation{Thread: 3000}, Window: 2}},
		{"busy channel", busy(6000, 0), transcript.Query{Window: 5000}},
		{"exactly ScanLimit rows", busy(transcript.ScanLimit, 0), transcript.Query{Window: 5000}},
		{"ScanLimit+1 rows", busy(transcript.ScanLimit+1, 0), transcript.Query{Window: 5000}},
		{"exactly ScanLimit below before", busy(transcript.ScanLimit+10, 5), transcript.Query{Conversation: transcript.Conversation{Thread: 5}, Before: transcript.ScanLimit + 1, Window: 5000}},
		{"unreadable root anchors its first reply", []transcript.Message{aside(root(1, "r"), triage), reply(2, 1, "x")}, outsider},
		{"unreadable first reply gives way to the next", []transcript.Message{root(1, "r"), aside(reply(2, 1, "x"), triage), reply(3, 1, "y")}, outsider},
		{"elisions split by a message", []transcript.Message{aside(root(1, "a"), triage), root(2, "b"), aside(root(3, "c"), triage), aside(root(4, "d"), triage)}, outsider},
		{"elisions split by readers", []transcript.Message{aside(root(1, "a"), triage), aside(root(2, "b"), transcript.Operator()), aside(root(3, "c"), triage)}, outsider},
		{"elisions join across a first reply's place", []transcript.Message{root(1, "r"), aside(root(2, "a"), triage), aside(root(3, "b"), triage), reply(4, 1, "x")}, outsider},
		{"blank asides are not elided", []transcript.Message{aside(root(1, " "), triage), root(2, "b")}, outsider},
		{"window floor cuts elisions", []transcript.Message{aside(root(1, "a"), triage), root(2, "b"), aside(root(3, "c"), triage), root(4, "d")}, transcript.Query{Viewer: review, Window: 2}},
		{"unreadable thread root is elided, not shown", []transcript.Message{aside(root(1, "r"), triage), aside(reply(2, 1, "x"), triage), reply(3, 1, "host-written")}, transcript.Query{Viewer: review, Conversation: transcript.Conversation{Thread: 1}}},
		{"window of one thread elides above its root", []transcript.Message{root(1, "r"), aside(reply(2, 1, "x"), triage), reply(3, 1, "y"), aside(reply(4, 1, "z"), triage)}, transcript.Query{Viewer: review, Conversation: transcript.Conversation{Thread: 1}, Window: 1}},
		{"the zero viewer reads desk rows only", []transcript.Message{aside(root(1, "a"), triage), root(2, "b")}, transcript.Query{}},
		{"an invalid viewer reads desk rows only", []transcript.Message{aside(root(1, "a"), triage), root(2, "b")}, transcript.Query{Viewer: transcript.Agent("", "")}},
		{"the operator reads every aside", []transcript.Message{aside(root(1, "a"), triage), aside(reply(2, 1, "b"), transcript.Operator())}, transcript.Query{Viewer: transcript.Operator()}},
		{"busy desk of asides", busyAsides(busy(6000, 100), triage), transcript.Query{Viewer: review, Window: 100}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := &modelDesk{rows: c.rows}
			modelCheckDesk(t, uint64(i), d, c.q)
		})
	}
}
