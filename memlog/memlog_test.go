package memlog_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/storetest"
	"github.com/sharedesk/transcript/logtest"
	"github.com/sharedesk/transcript/memlog"
)

func TestConformance(t *testing.T) {
	logtest.Run(t, func(*testing.T) logtest.Desk { return memlog.New() })
}

func TestZeroLogIsEmpty(t *testing.T) {
	var l memlog.Log
	pg, err := l.ReadBefore(t.Context(), 0, transcript.PageSize)
	if err != nil || len(pg.Messages) != 0 || pg.Next != 0 {
		t.Fatalf("zero Log: ReadBefore(0, PageSize) = %+v, %v, want an empty page with Next 0", pg, err)
	}
	if l.Head() != 0 || l.Len() != 0 {
		t.Errorf("zero Log: Head %d, Len %d, want 0, 0", l.Head(), l.Len())
	}
}

// seeded returns a log holding a root (seq 1) and a reply to it (seq 2).
func seeded(t *testing.T) *memlog.Log {
	t.Helper()
	l := memlog.New()
	for _, m := range []transcript.Message{
		{Author: transcript.Operator(), Content: "root"},
		{Parent: 1, Author: transcript.Agent("triage", "Triage"), Content: "reply"},
	} {
		if _, err := l.Append(t.Context(), m); err != nil {
			t.Fatalf("Append(%+v): %v", m, err)
		}
	}
	return l
}

func TestAppendAssignsSeq(t *testing.T) {
	l := seeded(t)
	m := transcript.Message{Parent: 2, Author: transcript.Person("ana", "Ana"), Content: "a reply to a reply"}
	got, err := l.Append(t.Context(), m)
	if err != nil {
		t.Fatal(err)
	}
	want := m
	want.Seq = 3
	if !gocmp.Equal(got, want) {
		t.Errorf("Append returned %+v, want %+v", got, want)
	}
	if rows := l.Messages(); len(rows) != 3 || !gocmp.Equal(rows[2], want) {
		t.Errorf("Messages() = %+v, want the appended row last", rows)
	}
	if l.Head() != 3 || l.Len() != 3 {
		t.Errorf("Head %d, Len %d, want 3, 3", l.Head(), l.Len())
	}
}

func TestAppendRejects(t *testing.T) {
	valid := transcript.Message{Author: transcript.Operator(), Content: "hello"}
	tests := []struct {
		name       string
		edit       func(m *transcript.Message)
		wantAuthor bool // the error also matches transcript.ErrInvalidAuthor
	}{
		{"seq set by the caller", func(m *transcript.Message) { m.Seq = 3 }, false},
		{"zero author", func(m *transcript.Message) { m.Author = transcript.Author{} }, true},
		{"agent without an id", func(m *transcript.Message) { m.Author = transcript.Agent("", "Triage") }, true},
		{"operator with an id", func(m *transcript.Message) { m.Author.ID = "root" }, true},
		{"unknown parent", func(m *transcript.Message) { m.Parent = 3 }, false},
		{"far parent", func(m *transcript.Message) { m.Parent = 1 << 40 }, false},
		{"invalid UTF-8", func(m *transcript.Message) { m.Content = "caf\xe9" }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := seeded(t)
			before := l.Messages()
			m := valid
			tt.edit(&m)
			got, err := l.Append(t.Context(), m)
			if !errors.Is(err, transcript.ErrInvalidMessage) {
				t.Fatalf("Append(%+v) = %+v, %v, want an error matching transcript.ErrInvalidMessage", m, got, err)
			}
			if tt.wantAuthor && !errors.Is(err, transcript.ErrInvalidAuthor) {
				t.Errorf("Append(%+v): error %v does not match transcript.ErrInvalidAuthor", m, err)
			}
			if !gocmp.Equal(got, transcript.Message{}) {
				t.Errorf("Append(%+v) returned %+v with its error, want the zero Message", m, got)
			}
			if after := l.Messages(); !gocmp.Equal(after, before) {
				t.Errorf("after a rejected Append the log holds %+v, want %+v", after, before)
			}
		})
	}
}

func TestAppendRejectsParentOnEmptyLog(t *testing.T) {
	l := memlog.New()
	_, err := l.Append(t.Context(), transcript.Message{Parent: 1, Author: transcript.Operator(), Content: "orphan"})
	if !errors.Is(err, transcript.ErrInvalidMessage) {
		t.Fatalf("got %v, want an error matching transcript.ErrInvalidMessage", err)
	}
	if l.Len() != 0 {
		t.Errorf("Len %d after a rejected Append, want 0", l.Len())
	}
}

func TestAppendHonoursCancellation(t *testing.T) {
	l := memlog.New()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := l.Append(ctx, transcript.Message{Author: transcript.Operator(), Content: "late"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want an error matching context.Canceled", err)
	}
	if l.Len() != 0 {
		t.Errorf("Len %d after a cancelled Append, want 0", l.Len())
	}
}

func TestFrom(t *testing.T) {
	rows := []transcript.Message{
		{Seq: 3, Author: transcript.Operator(), Content: "root"},
		{Seq: 7, Parent: 5, Author: transcript.Agent("triage", "Triage"), Content: "reply to a row not in the log"},
		{Seq: 20, Parent: 3, Author: transcript.System("alert", "Alert"), Content: "reply"},
	}
	l, err := memlog.From(rows)
	if err != nil {
		t.Fatalf("From with gaps and a missing parent: %v", err)
	}
	want := slices.Clone(rows)
	rows[0].Content = "changed by the caller"
	if got := l.Messages(); !gocmp.Equal(got, want) {
		t.Errorf("Messages() = %+v, want %+v (From must copy)", got, want)
	}
	if l.Head() != 20 {
		t.Errorf("Head %d, want 20", l.Head())
	}
	pg, err := l.ReadBefore(t.Context(), 20, 1)
	if err != nil || len(pg.Messages) != 1 || pg.Messages[0].Seq != 7 || pg.Next != 7 {
		t.Errorf("ReadBefore(20, 1) = %+v, %v, want row 7 and Next 7", pg, err)
	}
	next, err := l.Append(t.Context(), transcript.Message{Parent: 7, Author: transcript.Operator(), Content: "next"})
	if err != nil || next.Seq != 21 {
		t.Errorf("Append after From = %+v, %v, want seq 21", next, err)
	}
}

func TestFromRejects(t *testing.T) {
	op := transcript.Operator()
	tests := []struct {
		name string
		rows []transcript.Message
	}{
		{"seq 0", []transcript.Message{{Seq: 0, Author: op}}},
		{"descending", []transcript.Message{{Seq: 2, Author: op}, {Seq: 1, Author: op}}},
		{"duplicate", []transcript.Message{{Seq: 1, Author: op}, {Seq: 1, Author: op}}},
		{"parent equal to seq", []transcript.Message{{Seq: 1, Parent: 1, Author: op}}},
		{"parent above seq", []transcript.Message{{Seq: 1, Author: op}, {Seq: 2, Parent: 5, Author: op}}},
		{"invalid author", []transcript.Message{{Seq: 1, Author: transcript.Author{Kind: transcript.KindPerson}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := memlog.From(tt.rows)
			if err == nil || l != nil {
				t.Fatalf("From(%+v) = %v, %v, want nil and an error", tt.rows, l, err)
			}
		})
	}
	if _, err := memlog.From([]transcript.Message{{Seq: 1, Author: transcript.Author{}}}); !errors.Is(err, transcript.ErrInvalidAuthor) {
		t.Errorf("From with an invalid author: got %v, want an error matching transcript.ErrInvalidAuthor", err)
	}
}

func TestReadBeforeLimitBelowOne(t *testing.T) {
	l := seeded(t)
	for _, limit := range []int{0, -1} {
		pg, err := l.ReadBefore(t.Context(), 0, limit)
		if !errors.Is(err, memlog.ErrLimit) {
			t.Errorf("ReadBefore(0, %d) = %+v, %v, want an error matching memlog.ErrLimit", limit, pg, err)
		}
	}
}

func TestReadBeforeCopies(t *testing.T) {
	l := seeded(t)
	pg, err := l.ReadBefore(t.Context(), 0, transcript.PageSize)
	if err != nil {
		t.Fatal(err)
	}
	pg.Messages[0].Content = "changed by the reader"
	if got := l.Messages()[1].Content; got != "reply" {
		t.Errorf("after the reader changed its page the log holds %q, want %q", got, "reply")
	}
}

// TestReplyRule: memlog applies the aside rules of SPEC §10 as the stores do.
func TestReplyRule(t *testing.T) {
	storetest.ReplyRule(t, memlog.New())
}

// TestKeyRule: memlog applies the key rules of SPEC §11 as the stores do.
func TestKeyRule(t *testing.T) {
	storetest.KeyRule(t, memlog.New())
}

// TestReadsCopyAudiences: a page's audiences are the caller's; writing to them changes
// neither the log nor another read.
func TestReadsCopyAudiences(t *testing.T) {
	l := memlog.New()
	triage := transcript.Agent("triage", "Triage")
	for range 3 {
		if _, err := l.Append(t.Context(), transcript.Message{Author: transcript.Operator(), Content: "x", Audience: []transcript.Author{triage}}); err != nil {
			t.Fatal(err)
		}
	}
	page, err := l.ReadBefore(t.Context(), 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range page.Messages {
		m.Audience[0] = transcript.Agent("forged", "")
		if cap(m.Audience) != len(m.Audience) {
			t.Errorf("row %d: audience has room to grow into its neighbour's", m.Seq)
		}
	}
	for _, m := range l.Messages() {
		if m.Audience[0] != triage {
			t.Errorf("row %d: audience %v after a reader wrote to its copy", m.Seq, m.Audience)
		}
	}
}

// TestDigestRule: memlog keeps digests as the stores do.
func TestDigestRule(t *testing.T) {
	storetest.DigestRule(t, func(t *testing.T) storetest.DigestDesk {
		return storetest.DigestDesk{Name: "main", Log: memlog.New(), Renew: func(context.Context) (storetest.DigestLog, error) {
			return memlog.New(), nil // a Log is one desk: the desk made anew is another Log
		}}
	})
}
