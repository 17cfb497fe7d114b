package sharing_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/sharing"
)

// FuzzStateJSON decodes arbitrary bytes into a State: it never panics; a state it accepts
// keeps the invariants Prepare relies on and survives a round trip; on error the target is
// left as it was.
func FuzzStateJSON(f *testing.F) {
	for _, seed := range []string{
		`{"conversation":{"desk":"eng"},"watermark":10,"present":[11,12,40]}`,
		`{"conversation":{"desk":"eng","thread":4},"watermark":0,"present":[]}`,
		`{"conversation":{"desk":"eng"},"watermark":10}`,
		`{"conversation":{"desk":"eng"},"watermark":10,"present":null}`,
		`{"conversation":{"desk":"eng"},"watermark":10,"present":[12,11]}`,
		`{"conversation":{"desk":"eng"},"watermark":10,"present":[11,11]}`,
		`{"conversation":{"desk":"eng"},"watermark":10,"present":[10]}`,
		`{"conversation":{"desk":"eng"},"watermark":10,"present":[3]}`,
		`{"watermark":18446744073709551615,"present":[1]}`,
		`{"watermark":-1}`,
		`{"Watermark":5,"PRESENT":[6],"present":[7]}`,
		`{"present":[1],"watermark":0}`,
		`null`, `{}`, `[]`, `"x"`, `{"present":[1,2`, ``,
		`{"conversation":{"desk":"eng"},"watermark":0,"present":[` + fzSeqList(1, sharing.PresentSetLimit) + `]}`,
		`{"conversation":{"desk":"eng"},"watermark":0,"present":[` + fzSeqList(1, sharing.PresentSetLimit+1) + `]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		original := sharing.State{Conversation: transcript.Conversation{Desk: "before", Thread: 7}, Watermark: 3, Present: []transcript.Sequence{5, 9}}
		s := original
		s.Present = slices.Clone(original.Present)
		array := s.Present
		if err := json.Unmarshal(data, &s); err != nil {
			if !gocmp.Equal(s, original) || !slices.Equal(array, original.Present) {
				t.Fatalf("Unmarshal(%q) failed with %v but changed the state to %+v", data, err, s)
			}
			return
		}
		fzCheckState(t, s)
		out, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("Marshal(%+v) after Unmarshal(%q): %v", s, data, err)
		}
		var again sharing.State
		if err := json.Unmarshal(out, &again); err != nil {
			t.Fatalf("Unmarshal(Marshal(%+v)) = %v; JSON %s", s, err, out)
		}
		if diff := gocmp.Diff(s, again); diff != "" {
			t.Fatalf("round trip of %q changed the state (-decoded +again):\n%s", data, diff)
		}
	})
}

// fzSeqList returns "from,from+1,...", n numbers.
func fzSeqList(from, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(from + i))
	}
	return b.String()
}

// fzCheckState fails unless s is a state Prepare accepts.
func fzCheckState(t *testing.T, s sharing.State) {
	t.Helper()
	if len(s.Present) > sharing.PresentSetLimit {
		t.Fatalf("state %+v holds %d present entries, limit %d", s, len(s.Present), sharing.PresentSetLimit)
	}
	for i, seq := range s.Present {
		if seq <= s.Watermark || (i > 0 && seq <= s.Present[i-1]) {
			t.Fatalf("state %+v: present entries not strictly ascending above the watermark", s)
		}
	}
}

// errFzHost is the host failure a fzLog can return.
var errFzHost = errors.New("fuzz host failure")

// fzLog is a host whose pages come from fuzz input, one page per read, whatever the read
// asked for. Rows are placed relative to the read's bound so that valid walks are common,
// and anything else can still be written.
//
// A page is a header byte h: h&31 rows (31: as many as the limit asks, one pattern byte p
// for all, each row one below the previous), then a cursor chosen by h>>5 — 0: none; 1 to
// 3: the oldest row; 4: a byte below the oldest row; 5: a raw varint; 6: one above the
// oldest row; 7: the read's own bound (with 31 rows: a host error instead).
//
// A row is a byte d, its distance below the previous row or the read's bound (0xff: a raw
// varint Seq follows; 0xfe: a correction one below it, see correction), and a byte p: p&3 picks the parent — 0: none; 1: a byte e further
// below the row than the row just below it; 2: e below the watermark; 3: the thread —,
// p>>2&7 the content (4 to 7 are blank), p>>5 the author (p == 0xff: an invalid one). In
// a full page, e is the row's index. When the input ends, the log ends.
//
// A read from the newest row after the first read (Prepare's look at the log's newest row
// when its first read did not show row B-1) takes no page: it returns the newest row
// returned so far, so the log's newest row is the newest row the walk saw.
type fzLog struct {
	data      []byte
	top       transcript.Sequence // the first row's Seq when a read asks from the newest row
	watermark transcript.Sequence
	thread    transcript.Sequence
	reads     int
	rows      []transcript.Message // every row returned, newest first
	next      transcript.Sequence  // the cursor of the last page returned
	badLimit  string               // the first read whose limit broke the walk's rules
}

var fzContents = [8]string{"hello", " x ", "\u200b", "\xff", "", " \t\n", "\u00a0\u3000", "\u2028"}

var fzAuthors = [7]transcript.Author{
	transcript.Operator(), transcript.Person("ana", "Ana"), transcript.Agent("triage", "Triage"),
	transcript.System("workflow", "CI"), transcript.Agent("review", ""), transcript.Person("bo", "Bo"),
	transcript.Operator(),
}

func (l *fzLog) byte() byte {
	if len(l.data) == 0 {
		return 0
	}
	b := l.data[0]
	l.data = l.data[1:]
	return b
}

func (l *fzLog) varint() transcript.Sequence {
	v, n := binary.Uvarint(l.data)
	if n <= 0 {
		l.data = nil
		return 0
	}
	l.data = l.data[n:]
	return transcript.Sequence(v)
}

func (l *fzLog) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	l.reads++
	if left := transcript.ScanLimit - len(l.rows); l.badLimit == "" && (limit < 1 || limit > min(transcript.PageSize, left)) {
		l.badLimit = fmt.Sprintf("read %d: limit %d outside 1..%d (PageSize, %d rows of scan budget left)",
			l.reads, limit, transcript.PageSize, left)
	}
	if err := ctx.Err(); err != nil {
		return transcript.Page{}, err
	}
	if before == 0 && l.reads > 1 {
		return l.newest(), nil
	}
	if len(l.data) == 0 {
		return transcript.Page{}, nil
	}
	h := l.byte()
	count, cursor := int(h&31), h>>5
	fill := count == 31
	if fill && cursor == 7 {
		return transcript.Page{}, errFzHost
	}
	var pattern byte
	if fill {
		count, pattern = limit, l.byte()
	}
	prev := l.top + 1
	if before != 0 {
		prev = before
	}
	page := transcript.Page{Messages: make([]transcript.Message, 0, count)}
	for k := range count {
		d, p := byte(1), pattern
		if !fill {
			d, p = l.byte(), l.byte()
		}
		m := transcript.Message{Seq: prev - transcript.Sequence(d)}
		switch {
		case d == 0xff:
			m.Seq = l.varint()
		case d == 0xfe && !fill:
			m.Seq = prev - 1
			l.correction(&m, p)
			page.Messages = append(page.Messages, m)
			prev = m.Seq
			continue
		}
		e := transcript.Sequence(k)
		if !fill && (p&3 == 1 || p&3 == 2) {
			e = transcript.Sequence(l.byte())
		}
		switch p & 3 {
		case 1:
			m.Parent = m.Seq - 1 - e
		case 2:
			m.Parent = l.watermark - e
		case 3:
			m.Parent = l.thread
		}
		m.Content = fzContents[p>>2&7]
		m.Author = fzAuthors[int(p>>5)%len(fzAuthors)]
		if p == 0xff {
			m.Author = transcript.Author{Kind: transcript.KindAgent}
		}
		page.Messages = append(page.Messages, m)
		prev = m.Seq
	}
	if n := len(page.Messages); n > 0 {
		oldest := page.Messages[n-1].Seq
		switch cursor {
		case 1, 2, 3:
			page.Next = oldest
		case 4:
			page.Next = oldest - transcript.Sequence(l.byte())
		case 5:
			page.Next = l.varint()
		case 6:
			page.Next = oldest + 1
		case 7:
			page.Next = before
		}
	} else if cursor == 5 {
		page.Next = l.varint()
	}
	l.rows = append(l.rows, page.Messages...)
	l.next = page.Next
	return page, nil
}

// correction makes m, one row below the previous, a correction by the author p>>5 picks of
// the row a byte c further below it than the row just below it (never the thread's root,
// which a correction pins without a read, so the log must hold it): an edit with content
// p>>2&7, or a redaction when that content is blank.
func (l *fzLog) correction(m *transcript.Message, p byte) {
	c := transcript.Sequence(l.byte())
	m.Author = fzAuthors[int(p>>5)%len(fzAuthors)]
	if m.Seq <= 1+c {
		return // nothing below to correct: a root
	}
	m.Corrects = m.Seq - 1 - c
	if m.Corrects == l.thread && m.Corrects > 1 {
		m.Corrects--
	}
	if m.Content = fzContents[p>>2&7]; p>>2&7 >= 4 {
		m.Content, m.Redacted = "", true
	}
}

// newest returns a page of the newest row returned so far, if any.
func (l *fzLog) newest() transcript.Page {
	if len(l.rows) == 0 {
		return transcript.Page{}
	}
	page := transcript.Page{Messages: []transcript.Message{l.rows[0]}}
	if len(l.rows) > 1 || l.next != 0 {
		page.Next = l.rows[0].Seq
	}
	return page
}

// fzPage encodes one page of a fzLog with the given cursor mode.
func fzPage(cursor byte, rows ...[]byte) []byte {
	return append([]byte{cursor<<5 | byte(len(rows))}, slices.Concat(rows...)...)
}

// fzFill encodes a page as full as the read's limit, every row one below the previous.
func fzFill(cursor, pattern byte) []byte { return []byte{cursor<<5 | 31, pattern} }

// fzFills encodes full pages enough for a walk of n rows, then the end of the log.
func fzFills(n int, patterns ...byte) []byte {
	var out []byte
	for size, k := 8, 0; n > 0; size, k = min(2*size, transcript.PageSize), k+1 {
		cursor := byte(1)
		if n <= size {
			cursor = 0
		}
		out = append(out, fzFill(cursor, patterns[k%len(patterns)])...)
		n -= size
	}
	return out
}

// Rows for fzPage, each one below the previous: a root, a blank root, a reply to the row e
// below the next one, a reply to the row e below the watermark, a reply to the thread, a
// blank reply to the thread, a row whose author is invalid.
var (
	fzRoot        = []byte{1, 0}
	fzBlankRoot   = []byte{1, 4 << 2}
	fzReply       = func(e byte) []byte { return []byte{1, 1, e} }
	fzReplyBelowM = func(e byte) []byte { return []byte{1, 2, e} }
	fzInThread    = []byte{1, 3}
	fzBlankThread = []byte{1, 4<<2 | 3}
	fzInvalid     = []byte{1, 0xff}
	// fzEdit corrects the row e below the next one, fzRedaction redacts it.
	fzEdit      = func(e byte) []byte { return []byte{0xfe, 1 << 5, e} }
	fzRedaction = func(e byte) []byte { return []byte{0xfe, 1<<5 | 4<<2, e} }
)

// FuzzPrepare feeds Prepare arbitrary host pages and states. It never panics; it fails with
// a contract error, a read error, ctx's error or one of the package's sentinels, exactly when
// it should; otherwise its plan is well formed and equals modelPrepare over the rows the host
// returned (the walk stops only once the rows it did not read cannot change the plan).
func FuzzPrepare(f *testing.F) {
	cat := func(parts ...[]byte) []byte { return slices.Concat(parts...) }
	type seed struct {
		pages             []byte
		watermark, before uint64
		thread            uint64
		present           []byte
		top               uint16
		flags             uint8
	}
	for _, s := range []seed{
		// Channel from the newest row: 20 replies to 19, 18 to 16, 15 to 14; 17 a blank root.
		{pages: cat(fzPage(1, fzReply(0), fzRoot, fzReply(1), fzBlankRoot, fzRoot), fzPage(0, fzReply(0), fzRoot)), top: 20},
		// Channel below 100 over watermark 95: 99 replies to 93, whose first reply is 94.
		{pages: cat(fzPage(1, fzReply(5), fzRoot, fzReply(0), fzRoot), fzPage(1, fzRoot, fzReplyBelowM(2)), fzPage(0, fzRoot)), watermark: 95, before: 100, present: []byte{2}},
		// The same without 94: 99 is the first reply to 93.
		{pages: cat(fzPage(1, fzReply(5), fzRoot, fzReply(0), fzRoot), fzPage(1, fzRoot, fzRoot), fzPage(0, fzRoot)), watermark: 95, before: 100},
		// Thread 94 below 100 over watermark 93.
		{pages: cat(fzPage(1, fzInThread, fzInThread, fzBlankThread, fzRoot), fzPage(1, fzInThread, fzRoot, fzRoot), fzPage(0, fzRoot)), watermark: 93, before: 100, thread: 94},
		// ScanLimit rows, none at or below the watermark: GapTooLarge.
		{pages: fzFills(transcript.ScanLimit, 0, 1, 4<<2, 3), watermark: 1, before: 5000},
		// Busy channel crossing just inside ScanLimit; replies to old roots.
		{pages: fzFills(transcript.ScanLimit+100, 0, 2, 1, 4<<2), watermark: 4000 - transcript.ScanLimit + 2, before: 4001},
		// Busy thread from the newest row.
		{pages: fzFills(3000, 3, 0, 3, 1), watermark: 3000, thread: 2990, top: 100},
		// From the newest row, 48, below the watermark 50: WatermarkUnavailable.
		{pages: fzPage(0, []byte{3, 0}, fzRoot), watermark: 50},
		// Below 100 the newest row is 97, so row 99 is newer than the log: WatermarkUnavailable.
		{pages: fzPage(1, []byte{3, 0}, fzRoot), watermark: 90, before: 100},
		// 95, at the watermark, is the first reply to 93; 100, the bound, is present.
		{pages: cat(fzPage(1, fzRoot, fzRoot, fzRoot, fzRoot), fzPage(0, fzReply(1), fzRoot, fzRoot)), watermark: 95, before: 100, present: []byte{1, 1, 0, 9}},
		// The log ends above the watermark: WatermarkUnavailable.
		{pages: cat(fzPage(1, fzRoot, fzRoot), fzPage(0, fzRoot)), watermark: 10, before: 100},
		// Present sets: too large, unsorted.
		{pages: fzPage(0, fzRoot, fzRoot), present: make([]byte, sharing.PresentSetLimit+1), top: 9},
		{pages: fzPage(0, fzRoot, fzRoot), watermark: 4, present: []byte{9, 5, 5}, top: 9, flags: 1},
		// Regression; B == M; conversation changed; ctx canceled; host error.
		{pages: fzPage(0, fzRoot), watermark: 50, before: 40},
		{pages: fzPage(0, fzRoot), watermark: 50, before: 50, present: []byte{3}},
		{pages: fzPage(0, fzRoot), top: 9, flags: 2},
		{pages: fzPage(0, fzRoot), top: 9, flags: 4},
		{pages: []byte{7<<5 | 31}},
		// One of each contract violation, in the contract's order.
		{pages: fzPage(1, fzRoot, fzRoot, fzRoot, fzRoot, fzRoot, fzRoot, fzRoot, fzRoot, fzRoot), top: 90},
		{pages: []byte{5 << 5, 7}},
		{pages: fzPage(0, fzRoot, fzInvalid), top: 9},
		{pages: cat(fzPage(1, fzRoot, fzRoot), fzPage(0, []byte{0xff, 0, 9})), top: 9},
		// Channel below 100 over watermark 96: 99 edits the root 93, 98 redacts 95, the
		// first reply to 94 (below the watermark); 97 answers 96.
		{pages: cat(fzPage(1, fzEdit(5), fzRedaction(2), fzReply(0), fzRoot), fzPage(1, fzReply(0), fzRoot), fzPage(0, fzRoot, fzRoot)), watermark: 96, before: 100},
		// Thread 90 below 100: 99 edits 97, a direct reply; 98 redacts 96, which is not.
		{pages: cat(fzPage(1, fzEdit(1), fzRedaction(1), fzInThread, fzReply(0), fzRoot), fzPage(0, fzRoot)), before: 100, thread: 90, top: 9},
		{pages: fzPage(0, []byte{0, 0}), before: 10},
		{pages: fzPage(0, []byte{2, 0}, []byte{0xff, 0, 9}), before: 10},
		{pages: fzPage(7, fzRoot), before: 10},
		{pages: fzPage(6, []byte{2, 0}), before: 10},
	} {
		f.Add(s.pages, s.watermark, s.before, s.thread, s.present, s.top, s.flags)
	}

	f.Fuzz(func(t *testing.T, pages []byte, watermark, before, thread uint64, present []byte, top uint16, flags uint8) {
		M, B := transcript.Sequence(watermark), transcript.Sequence(before)
		var S []transcript.Sequence
		for i, b := range present {
			if flags&1 != 0 { // anything near the watermark, in any order
				S = append(S, M-2+transcript.Sequence(b))
				continue
			}
			next := M + 1 + transcript.Sequence(b)
			if i > 0 {
				next = S[i-1] + 1 + transcript.Sequence(b)
			}
			S = append(S, next)
		}
		c := transcript.Conversation{Desk: "eng", Thread: transcript.Sequence(thread)}
		q := sharing.Query{Desired: c, Current: c, State: sharing.State{Conversation: c, Watermark: M, Present: S}, Before: B}
		if flags&2 != 0 {
			q.Current.Desk = "ops"
		}
		ctx := context.Background()
		if flags&4 != 0 {
			canceled, cancel := context.WithCancel(ctx)
			cancel()
			ctx = canceled
		}
		log := &fzLog{data: pages, top: M + transcript.Sequence(top), watermark: M, thread: c.Thread}
		stateBefore := modelCloneState(q.State)

		plan, err := sharing.Prepare(ctx, log, q)

		if !modelSameState(stateBefore, q.State) {
			t.Fatalf("Prepare changed q.State from %+v to %+v", stateBefore, q.State)
		}
		rows := slices.Clone(log.rows)
		slices.Reverse(rows)
		want := modelPrepare(rows, q) // valid only once the pages are known to be valid
		if err != nil {
			fzCheckError(t, err, plan, want, log.reads, flags&4 != 0)
			return
		}
		if want.noRead && log.reads != 0 {
			t.Fatalf("%d reads for a plan decided without the log", log.reads)
		}
		if log.badLimit != "" {
			t.Fatal(log.badLimit)
		}
		fzCheckPlan(t, plan, q, log.rows)
		if !modelSamePlan(want.plan, plan) || want.err != nil {
			t.Fatalf("Prepare disagrees with the model over the %d rows read (model error %v):\n%s",
				len(rows), want.err, gocmp.Diff(want.plan, plan, modelOpts))
		}

		// The walk stopped early. Read on as the host would serve the rest, to the end of
		// the log or of the scan: if that is a valid log, the plan must hold over it too.
		if log.reads != 0 && log.next != 0 && len(log.rows) < transcript.ScanLimit && fzReadOn(ctx, log) {
			rows = slices.Clone(log.rows)
			slices.Reverse(rows)
			if want := modelPrepare(rows, q); !modelSamePlan(want.plan, plan) || want.err != nil {
				t.Fatalf("Prepare stopped early, and disagrees with the model over the %d rows of the whole scan (model error %v):\n%s",
					len(rows), want.err, gocmp.Diff(want.plan, plan, modelOpts))
			}
		}

		// Next owns its Present: writing into it, up to its capacity, leaves the query alone.
		if p := plan.Delta.Next.Present; cap(p) > 0 {
			p = p[:cap(p)]
			for i := range p {
				p[i] = 0
			}
			if !modelSameState(stateBefore, q.State) {
				t.Fatalf("writing into Next.Present changed q.State from %+v to %+v", stateBefore, q.State)
			}
		}
	})
}

// fzReadOn reads log on from its last cursor until the log or the scan budget ends, and
// reports whether every page kept the contract.
func fzReadOn(ctx context.Context, log *fzLog) bool {
	p := transcript.NewPager(log, log.next)
	for !p.Done() && len(log.rows) < transcript.ScanLimit {
		if _, err := p.Next(ctx, min(transcript.PageSize, transcript.ScanLimit-len(log.rows))); err != nil {
			return false
		}
	}
	return true
}

// fzCheckError fails unless err is one Prepare may return for this input.
func fzCheckError(t *testing.T, err error, plan sharing.Plan, want modelWant, reads int, canceled bool) {
	t.Helper()
	if !gocmp.Equal(plan, sharing.Plan{}) {
		t.Fatalf("Prepare returned %+v beside its error %v", plan, err)
	}
	var contract *transcript.ContractError
	var read *transcript.ReadError
	switch {
	case errors.Is(err, sharing.ErrPresentSetTooLarge), errors.Is(err, sharing.ErrInvalidState), errors.Is(err, sharing.ErrWatermarkRegression):
		if want.err == nil || !errors.Is(err, want.err) {
			t.Fatalf("Prepare error %v, the model says %v", err, want.err)
		}
		if reads != 0 {
			t.Fatalf("Prepare error %v after %d reads, want none", err, reads)
		}
		return
	case want.noRead:
		t.Fatalf("Prepare error %v, but the model decides without reading: %+v, %v", err, want.plan, want.err)
	case errors.As(err, &contract):
		if !errors.Is(err, transcript.ErrContract) || contract.Read < 1 || contract.Read > reads {
			t.Fatalf("contract error %v (read %d of %d) does not match ErrContract or names no read made", err, contract.Read, reads)
		}
	case errors.As(err, &read):
		if !errors.Is(err, errFzHost) || read.Read < 1 || read.Read > reads {
			t.Fatalf("read error %v (read %d of %d) does not wrap the host's failure", err, read.Read, reads)
		}
	case canceled && errors.Is(err, context.Canceled):
		if reads != 0 {
			t.Fatalf("canceled Prepare read the log %d times", reads)
		}
	default:
		t.Fatalf("Prepare error %v (%T) is none Prepare may return", err, err)
	}
}

// fzCheckPlan fails unless plan is well formed for q over a host that returned rows.
func fzCheckPlan(t *testing.T, plan sharing.Plan, q sharing.Query, rows []transcript.Message) {
	t.Helper()
	if r := plan.Reinitialize; r != 0 {
		if r != sharing.ConversationChanged && r != sharing.GapTooLarge && r != sharing.WatermarkUnavailable {
			t.Fatalf("Reinitialize = %v, not a reason", r)
		}
		if !gocmp.Equal(plan.Delta, sharing.Delta{}) {
			t.Fatalf("reinitialization %v with a delta %+v", r, plan.Delta)
		}
		return
	}
	M, S, B := q.State.Watermark, q.State.Present, q.Before
	roots := make(map[transcript.Sequence]bool)
	bySeq := make(map[transcript.Sequence][]transcript.Message) // the rows the log returned, by Seq
	for _, m := range rows {
		if m.Parent == 0 {
			roots[m.Seq] = true
		}
		bySeq[m.Seq] = append(bySeq[m.Seq], m)
	}
	for i, m := range plan.Delta.Messages {
		switch t0 := q.Desired.Thread; {
		case i > 0 && m.Seq <= plan.Delta.Messages[i-1].Seq:
			t.Fatalf("delta not strictly ascending at %d", m.Seq)
		case m.Seq <= M || (B != 0 && m.Seq >= B):
			t.Fatalf("delta row %d outside (M, B) = (%d, %d)", m.Seq, M, B)
		case slices.Contains(S, m.Seq):
			t.Fatalf("delta row %d is present already", m.Seq)
		case modelBlank(m):
			t.Fatalf("delta row %d is blank", m.Seq)
		case t0 != 0 && m.Seq != t0 && m.Parent != t0:
			t.Fatalf("delta row %d (parent %d) is not in thread %d", m.Seq, m.Parent, t0)
		case t0 == 0 && m.Parent != 0 && !roots[m.Parent]:
			t.Fatalf("delta row %d replies to %d, not a root the log returned", m.Seq, m.Parent)
		case !slices.ContainsFunc(bySeq[m.Seq], func(r transcript.Message) bool { return gocmp.Equal(r, m) }):
			t.Fatalf("delta row %+v is not a row the log returned", m)
		}
	}
	next := plan.Delta.Next
	if next.Conversation != q.State.Conversation || next.Watermark < M {
		t.Fatalf("Next = %+v from state %+v", next, q.State)
	}
	for i, seq := range next.Present {
		if seq <= next.Watermark || (i > 0 && seq <= next.Present[i-1]) || !slices.Contains(S, seq) {
			t.Fatalf("Next.Present %v is not the entries of %v above %d", next.Present, S, next.Watermark)
		}
	}
}
