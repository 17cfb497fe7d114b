package transcript_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
)

var (
	opAuthor     = transcript.Operator()
	triageAuthor = transcript.Agent("triage", "Triage")
	reviewAuthor = transcript.Agent("review", "Reviewer")
	anaAuthor    = transcript.Person("ana", "Ana")
)

func authors(a ...transcript.Author) []transcript.Author { return a }

func TestReadableBy(t *testing.T) {
	desk := transcript.Message{Seq: 1, Author: anaAuthor, Content: "desk row"}
	aside := transcript.Message{Seq: 2, Author: anaAuthor, Content: "aside", Audience: authors(triageAuthor)}
	for _, c := range []struct {
		name   string
		m      transcript.Message
		viewer transcript.Author
		want   bool
	}{
		{"desk row, zero viewer", desk, transcript.Author{}, true},
		{"desk row, invalid viewer", desk, transcript.Agent("", ""), true},
		{"aside, its author", aside, anaAuthor, true},
		{"aside, its author renamed", aside, transcript.Person("ana", "Ana Lima"), true},
		{"aside, a listed reader", aside, triageAuthor, true},
		{"aside, the operator", aside, opAuthor, true},
		{"aside, an outsider", aside, reviewAuthor, false},
		{"aside, same id of another kind", aside, transcript.Person("triage", "Triage"), false},
		{"aside, the zero viewer", aside, transcript.Author{}, false},
		{"aside, an operator with an id", aside, transcript.Author{Kind: transcript.KindOperator, ID: "x"}, false},
		{"aside listing an invalid author, that author", transcript.Message{Author: anaAuthor, Audience: authors(transcript.Agent("", ""))}, transcript.Agent("", ""), false},
	} {
		if got := c.m.ReadableBy(c.viewer); got != c.want {
			t.Errorf("%s: ReadableBy(%v) = %v, want %v", c.name, c.viewer, got, c.want)
		}
	}
	if desk.IsAside() || !aside.IsAside() {
		t.Errorf("IsAside: desk row %v, aside %v", desk.IsAside(), aside.IsAside())
	}
}

func TestReaders(t *testing.T) {
	m := transcript.Message{
		Author: transcript.Agent("triage", "Triage"),
		// Written by a host without the rules: out of order, the author listed, a duplicate.
		Audience: authors(transcript.Person("ana", "Ana"), opAuthor, transcript.Agent("triage", "Other"),
			transcript.Agent("alpha", "A"), transcript.Person("ana", "Ana Lima"), transcript.System("alert", "")),
	}
	want := authors(opAuthor, transcript.Person("ana", "Ana"), transcript.Agent("alpha", "A"), transcript.Agent("triage", "Triage"), transcript.System("alert", ""))
	if diff := gocmp.Diff(want, m.Readers()); diff != "" {
		t.Errorf("Readers (-want +got):\n%s", diff)
	}
	if got := (transcript.Message{Author: anaAuthor}).Readers(); got != nil {
		t.Errorf("Readers of a desk row = %v, want nil", got)
	}
	// The caller owns the slice.
	r := m.Readers()
	r[0] = transcript.Agent("changed", "")
	if m.Readers()[0] != opAuthor || m.Audience[1] != opAuthor {
		t.Error("Readers returned storage of the message")
	}
}

func TestValidateNewAudience(t *testing.T) {
	many := func(n int) []transcript.Author {
		out := make([]transcript.Author, n)
		for i := range out {
			out[i] = transcript.Agent(strings.Repeat("a", i+1), "")
		}
		return out
	}
	for _, c := range []struct {
		name     string
		audience []transcript.Author
		err      error // nil: valid
	}{
		{"none", nil, nil},
		{"one", authors(triageAuthor), nil},
		{"the operator", authors(opAuthor), nil},
		{"MaxAudience", many(transcript.MaxAudience), nil},
		{"over MaxAudience", many(transcript.MaxAudience + 1), transcript.ErrInvalidAudience},
		{"the author", authors(triageAuthor, anaAuthor), transcript.ErrInvalidAudience},
		{"the author renamed", authors(transcript.Person("ana", "Other")), transcript.ErrInvalidAudience},
		{"a duplicate", authors(triageAuthor, transcript.Agent("triage", "T2")), transcript.ErrInvalidAudience},
		{"an invalid entry", authors(transcript.Agent("", "x")), transcript.ErrInvalidAuthor},
		{"an entry of no kind", authors(transcript.Author{ID: "x"}), transcript.ErrInvalidAudience},
	} {
		err := transcript.Message{Author: anaAuthor, Content: "hi", Audience: c.audience}.ValidateNew()
		switch {
		case c.err == nil && err != nil:
			t.Errorf("%s: %v, want no error", c.name, err)
		case c.err != nil && (!errors.Is(err, c.err) || !errors.Is(err, transcript.ErrInvalidMessage)):
			t.Errorf("%s: %v, want an error matching %v and ErrInvalidMessage", c.name, err, c.err)
		}
	}
}

func TestResolveAudience(t *testing.T) {
	deskRow := &transcript.Message{Seq: 1, Author: anaAuthor, Content: "desk"}
	toTriage := &transcript.Message{Seq: 2, Author: opAuthor, Content: "SECRET instruction", Audience: authors(triageAuthor)}
	twoAgents := &transcript.Message{Seq: 3, Author: anaAuthor, Content: "SECRET", Audience: authors(reviewAuthor, triageAuthor)}
	self := &transcript.Message{Seq: 4, Author: triageAuthor, Content: "SECRET host row", Audience: authors(triageAuthor)}
	for _, c := range []struct {
		name   string
		m      transcript.Message
		parent *transcript.Message
		want   []transcript.Author
		err    error
	}{
		{"a root desk row", transcript.Message{Author: anaAuthor}, nil, nil, nil},
		{"a root aside, sorted", transcript.Message{Author: anaAuthor, Audience: authors(triageAuthor, opAuthor, reviewAuthor)}, nil, authors(opAuthor, reviewAuthor, triageAuthor), nil},
		{"a public reply to a desk row", transcript.Message{Author: triageAuthor}, deskRow, nil, nil},
		{"a private reply to a desk row", transcript.Message{Author: triageAuthor, Audience: authors(anaAuthor)}, deskRow, authors(anaAuthor), nil},
		{"the aside's reader answers", transcript.Message{Author: triageAuthor}, toTriage, authors(opAuthor), nil},
		{"the aside's reader names its readers", transcript.Message{Author: triageAuthor, Audience: authors(transcript.Operator())}, toTriage, authors(opAuthor), nil},
		{"the operator answers its own aside", transcript.Message{Author: opAuthor}, toTriage, authors(triageAuthor), nil},
		{"the operator answers an aside it is not listed in", transcript.Message{Author: opAuthor}, twoAgents, authors(anaAuthor, reviewAuthor, triageAuthor), nil},
		{"a reader answers the others", transcript.Message{Author: reviewAuthor}, twoAgents, authors(anaAuthor, triageAuthor), nil},
		{"labels as given when the set matches", transcript.Message{Author: reviewAuthor, Audience: authors(transcript.Agent("triage", "T"), transcript.Person("ana", "A"))}, twoAgents, authors(transcript.Person("ana", "A"), transcript.Agent("triage", "T")), nil},
		{"an outsider", transcript.Message{Author: reviewAuthor}, toTriage, nil, transcript.ErrNotReadable},
		{"an outsider naming the readers", transcript.Message{Author: reviewAuthor, Audience: authors(opAuthor, triageAuthor)}, toTriage, nil, transcript.ErrNotReadable},
		{"another audience", transcript.Message{Author: triageAuthor, Audience: authors(reviewAuthor)}, toTriage, nil, transcript.ErrInvalidAudience},
		{"a smaller audience", transcript.Message{Author: reviewAuthor, Audience: authors(anaAuthor)}, twoAgents, nil, transcript.ErrInvalidAudience},
		{"readers that leave no audience", transcript.Message{Author: triageAuthor}, self, nil, transcript.ErrInvalidAudience},
	} {
		got, err := c.m.ResolveAudience(c.parent)
		switch {
		case c.err == nil && err != nil:
			t.Errorf("%s: %v, want no error", c.name, err)
		case c.err != nil && (!errors.Is(err, c.err) || !errors.Is(err, transcript.ErrInvalidMessage)):
			t.Errorf("%s: %v, want an error matching %v and ErrInvalidMessage", c.name, err, c.err)
		case err != nil && strings.Contains(err.Error(), "SECRET"):
			t.Errorf("%s: the error quotes the parent: %v", c.name, err)
		case err != nil && c.err == transcript.ErrNotReadable && strings.Contains(err.Error(), "triage"):
			t.Errorf("%s: the refusal of an outsider names the aside's readers: %v", c.name, err)
		case c.err == nil && !gocmp.Equal(got, c.want):
			t.Errorf("%s: audience %v, want %v", c.name, got, c.want)
		}
	}
	// The result is a new slice.
	given := authors(triageAuthor, opAuthor)
	got, _ := transcript.Message{Author: anaAuthor, Audience: given}.ResolveAudience(nil)
	got[0] = reviewAuthor
	if given[0] != triageAuthor || given[1] != opAuthor {
		t.Errorf("ResolveAudience changed the caller's audience: %v", given)
	}
}

// TestProjectElisions pins elisions on a small desk, value by value.
func TestProjectElisions(t *testing.T) {
	ctx := context.Background()
	l := memlog.New()
	for _, m := range []transcript.Message{
		{Author: opAuthor, Content: "1 desk"},
		{Author: opAuthor, Content: "2 SECRET for triage", Audience: authors(triageAuthor)},
		{Author: transcript.Operator(), Content: "3 SECRET again", Audience: authors(transcript.Agent("triage", "Triage v2"))},
		{Parent: 2, Author: triageAuthor, Content: "4 SECRET answer"},
		{Author: anaAuthor, Content: "5 SECRET ana to the operator", Audience: authors(opAuthor)},
		{Author: anaAuthor, Content: "6 desk"},
		{Parent: 1, Author: anaAuthor, Content: "7 SECRET private reply", Audience: authors(triageAuthor)},
		{Parent: 1, Author: reviewAuthor, Content: "8 reply"},
		{Author: opAuthor, Content: "9 SECRET", Audience: authors(triageAuthor)},
	} {
		if _, err := l.Append(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	project := func(q transcript.Query) transcript.Projection {
		t.Helper()
		p, err := transcript.Project(ctx, l, q)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	toTriage := authors(opAuthor, transcript.Agent("triage", "Triage v2"))
	cases := []struct {
		name   string
		q      transcript.Query
		seqs   []transcript.Sequence
		elided []transcript.Elision
	}{
		{"channel, an outsider", transcript.Query{Viewer: reviewAuthor},
			[]transcript.Sequence{1, 6, 8},
			[]transcript.Elision{
				{From: 2, Through: 3, Count: 2, Readers: toTriage}, // one run: same readers, labels of the newest
				{From: 5, Through: 5, Count: 1, Readers: authors(opAuthor, anaAuthor)},
				{From: 9, Through: 9, Count: 1, Readers: authors(opAuthor, triageAuthor)},
			}},
		{"channel, triage", transcript.Query{Viewer: triageAuthor},
			[]transcript.Sequence{1, 2, 3, 4, 6, 7, 9}, // 7 is 1's first reply for triage
			[]transcript.Elision{{From: 5, Through: 5, Count: 1, Readers: authors(opAuthor, anaAuthor)}}},
		{"channel, the operator", transcript.Query{Viewer: opAuthor},
			[]transcript.Sequence{1, 2, 3, 4, 5, 6, 7, 9}, []transcript.Elision{}},
		{"channel, window 2: the floor cuts older elisions", transcript.Query{Viewer: reviewAuthor, Window: 2},
			[]transcript.Sequence{6, 8},
			[]transcript.Elision{{From: 9, Through: 9, Count: 1, Readers: authors(opAuthor, triageAuthor)}}},
		{"thread of 2, an outsider", transcript.Query{Viewer: reviewAuthor, Conversation: thread(2)},
			nil,
			[]transcript.Elision{{From: 2, Through: 4, Count: 2, Readers: authors(opAuthor, triageAuthor)}}},
		{"thread of 1, an outsider", transcript.Query{Viewer: reviewAuthor, Conversation: thread(1)},
			[]transcript.Sequence{1, 8},
			[]transcript.Elision{{From: 7, Through: 7, Count: 1, Readers: authors(anaAuthor, triageAuthor)}}},
	}
	for _, c := range cases {
		p := project(c.q)
		if diff := gocmp.Diff(c.seqs, seqs(p.Messages)); diff != "" && !(len(c.seqs) == 0 && len(p.Messages) == 0) {
			t.Errorf("%s: messages (-want +got):\n%s", c.name, diff)
		}
		if diff := gocmp.Diff(c.elided, p.Elided); diff != "" {
			t.Errorf("%s: elided (-want +got):\n%s", c.name, diff)
		}
	}
}

func TestElide(t *testing.T) {
	a := func(seq transcript.Sequence, audience ...transcript.Author) *transcript.Message {
		return &transcript.Message{Seq: seq, Author: anaAuthor, Content: "x", Audience: audience}
	}
	msgs := []transcript.Message{{Seq: 4}, {Seq: 9}}
	got := transcript.Elide([]*transcript.Message{
		a(1, triageAuthor), a(2, transcript.Agent("triage", "new label")), // one run
		a(3, reviewAuthor),                     // other readers
		a(5, reviewAuthor), a(6, reviewAuthor), // message 4 between
		a(7, triageAuthor, reviewAuthor), // other readers
		a(8, reviewAuthor, triageAuthor), // the same, listed in another order
		a(10, opAuthor),                  // message 9 between
	}, msgs)
	want := []transcript.Elision{
		{From: 1, Through: 2, Count: 2, Readers: authors(anaAuthor, transcript.Agent("triage", "new label"))},
		{From: 3, Through: 3, Count: 1, Readers: authors(anaAuthor, reviewAuthor)},
		{From: 5, Through: 6, Count: 2, Readers: authors(anaAuthor, reviewAuthor)},
		{From: 7, Through: 8, Count: 2, Readers: authors(anaAuthor, reviewAuthor, triageAuthor)},
		{From: 10, Through: 10, Count: 1, Readers: authors(opAuthor, anaAuthor)},
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("Elide (-want +got):\n%s", diff)
	}
	if transcript.Elide(nil, msgs) != nil {
		t.Error("Elide of no rows is not nil")
	}
}
