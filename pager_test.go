package transcript_test

import (
	"context"
	"errors"
	"testing"

	"github.com/sharedesk/transcript"
)

// scriptedLog returns its pages one read after another, whatever is asked, and records the
// reads.
type scriptedLog struct {
	pages []transcript.Page
	err   error // returned by the read after the last page
	asked []readArgs
}

type readArgs struct {
	before transcript.Sequence
	limit  int
}

func (l *scriptedLog) ReadBefore(_ context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	l.asked = append(l.asked, readArgs{before, limit})
	if len(l.pages) == 0 {
		if l.err != nil {
			return transcript.Page{}, l.err
		}
		return transcript.Page{}, nil
	}
	pg := l.pages[0]
	l.pages = l.pages[1:]
	return pg, nil
}

// rows builds page rows by agent "a" with the given sequences, each a root.
func rows(seqs ...transcript.Sequence) []transcript.Message {
	out := make([]transcript.Message, len(seqs))
	for i, s := range seqs {
		out[i] = transcript.Message{Seq: s, Author: transcript.Agent("a", "A"), Content: "x"}
	}
	return out
}

func page(next transcript.Sequence, seqs ...transcript.Sequence) transcript.Page {
	return transcript.Page{Messages: rows(seqs...), Next: next}
}

func TestPagerContract(t *testing.T) {
	badAuthor := page(0, 5)
	badAuthor.Messages[0].Author = transcript.Author{Kind: transcript.KindPerson}
	badReader := page(0, 5)
	badReader.Messages[0].Audience = []transcript.Author{transcript.Agent("ok", ""), {Kind: transcript.KindAgent}}
	parentNotOlder := page(0, 5)
	parentNotOlder.Messages[0].Parent = 5
	badThenDisorder := page(0, 9, 9)
	badThenDisorder.Messages[1].Author = transcript.Author{}

	tests := []struct {
		name   string
		before transcript.Sequence
		limits []int
		pages  []transcript.Page
		rule   error
		read   int
		seq    transcript.Sequence
	}{
		{"page too large", 0, []int{2}, []transcript.Page{page(0, 9, 8, 7)}, transcript.ErrPageTooLarge, 1, 7},
		{"empty page with cursor", 0, []int{4}, []transcript.Page{page(3)}, transcript.ErrEmptyPageCursor, 1, 3},
		{"seq zero", 0, []int{4}, []transcript.Page{page(0, 2, 0)}, transcript.ErrInvalidRow, 1, 0},
		{"invalid author", 0, []int{4}, []transcript.Page{badAuthor}, transcript.ErrInvalidRow, 1, 5},
		{"invalid audience entry", 0, []int{4}, []transcript.Page{badReader}, transcript.ErrInvalidRow, 1, 5},
		{"parent not older", 0, []int{4}, []transcript.Page{parentNotOlder}, transcript.ErrInvalidRow, 1, 5},
		{"duplicate inside a page", 0, []int{4}, []transcript.Page{page(0, 9, 8, 8)}, transcript.ErrDuplicate, 1, 8},
		{"duplicate across pages", 0, []int{2, 2}, []transcript.Page{page(8, 9, 8), page(0, 8, 7)}, transcript.ErrDuplicate, 2, 8},
		{"out of range on the first read", 5, []int{4}, []transcript.Page{page(0, 6)}, transcript.ErrOutOfRange, 1, 6},
		{"bound itself is out of range", 5, []int{4}, []transcript.Page{page(0, 5)}, transcript.ErrOutOfRange, 1, 5},
		{"out of range on a later read", 0, []int{2, 2}, []transcript.Page{page(7, 9, 8), page(0, 7)}, transcript.ErrOutOfRange, 2, 7},
		{"not descending", 0, []int{4}, []transcript.Page{page(0, 3, 4)}, transcript.ErrNotDescending, 1, 4},
		{"cursor stuck", 0, []int{2, 2}, []transcript.Page{page(7, 9, 7), page(7, 6, 5)}, transcript.ErrCursorStuck, 2, 7},
		{"cursor after oldest", 0, []int{2}, []transcript.Page{page(8, 9, 7)}, transcript.ErrCursorAfterOldest, 1, 8},
		// For one row, rule 3 comes before rule 4: a duplicate with no author is an invalid row.
		{"row rule before uniqueness for one row", 0, []int{4}, []transcript.Page{badThenDisorder}, transcript.ErrInvalidRow, 1, 9},
		// Size is checked before any row.
		{"size before rows", 0, []int{1}, []transcript.Page{page(0, 0, 0)}, transcript.ErrPageTooLarge, 1, 0},
		// An earlier row's break is reported before a later row's.
		{"rows in page order", 0, []int{4}, []transcript.Page{page(0, 3, 4, 0)}, transcript.ErrNotDescending, 1, 4},
	}
	rules := []error{transcript.ErrPageTooLarge, transcript.ErrEmptyPageCursor, transcript.ErrInvalidRow,
		transcript.ErrDuplicate, transcript.ErrOutOfRange, transcript.ErrNotDescending,
		transcript.ErrCursorStuck, transcript.ErrCursorAfterOldest}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := &scriptedLog{pages: tt.pages}
			p := transcript.NewPager(log, tt.before)
			var err error
			for _, limit := range tt.limits {
				if _, err = p.Next(t.Context(), limit); err != nil {
					break
				}
			}
			var ce *transcript.ContractError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want a *ContractError", err)
			}
			if !errors.Is(err, transcript.ErrContract) || !errors.Is(err, tt.rule) {
				t.Errorf("err = %v, want it to match ErrContract and %v", err, tt.rule)
			}
			for _, rule := range rules {
				if rule != tt.rule && errors.Is(err, rule) {
					t.Errorf("err = %v also matches %v", err, rule)
				}
			}
			last := log.asked[len(log.asked)-1]
			if ce.Read != tt.read || ce.Seq != tt.seq || ce.Before != last.before || ce.Limit != last.limit {
				t.Errorf("ContractError = %+v, want read %d, seq %d, before %d, limit %d", ce, tt.read, tt.seq, last.before, last.limit)
			}
			if _, again := p.Next(t.Context(), 4); again != err {
				t.Errorf("next read after an error: %v, want the same error %v", again, err)
			}
		})
	}
}

func TestPagerAcceptsValidPages(t *testing.T) {
	log := &scriptedLog{pages: []transcript.Page{
		page(8, 10, 9, 8), // Next == oldest is fine
		page(3, 6, 4),     // a host may return fewer rows than asked and leave a gap
		page(0),           // an empty last page ends the log
	}}
	p := transcript.NewPager(log, 11)
	var got []transcript.Sequence
	for !p.Done() {
		page, err := p.Next(t.Context(), 3)
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		for _, m := range page {
			got = append(got, m.Seq)
		}
	}
	want := []transcript.Sequence{10, 9, 8, 6, 4}
	if len(got) != len(want) {
		t.Fatalf("rows = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("rows = %v, want %v", got, want)
		}
	}
	wantAsked := []readArgs{{11, 3}, {8, 3}, {3, 3}}
	if len(log.asked) != len(wantAsked) || log.asked[0] != wantAsked[0] || log.asked[1] != wantAsked[1] || log.asked[2] != wantAsked[2] {
		t.Errorf("reads = %v, want %v", log.asked, wantAsked)
	}
	if p.Reads() != 3 || p.Scanned() != 5 {
		t.Errorf("Reads, Scanned = %d, %d; want 3, 5", p.Reads(), p.Scanned())
	}
	if rows, err := p.Next(t.Context(), 3); rows != nil || err != nil {
		t.Errorf("Next after the end = %v, %v; want nil, nil", rows, err)
	}
}

func TestPagerClampsLimit(t *testing.T) {
	for _, tt := range []struct{ asked, want int }{{0, 1}, {-5, 1}, {transcript.PageSize + 1, transcript.PageSize}, {7, 7}} {
		log := &scriptedLog{}
		if _, err := transcript.NewPager(log, 0).Next(t.Context(), tt.asked); err != nil {
			t.Fatal(err)
		}
		if log.asked[0].limit != tt.want {
			t.Errorf("Next(%d) asked the host for %d rows, want %d", tt.asked, log.asked[0].limit, tt.want)
		}
	}
}

func TestPagerPeekFindsRowsAlreadySeen(t *testing.T) {
	log := &scriptedLog{pages: []transcript.Page{page(5, 9, 7, 5), page(0, 7)}}
	p := transcript.NewPager(log, 0)
	if _, err := p.Next(t.Context(), 3); err != nil {
		t.Fatal(err)
	}
	_, err := p.Peek(t.Context(), 8, 1)
	if !errors.Is(err, transcript.ErrDuplicate) {
		t.Fatalf("Peek returning a row already seen: %v, want ErrDuplicate", err)
	}
	if p.Reads() != 2 || p.Scanned() != 3 {
		t.Errorf("Reads, Scanned = %d, %d; want 2, 3 (a peek is a read, not a scan)", p.Reads(), p.Scanned())
	}
}

func TestPagerErrors(t *testing.T) {
	hostErr := errors.New("disk on fire")
	log := &scriptedLog{pages: []transcript.Page{page(5, 9, 5)}, err: hostErr}
	p := transcript.NewPager(log, 0)
	if _, err := p.Next(t.Context(), 2); err != nil {
		t.Fatal(err)
	}
	_, err := p.Next(t.Context(), 2)
	var re *transcript.ReadError
	if !errors.As(err, &re) || !errors.Is(err, hostErr) {
		t.Fatalf("err = %v, want a *ReadError wrapping the host's error", err)
	}
	if re.Read != 2 || re.Before != 5 || re.Limit != 2 {
		t.Errorf("ReadError = %+v, want read 2, before 5, limit 2", re)
	}
	if errors.Is(err, transcript.ErrContract) {
		t.Errorf("a host error matches ErrContract: %v", err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	log = &scriptedLog{}
	if _, err := transcript.NewPager(log, 0).Next(ctx, 2); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled ctx: err = %v, want context.Canceled", err)
	}
	if len(log.asked) != 0 {
		t.Errorf("cancelled ctx: %d host reads, want none", len(log.asked))
	}
	log = &scriptedLog{err: context.DeadlineExceeded}
	if _, err := transcript.NewPager(log, 0).Next(t.Context(), 2); !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &re) {
		t.Errorf("host deadline: err = %v, want a *ReadError matching context.DeadlineExceeded", err)
	}
}

func TestContractErrorMessage(t *testing.T) {
	err := &transcript.ContractError{Read: 2, Before: 100, Limit: 64, Seq: 57, Err: transcript.ErrDuplicate}
	want := "read 2 (before 100, limit 64): seq 57: sequence already seen in this walk"
	if err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
}
