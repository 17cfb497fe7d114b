package transcript_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
)

// r is a row to append in a test desk: its parent's Seq and its content.
type r struct {
	parent  transcript.Sequence
	content string
}

// desk appends rows to a new memlog; row i gets Seq i+1.
func desk(t testing.TB, rows ...r) *memlog.Log {
	t.Helper()
	l := memlog.New()
	for i, row := range rows {
		author := transcript.Agent(fmt.Sprint("agent-", i%3), "Agent")
		if _, err := l.Append(context.Background(), transcript.Message{Parent: row.parent, Author: author, Content: row.content}); err != nil {
			t.Fatalf("append row %d: %v", i+1, err)
		}
	}
	return l
}

// roots returns n root rows.
func roots(n int) []r {
	out := make([]r, n)
	for i := range out {
		out[i] = r{0, fmt.Sprint("root ", i)}
	}
	return out
}

// repliesTo returns n replies to parent.
func repliesTo(parent transcript.Sequence, n int) []r {
	out := make([]r, n)
	for i := range out {
		out[i] = r{parent, fmt.Sprint("reply ", i)}
	}
	return out
}

func seqs(msgs []transcript.Message) []transcript.Sequence {
	out := make([]transcript.Sequence, len(msgs))
	for i, m := range msgs {
		out[i] = m.Seq
	}
	return out
}

func span(from, to transcript.Sequence) []transcript.Sequence {
	var out []transcript.Sequence
	for s := from; s <= to; s++ {
		out = append(out, s)
	}
	return out
}

// countingLog records every read's arguments.
type countingLog struct {
	transcript.Log
	asked []readArgs
}

func (l *countingLog) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	l.asked = append(l.asked, readArgs{before, limit})
	return l.Log.ReadBefore(ctx, before, limit)
}

func thread(root transcript.Sequence) transcript.Conversation {
	return transcript.Conversation{Desk: "eng", Thread: root}
}

func TestProject(t *testing.T) {
	// A small desk used by several cases:
	//  1 root        2 reply 1     3 reply 1    4 reply to 2 (a reply)
	//  5 blank root  6 blank reply 5   7 reply 5   8 reply 5
	//  9 root       10 blank reply 1  11 root
	small := desk(t,
		r{0, "question"}, r{1, "first answer"}, r{1, "second answer"}, r{2, "nested"},
		r{0, " \n\t"}, r{5, "\u00a0\u2003"}, r{5, "answer to blank"}, r{5, "later"},
		r{0, "another"}, r{1, "   "}, r{0, "newest"})
	big := append(roots(100), repliesTo(50, 3)...) // 101..103 reply to 50
	chain := append(append([]r{{0, "old root"}}, roots(39)...), r{1, "late first reply"})
	nested := append(append([]r{{0, "root"}, {1, "reply"}}, roots(38)...), r{2, "reply to a reply"})

	tests := []struct {
		name    string
		log     transcript.Log
		q       transcript.Query
		want    []transcript.Sequence
		head    transcript.Sequence
		partial bool
		reads   int // 0: not checked
		scanned int // 0: not checked
	}{
		{name: "empty log", log: memlog.New(), q: transcript.Query{}, want: nil, reads: 1},
		{name: "empty log thread", log: memlog.New(), q: transcript.Query{Conversation: thread(3)}, want: nil, reads: 1},

		{name: "channel: roots and first replies, blank rows never", log: small,
			want: []transcript.Sequence{1, 2, 7, 9, 11}, head: 11},
		{name: "channel: before bound is exclusive", log: small, q: transcript.Query{Before: 9},
			want: []transcript.Sequence{1, 2, 7}, head: 8},
		{name: "channel: window keeps the newest", log: small, q: transcript.Query{Window: 2},
			want: []transcript.Sequence{9, 11}, head: 11},
		{name: "channel: window of one", log: small, q: transcript.Query{Window: 1},
			want: []transcript.Sequence{11}, head: 11},
		{name: "channel: a first reply outside the bound does not qualify", log: small, q: transcript.Query{Before: 2},
			want: []transcript.Sequence{1}, head: 1},
		{name: "channel: stops early on a busy desk", log: desk(t, roots(10_000)...),
			want: span(9971, 10_000), head: 10_000, reads: 1},
		{name: "channel: reads on while an old root's first reply could enter", log: desk(t, chain...),
			want: span(12, 41), head: 41},
		{name: "channel: a reply to a reply never qualifies", log: desk(t, nested...),
			want: span(11, 40), head: 41},
		{name: "channel: first reply of an old root enters the window", log: desk(t, big...), q: transcript.Query{Window: 5},
			want: []transcript.Sequence{97, 98, 99, 100, 101}, head: 103},
		{name: "channel: blank rows count toward the scan", log: desk(t, append(roots(5), blanks(transcript.ScanLimit)...)...),
			want: nil, head: transcript.ScanLimit + 5, partial: true, scanned: transcript.ScanLimit},
		{name: "channel: a reply whose root is past the scan never qualifies",
			log:  desk(t, append(append(roots(1), blanks(transcript.ScanLimit)...), r{1, "late"})...),
			want: nil, head: transcript.ScanLimit + 2, partial: true, scanned: transcript.ScanLimit},
		{name: "channel: a log of exactly ScanLimit rows is not partial", log: desk(t, blanks(transcript.ScanLimit)...),
			want: nil, head: transcript.ScanLimit, scanned: transcript.ScanLimit},
		{name: "channel: a reply whose parent is missing does not hold the walk", log: gapped(t),
			want: span2(342, 400), head: 401, reads: 1},
		{name: "channel: bound at 1", log: small, q: transcript.Query{Before: 1}, want: nil, head: 0, reads: 1},
		{name: "channel: bound above the head", log: small, q: transcript.Query{Before: 1000},
			want: []transcript.Sequence{1, 2, 7, 9, 11}, head: 11},

		{name: "thread: root and direct replies, blank and nested never", log: small, q: transcript.Query{Conversation: thread(1)},
			want: []transcript.Sequence{1, 2, 3}, head: 11},
		{name: "thread: blank root gives its replies only", log: small, q: transcript.Query{Conversation: thread(5)},
			want: []transcript.Sequence{7, 8}, head: 11},
		{name: "thread: a reply's thread", log: small, q: transcript.Query{Conversation: thread(2)},
			want: []transcript.Sequence{2, 4}, head: 11},
		{name: "thread: root at or above the bound gives nothing", log: small, q: transcript.Query{Conversation: thread(9), Before: 9},
			want: nil, head: 8, reads: 1},
		{name: "thread: the largest root is passed by the first row", log: desk(t, roots(100)...), q: transcript.Query{Conversation: thread(math.MaxUint64), Window: 1},
			want: nil, head: 100, reads: 1},
		{name: "thread: root not in the log", log: small, q: transcript.Query{Conversation: thread(500)},
			want: nil, head: 11, reads: 1},
		{name: "thread: window keeps root and newest replies, root fetched by one extra read",
			log: desk(t, append(roots(1), repliesTo(1, 100)...)...), q: transcript.Query{Conversation: thread(1), Window: 3},
			want: []transcript.Sequence{1, 100, 101}, head: 101, reads: 2, scanned: 32},
		// The root alone is the window's floor: the walk reads on down to it, since any row
		// above it could be elided (the extra read told it the root qualifies).
		{name: "thread: window of one holds the root",
			log: desk(t, append(roots(1), repliesTo(1, 100)...)...), q: transcript.Query{Conversation: thread(1), Window: 1},
			want: []transcript.Sequence{1}, head: 101, reads: 4},
		{name: "thread: walk reaching the root makes no extra read",
			log: desk(t, append(roots(1), repliesTo(1, 10)...)...), q: transcript.Query{Conversation: thread(1), Window: 3},
			want: []transcript.Sequence{1, 10, 11}, head: 11, reads: 1, scanned: 11},
		{name: "thread: sparse thread in a busy desk is partial but keeps its root",
			log:  desk(t, append(append(roots(1), r{1, "early"}), append(roots(3000), r{1, "late"})...)...),
			q:    transcript.Query{Conversation: thread(1)},
			want: []transcript.Sequence{1, 3003}, head: 3003, partial: true, scanned: transcript.ScanLimit, reads: 8},
		{name: "thread: a blank root found by the extra read lets the walk go on",
			log: desk(t, append(append([]r{{0, " "}}, repliesTo(1, 40)...), roots(10)...)...), q: transcript.Query{Conversation: thread(1), Window: 3},
			want: []transcript.Sequence{39, 40, 41}, head: 51},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := &countingLog{Log: tt.log}
			got, err := transcript.Project(t.Context(), log, tt.q)
			if err != nil {
				t.Fatalf("Project: %v", err)
			}
			if !slices.Equal(seqs(got.Messages), tt.want) {
				t.Errorf("messages = %v, want %v", seqs(got.Messages), tt.want)
			}
			if got.Head != tt.head || got.Partial != tt.partial {
				t.Errorf("Head, Partial = %d, %v; want %d, %v", got.Head, got.Partial, tt.head, tt.partial)
			}
			if tt.reads != 0 && got.Reads != tt.reads {
				t.Errorf("Reads = %d, want %d (reads %v)", got.Reads, tt.reads, log.asked)
			}
			if tt.scanned != 0 && got.Scanned != tt.scanned {
				t.Errorf("Scanned = %d, want %d", got.Scanned, tt.scanned)
			}
			if got.Reads != len(log.asked) {
				t.Errorf("Reads = %d, but the host saw %d reads", got.Reads, len(log.asked))
			}
			total := 0
			for i, a := range log.asked {
				if a.limit < 1 || a.limit > transcript.PageSize {
					t.Errorf("read %d asked for %d rows", i+1, a.limit)
				}
				if a.limit == 1 && a.before != 0 && i == len(log.asked)-1 && tt.q.Conversation.Thread != 0 && a.before == tt.q.Conversation.Thread+1 {
					continue // the thread root's extra read
				}
				total += a.limit
			}
			if total > transcript.ScanLimit {
				t.Errorf("reads asked for %d rows in all, more than ScanLimit: %v", total, log.asked)
			}
		})
	}
}

// blanks returns n blank roots.
func blanks(n int) []r {
	out := make([]r, n)
	for i := range out {
		out[i] = r{0, "  "}
	}
	return out
}

func TestProjectDefaultWindow(t *testing.T) {
	l := desk(t, roots(100)...)
	for _, w := range []int{0, -3} {
		got, err := transcript.Project(t.Context(), l, transcript.Query{Window: w})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Messages) != transcript.SessionWindow {
			t.Errorf("Window %d: %d messages, want SessionWindow (%d)", w, len(got.Messages), transcript.SessionWindow)
		}
	}
}

func TestProjectKeepsAttribution(t *testing.T) {
	l := memlog.New()
	ctx := t.Context()
	want := []transcript.Author{
		transcript.Operator(), transcript.Person("ana", "Ana"), transcript.Agent("triage", "Triage bot"),
		transcript.System("workflow", "CI"),
	}
	for _, a := range want {
		if _, err := l.Append(ctx, transcript.Message{Author: a, Content: "hello from " + a.String()}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := transcript.Project(ctx, l, transcript.Query{})
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range got.Messages {
		if m.Author != want[i] || m.Content != "hello from "+want[i].String() {
			t.Errorf("message %d = %+v, want author %+v", i, m, want[i])
		}
	}
}

func TestProjectErrors(t *testing.T) {
	t.Run("contract error", func(t *testing.T) {
		log := &scriptedLog{pages: []transcript.Page{page(10, 12, 11, 10), page(0, 10)}}
		got, err := transcript.Project(t.Context(), log, transcript.Query{Window: 30})
		var ce *transcript.ContractError
		if !errors.As(err, &ce) || !errors.Is(err, transcript.ErrDuplicate) || ce.Read != 2 || ce.Seq != 10 {
			t.Fatalf("err = %v, want a ContractError for the duplicate 10 on read 2", err)
		}
		if got.Messages != nil || got.Head != 0 || got.Reads != 0 {
			t.Errorf("projection on error = %+v, want zero", got)
		}
	})
	t.Run("contract error on the thread root's extra read", func(t *testing.T) {
		replies := rows(30, 29, 28)
		for i := range replies {
			replies[i].Parent = 5
		}
		log := &scriptedLog{pages: []transcript.Page{{Messages: replies, Next: 28}, page(0, 7)}}
		_, err := transcript.Project(t.Context(), log, transcript.Query{Conversation: thread(5), Window: 3})
		var ce *transcript.ContractError
		if !errors.As(err, &ce) || !errors.Is(err, transcript.ErrOutOfRange) || ce.Read != 2 || ce.Before != 6 || ce.Limit != 1 {
			t.Fatalf("err = %v, want a ContractError for read 2 (before 6, limit 1)", err)
		}
	})
	t.Run("host error", func(t *testing.T) {
		hostErr := errors.New("connection reset")
		log := &scriptedLog{err: hostErr}
		_, err := transcript.Project(t.Context(), log, transcript.Query{})
		var re *transcript.ReadError
		if !errors.As(err, &re) || !errors.Is(err, hostErr) {
			t.Fatalf("err = %v, want a ReadError wrapping the host's", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := transcript.Project(ctx, desk(t, roots(3)...), transcript.Query{})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
}

func TestProjectDoesNotModifyPages(t *testing.T) {
	rows := rows(9, 7, 3, 1)
	rows[1].Parent, rows[2].Parent = 3, 1
	before := slices.Clone(rows)
	log := &scriptedLog{pages: []transcript.Page{{Messages: rows}}}
	got, err := transcript.Project(t.Context(), log, transcript.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if !gocmp.Equal(rows, before) {
		t.Errorf("the host's page changed: %+v, was %+v", rows, before)
	}
	got.Messages[0].Content = "changed"
	if rows[len(rows)-1].Content == "changed" {
		t.Errorf("the projection shares memory with the host's page")
	}
}

// gapped is a log of roots at the even sequences 2..400 and a reply 401 to the missing 351.
func gapped(t *testing.T) transcript.Log {
	t.Helper()
	var rows []transcript.Message
	for s := transcript.Sequence(2); s <= 400; s += 2 {
		rows = append(rows, transcript.Message{Seq: s, Author: transcript.Operator(), Content: "root"})
	}
	rows = append(rows, transcript.Message{Seq: 401, Parent: 351, Author: transcript.Operator(), Content: "orphan"})
	l, err := memlog.From(rows)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// span2 returns the even sequences from..to.
func span2(from, to transcript.Sequence) []transcript.Sequence {
	var out []transcript.Sequence
	for s := from; s <= to; s += 2 {
		out = append(out, s)
	}
	return out
}
