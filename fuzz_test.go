package transcript_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
)

// FuzzProject feeds Project whatever pages a host might return and checks that it never
// panics and never lies: it either fails with a *ContractError naming the first page that
// broke SPEC §4 (checked here by an independent reading of the table), or returns a
// projection every row of which the host returned, in scope, non-blank, chronological and
// unique, after reads that follow SPEC §5's paging rules.
//
// The input's first bytes choose the query; bit 1 of the first byte chooses the host:
//
//   - a scripted host (bit clear) decodes one page from the input at every read, whatever
//     was asked: rows with arbitrary sequences, parents, authors (invalid ones too) and
//     contents, and an arbitrary Next; or a bulk page of well-formed rows, to reach ScanLimit;
//   - a consistent host (bit set) decodes a whole log and serves it through memlog in short
//     pages, and the projection must match the model of model_test.go exactly.
func FuzzProject(f *testing.F) {
	for _, in := range fuzzSeeds() {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		b := &fuzzBytes{b: in}
		q, consistent, seed := fuzzQuery(b)
		if consistent {
			d := &modelDesk{rows: fuzzLog(b, q.Conversation.Thread)}
			modelCheckDesk(t, uint64(seed), d, q)
			return
		}
		host := &fuzzHost{in: b, thread: q.Conversation.Thread, top: transcript.Sequence(seed)*64 + 63}
		rec := &modelRecorder{log: host}
		proj, err := transcript.Project(context.Background(), rec, q)
		for _, bad := range fuzzCheck(q, rec.calls, proj, err) {
			t.Error(bad)
		}
		if t.Failed() {
			t.Logf("query %+v\n%s", q, fuzzCallsString(rec.calls))
		}
	})
}

// fuzzBytes hands out the fuzz input a field at a time; once it runs out, every field is 0.
type fuzzBytes struct{ b []byte }

func (f *fuzzBytes) empty() bool { return len(f.b) == 0 }

func (f *fuzzBytes) byte() byte {
	if len(f.b) == 0 {
		return 0
	}
	c := f.b[0]
	f.b = f.b[1:]
	return c
}

func (f *fuzzBytes) u16() uint16 { return uint16(f.byte())<<8 | uint16(f.byte()) }

// fuzzQuery decodes the header: flags (bit 0 thread view, bit 1 consistent host), Before,
// Window, the thread, and a seed (the consistent host's page sizes, the scripted host's top
// row when Before is 0).
func fuzzQuery(b *fuzzBytes) (q transcript.Query, consistent bool, seed byte) {
	flags := b.byte()
	q.Before = fuzzSeq(b, 0)
	q.Window = int(int8(b.byte()))
	if flags&1 != 0 {
		q.Conversation.Thread = fuzzSeq(b, q.Before)
	}
	return q, flags&2 != 0, b.byte()
}

// fuzzSeq decodes a sequence: 0, a 16-bit number, a small number, a number just below
// near, or one near the top of the range (where Thread+1 overflows).
func fuzzSeq(b *fuzzBytes, near transcript.Sequence) transcript.Sequence {
	sel := b.byte()
	small := transcript.Sequence(sel / 5)
	switch sel % 5 {
	case 1:
		return transcript.Sequence(b.u16())
	case 2:
		return small
	case 3:
		return near - small
	case 4:
		return math.MaxUint64 - small
	}
	return 0
}

var fuzzContents = []string{
	"hi", "", " ", "\n\t", "\u00a0\u2003", "\u0085", "\u3000", "x", " x ", "\u200b", "\ufeff",
	"\xff", "\xc2", " \xa0 ", "\r\n\v\f", "ok\n",
}

// fuzzLog decodes a whole log for the consistent host: a bulk prefix of well-formed rows
// (enough, at most, to pass ScanLimit), then rows decoded from the input four bytes each.
// Parents may point at missing rows; the log is valid for memlog.From.
func fuzzLog(b *fuzzBytes, thread transcript.Sequence) []transcript.Message {
	var rows []transcript.Message
	bulk := int(b.byte()) * 16
	for i := range bulk {
		rows = append(rows, fuzzBulkRow(transcript.Sequence(i+1), thread, byte(bulk)))
	}
	seq := transcript.Sequence(len(rows))
	for !b.empty() && len(rows) < 8000 {
		seq += 1 + transcript.Sequence(b.byte()%4)
		m := transcript.Message{Seq: seq}
		switch p := b.byte(); {
		case p < 100:
		case p < 200:
			m.Parent = seq - min(seq, transcript.Sequence(p-99))
		case p < 240:
			if thread < seq {
				m.Parent = thread
			}
		default:
			if v := transcript.Sequence(b.u16()); v < seq {
				m.Parent = v
			}
		}
		m.Author = modelAuthors[int(b.byte())%len(modelAuthors)]
		m.Content = fuzzContents[int(b.byte())%len(fuzzContents)]
		rows = append(rows, m)
	}
	return rows
}

// fuzzBulkRow is the well-formed row seq of a bulk page or prefix: mostly roots and their
// replies or a chain of replies to replies, a sparse reply to thread, some blanks, shaped by
// pattern.
func fuzzBulkRow(seq, thread transcript.Sequence, pattern byte) transcript.Message {
	m := transcript.Message{Seq: seq, Author: transcript.Agent("bulk", "Bulk"), Content: "bulk"}
	switch {
	case thread != 0 && seq > thread && seq%transcript.Sequence(pattern%64+5) == 0:
		m.Parent = thread
	case pattern&4 != 0 && seq%512 != 0:
		m.Parent = seq - 1 // a long chain of replies to replies: a sparse channel
	case pattern&1 == 0 && seq%4 != 0:
		m.Parent = seq &^ 3
	}
	if pattern&2 != 0 && seq%7 == 0 {
		m.Content = " "
	}
	return m
}

// fuzzHost is the scripted host: each read decodes its page from the input, whatever the
// read asked for, so it can break every rule of the page contract.
type fuzzHost struct {
	in     *fuzzBytes
	thread transcript.Sequence
	top    transcript.Sequence // the newest row when a read asks from the newest
}

func (h *fuzzHost) ReadBefore(_ context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	top := h.top
	if before != 0 {
		top = before - 1
	}
	in := h.in
	hdr := in.byte()
	var pg transcript.Page
	if hdr&0x80 != 0 {
		// A bulk page of well-formed rows below the bound: nearly limit of them, or one too
		// many.
		n := max(0, limit-int(hdr&0x1f))
		if hdr&0x40 != 0 {
			n = limit + 1
		}
		pattern := in.byte()
		for i := range n {
			seq := top - transcript.Sequence(i)
			if seq == 0 || seq > top {
				break
			}
			pg.Messages = append(pg.Messages, fuzzBulkRow(seq, h.thread, pattern))
		}
		if k := len(pg.Messages); k > 0 && pg.Messages[k-1].Seq > 1 && pattern&8 == 0 {
			pg.Next = pg.Messages[k-1].Seq
		}
		return pg, nil
	}
	prev := top + 1
	for range int(hdr & 0x3f) {
		var m transcript.Message
		if d := in.byte(); d == 255 {
			m.Seq = transcript.Sequence(in.u16())
		} else {
			m.Seq = prev - transcript.Sequence(d)
		}
		prev = m.Seq
		switch p := in.byte(); {
		case p == 0:
		case p < 200:
			m.Parent = m.Seq - transcript.Sequence(p)
		case p < 255:
			m.Parent = h.thread
		default:
			m.Parent = transcript.Sequence(in.u16())
		}
		a := in.byte()
		m.Author = transcript.Author{Kind: transcript.AuthorKind(a % 6), Label: "L"}
		if a&0x10 == 0 {
			m.Author.ID = "x"
		}
		if a&0x20 != 0 {
			m.Author = modelAuthors[int(a)%len(modelAuthors)]
		}
		m.Content = fuzzContents[int(in.byte())%len(fuzzContents)]
		pg.Messages = append(pg.Messages, m)
	}
	var oldest transcript.Sequence
	if k := len(pg.Messages); k > 0 {
		oldest = pg.Messages[k-1].Seq
	}
	switch n := in.byte(); n % 5 {
	case 1:
		pg.Next = oldest
	case 2:
		pg.Next = oldest - transcript.Sequence(n/5)
	case 3:
		pg.Next = transcript.Sequence(in.u16())
	case 4:
		pg.Next = before + transcript.Sequence(n/5)
	}
	return pg, nil
}

// fuzzRules are the page contract's sentinels, in the table's order.
var fuzzRules = []error{
	transcript.ErrPageTooLarge, transcript.ErrEmptyPageCursor, transcript.ErrInvalidRow,
	transcript.ErrDuplicate, transcript.ErrOutOfRange, transcript.ErrNotDescending,
	transcript.ErrCursorStuck, transcript.ErrCursorAfterOldest,
}

// fuzzPageRule applies SPEC §4's table to one page, written from the table rather than from
// the Pager: the first broken rule's sentinel and the sequence (or cursor) that broke it, or
// a nil rule. seen holds the rows the walk has already seen.
func fuzzPageRule(pg transcript.Page, before transcript.Sequence, limit int, seen map[transcript.Sequence]bool) (transcript.Sequence, error) {
	rows := pg.Messages
	if len(rows) > limit {
		return rows[limit].Seq, transcript.ErrPageTooLarge
	}
	if len(rows) == 0 {
		if pg.Next != 0 {
			return pg.Next, transcript.ErrEmptyPageCursor
		}
		return 0, nil
	}
	inPage := make(map[transcript.Sequence]bool)
	for i, m := range rows {
		a := m.Author
		validAuthor := a.Kind >= transcript.KindOperator && a.Kind <= transcript.KindSystem &&
			(a.Kind == transcript.KindOperator) == (a.ID == "")
		switch {
		case m.Seq == 0 || !validAuthor || m.Parent >= m.Seq:
			return m.Seq, transcript.ErrInvalidRow
		case seen[m.Seq] || inPage[m.Seq]:
			return m.Seq, transcript.ErrDuplicate
		case before != 0 && m.Seq >= before:
			return m.Seq, transcript.ErrOutOfRange
		case i > 0 && m.Seq >= rows[i-1].Seq:
			return m.Seq, transcript.ErrNotDescending
		}
		inPage[m.Seq] = true
	}
	switch {
	case pg.Next == 0:
	case before != 0 && pg.Next >= before:
		return pg.Next, transcript.ErrCursorStuck
	case pg.Next > rows[len(rows)-1].Seq:
		return pg.Next, transcript.ErrCursorAfterOldest
	}
	return 0, nil
}

// fuzzCheck reports every way Project's answer to q over a host that answered calls breaks
// the contract: see FuzzProject.
func fuzzCheck(q transcript.Query, calls []modelRead, proj transcript.Projection, err error) []string {
	var bad []string
	badf := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }

	// Replay the reads through the independent page check. The thread root's extra read
	// is checked like the others but adds nothing to the rows seen.
	scanned := proj.Scanned
	if err != nil {
		scanned = -1 // the last read failed: whether it was the extra one changes nothing
	}
	extra := modelExtraRead(calls, q, scanned)
	seen := make(map[transcript.Sequence]bool)
	var returned, chain []transcript.Message
	firstBroken := -1
	var wantSeq transcript.Sequence
	var wantRule error
	for k, c := range calls {
		returned = append(returned, c.page.Messages...)
		seq, rule := fuzzPageRule(c.page, c.before, c.limit, seen)
		if rule != nil {
			firstBroken, wantSeq, wantRule = k, seq, rule
			break
		}
		if k != extra {
			chain = append(chain, c.page.Messages...)
			for _, m := range c.page.Messages {
				seen[m.Seq] = true
			}
		}
	}

	if err != nil {
		if proj.Messages != nil || proj.Head != 0 || proj.Partial || proj.Scanned != 0 || proj.Reads != 0 {
			badf("error %v with a non-zero projection %+v", err, proj)
		}
		var ce *transcript.ContractError
		if !errors.As(err, &ce) {
			return append(bad, fmt.Sprintf("error %v (%T) is not a *ContractError", err, err))
		}
		if !errors.Is(err, transcript.ErrContract) {
			badf("%v does not match ErrContract", err)
		}
		var matched []error
		for _, rule := range fuzzRules {
			if errors.Is(err, rule) {
				matched = append(matched, rule)
			}
		}
		if len(matched) != 1 {
			badf("%v matches %d rule sentinels %v, want exactly one", err, len(matched), matched)
		}
		if ce.Read < 1 || ce.Read != len(calls) {
			badf("ContractError.Read = %d after %d reads, want the last read", ce.Read, len(calls))
		}
		if n := len(calls); n > 0 && (ce.Before != calls[n-1].before || ce.Limit != calls[n-1].limit) {
			badf("ContractError before %d, limit %d; the last read asked for before %d, limit %d", ce.Before, ce.Limit, calls[n-1].before, calls[n-1].limit)
		}
		switch {
		case firstBroken < 0:
			badf("Project failed with %v, but every page keeps the contract", err)
		case firstBroken != len(calls)-1:
			badf("Project failed at read %d with %v, but read %d already broke the contract (%v at seq %d)", len(calls), err, firstBroken+1, wantRule, wantSeq)
		case ce.Err != wantRule || ce.Seq != wantSeq:
			badf("Project failed with %v at seq %d; the table says %v at seq %d", ce.Err, ce.Seq, wantRule, wantSeq)
		}
		return bad
	}

	if firstBroken >= 0 {
		badf("Project accepted read %d, which breaks the contract (%v at seq %d)", firstBroken+1, wantRule, wantSeq)
	}
	bad = append(bad, modelCheckReads(calls, q, proj)...)
	window := q.Window
	if window <= 0 {
		window = transcript.SessionWindow
	}
	if len(proj.Messages) > window {
		badf("%d messages, window %d", len(proj.Messages), window)
	}
	if proj.Reads < 1 {
		badf("Reads = %d", proj.Reads)
	}
	if proj.Partial && proj.Scanned != transcript.ScanLimit {
		badf("Partial with Scanned = %d", proj.Scanned)
	}
	var head transcript.Sequence
	if len(chain) > 0 {
		head = chain[0].Seq
	}
	if proj.Head != head {
		badf("Head = %d, want the first row the walk read, %d", proj.Head, head)
	}
	t := q.Conversation.Thread
	for i, m := range proj.Messages {
		if i > 0 && m.Seq <= proj.Messages[i-1].Seq {
			badf("message %d: seq %d not above %d", i, m.Seq, proj.Messages[i-1].Seq)
		}
		if q.Before != 0 && m.Seq >= q.Before {
			badf("message %d: seq %d not below Before %d", i, m.Seq, q.Before)
		}
		if !slices.ContainsFunc(returned, func(r transcript.Message) bool { return gocmp.Equal(r, m) }) {
			badf("message %d: %+v was never returned by the host", i, m)
		}
		if strings.TrimSpace(m.Content) == "" {
			badf("message %d: seq %d is blank (%q)", i, m.Seq, m.Content)
		}
		switch {
		case t != 0 && m.Seq != t && m.Parent != t:
			badf("message %d: seq %d (parent %d) is outside thread %d", i, m.Seq, m.Parent, t)
		case t != 0 && m.Seq == t && i != 0:
			badf("message %d: the thread root %d is not first", i, m.Seq)
		case t == 0 && m.Parent != 0 && !slices.ContainsFunc(chain, func(r transcript.Message) bool { return r.Seq == m.Parent && r.Parent == 0 }):
			badf("message %d: seq %d replies to %d, which is not a root the walk read", i, m.Seq, m.Parent)
		}
	}
	// The first row the host returned as the thread root decides whether the root shows.
	if t != 0 && (q.Before == 0 || t < q.Before) {
		i := slices.IndexFunc(returned, func(m transcript.Message) bool { return m.Seq == t })
		if i >= 0 && strings.TrimSpace(returned[i].Content) != "" && (len(proj.Messages) == 0 || !gocmp.Equal(proj.Messages[0], returned[i])) {
			badf("the host returned the thread root %+v, but it is not the first message", returned[i])
		}
	}
	return bad
}

// fuzzCallsString prints the reads of a failing input.
func fuzzCallsString(calls []modelRead) string {
	var b strings.Builder
	for k, c := range calls {
		fmt.Fprintf(&b, "read %d: before %d, limit %d: %d rows, next %d\n", k+1, c.before, c.limit, len(c.page.Messages), c.page.Next)
		for i, m := range c.page.Messages {
			if i == 8 && len(c.page.Messages) > 10 {
				fmt.Fprintf(&b, "  ... %d more\n", len(c.page.Messages)-8)
				break
			}
			fmt.Fprintf(&b, "  {Seq: %d, Parent: %d, Author: %v, Content: %q}\n", m.Seq, m.Parent, m.Author, m.Content)
		}
	}
	return b.String()
}

// fuzzSeeds are inputs that reach the interesting paths; see fuzzQuery, fuzzLog and
// fuzzHost.ReadBefore for the layout.
func fuzzSeeds() [][]byte {
	const (
		channel    = 0
		thread     = 1
		consistent = 2
	)
	seq16 := func(v uint16) []byte { return []byte{1, byte(v >> 8), byte(v)} } // a 16-bit sequence
	small := func(v byte) []byte { return []byte{2 + 5*v} }                    // v < 51
	newest := []byte{0}
	cat := func(parts ...[]byte) []byte { return slices.Concat(parts...) }
	row := func(delta, parent, author, content byte) []byte { return []byte{delta, parent, author, content} }
	page := func(next byte, rows ...[]byte) []byte {
		return cat([]byte{byte(len(rows))}, cat(rows...), []byte{next})
	}
	bulk := func(short, pattern byte) []byte { return []byte{0x80 | short, pattern} }
	tooLarge := []byte{0xc0, 0}
	const (
		nextOldest = 1
		nextZero   = 0
		agent      = 0x23 // modelAuthors[3], a valid agent
		badKind    = 0x05 // kind 5
		opWithID   = 0x01 // operator with an id
		text       = 0
		blankText  = 1
	)
	return [][]byte{
		// Scripted host.
		cat([]byte{channel}, newest, []byte{5}, []byte{7}, page(nextOldest, row(1, 0, agent, text), row(1, 1, agent, text)), page(nextZero, row(1, 0, agent, text))),
		cat([]byte{channel}, seq16(500), []byte{3}, []byte{0}, page(nextOldest, row(1, 0, agent, text), row(1, 0, agent, blankText), row(1, 0, agent, text), row(2, 0, agent, text)), page(nextOldest, row(0, 0, agent, text))), // duplicate across pages
		cat([]byte{channel}, newest, []byte{0}, []byte{9}, page(nextOldest, row(1, 0, agent, text), row(0, 0, agent, text))),                                                                                                    // duplicate inside a page
		cat([]byte{channel}, newest, []byte{0}, []byte{9}, page(nextOldest, row(1, 0, badKind, text))),
		cat([]byte{channel}, newest, []byte{0}, []byte{9}, page(nextOldest, row(1, 0, opWithID, text))),
		cat([]byte{channel}, newest, []byte{0}, []byte{9}, []byte{0, 3, 0, 7}),                      // empty page with a cursor
		cat([]byte{channel}, seq16(100), []byte{0}, []byte{9}, page(4+5*3, row(1, 0, agent, text))), // cursor stuck
		cat([]byte{channel}, newest, []byte{0}, []byte{9}, page(3, row(5, 0, agent, text)), []byte{0xff, 0xff}),
		cat([]byte{channel}, newest, []byte{0}, []byte{200}, tooLarge),
		cat([]byte{channel}, newest, []byte{100}, []byte{200}, bulk(0, 0), bulk(0, 0), bulk(0, 1), bulk(0, 2), bulk(0, 0)),
		cat([]byte{channel}, newest, []byte{127}, []byte{200}, bulk(0, 4), bulk(0, 4), bulk(0, 4), bulk(1, 4), bulk(0, 4), bulk(0, 4), bulk(0, 4)), // reaches ScanLimit
		cat([]byte{thread}, newest, []byte{127}, small(10), []byte{200}, bulk(0, 55), bulk(0, 55), bulk(0, 55), bulk(0, 55), bulk(0, 55), bulk(0, 55), bulk(0, 55), bulk(0, 55)),
		cat([]byte{thread}, seq16(13), []byte{1}, small(10), []byte{0}, page(nextOldest, row(1, 210, agent, text), row(1, 210, agent, text)), page(nextZero, row(0, 0, agent, text))), // the extra read returns a row already seen
		cat([]byte{thread}, newest, []byte{3}, small(10), []byte{200}, bulk(0, 2), bulk(0, 0), bulk(0, 0), bulk(0, 0), bulk(0, 0)),                                                    // the root's extra read
		cat([]byte{thread}, newest, []byte{1}, small(10), []byte{200}, bulk(0, 8)),
		cat([]byte{thread}, newest, []byte{2}, []byte{4}, []byte{3}, page(nextOldest, row(1, 0, agent, text))), // thread near MaxUint64
		cat([]byte{thread}, seq16(60), []byte{4}, small(20), []byte{0}, page(nextOldest, row(1, 210, agent, text), row(1, 211, agent, text), row(1, 210, agent, blankText)), page(nextOldest, row(1, 0, agent, text))),
		// Each rule at its boundary: the cursor one above the oldest row, the cursor at the
		// bound, a row that is its own parent; and a cursor below the oldest row, which is fine.
		cat([]byte{channel}, newest, []byte{0}, []byte{0}, page(3, row(1, 0, agent, text)), []byte{0, 64}),
		cat([]byte{channel}, seq16(100), []byte{0}, []byte{0}, page(4, row(1, 0, agent, text))),
		cat([]byte{channel}, seq16(100), []byte{0}, []byte{0}, []byte{1, 1, 255, 0, 99, agent, text, nextOldest}),
		cat([]byte{channel}, seq16(100), []byte{2}, []byte{0}, page(2+5*3, row(1, 0, agent, text)), page(nextZero, row(4, 0, agent, text))),
		// Consistent host.
		cat([]byte{channel | consistent}, newest, []byte{5}, []byte{3}, []byte{0}, []byte{0, 0, 3, 0, 0, 150, 3, 1, 0, 101, 3, 0, 1, 0, 3, 0}),
		cat([]byte{thread | consistent}, newest, []byte{3}, small(40), []byte{7}, []byte{140}, []byte{0, 210, 3, 0, 0, 0, 3, 0}),
		cat([]byte{channel | consistent}, newest, []byte{200}, []byte{9}, []byte{200}),
		cat([]byte{thread | consistent}, seq16(3000), []byte{2}, small(3), []byte{1}, []byte{250}, []byte{0, 210, 3, 2}),
	}
}
