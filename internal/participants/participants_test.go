package participants_test

import (
	"cmp"
	"fmt"
	"slices"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/participants"
	"github.com/sharedesk/transcript/memlog"
)

// TestSet: each identity once, with the first label it was given (a later label fills an
// empty one), sorted by kind then id.
func TestSet(t *testing.T) {
	s := participants.Set{}
	s.Add(transcript.Agent("b", "Newest"))
	s.Add(transcript.Agent("b", "Older"))
	s.Add(transcript.Person("a", ""))
	s.Add(transcript.Person("a", "Ana"))
	s.Add(transcript.Agent("a", ""))
	want := []transcript.Author{transcript.Person("a", "Ana"), transcript.Agent("a", ""), transcript.Agent("b", "Newest")}
	slices.SortFunc(want, func(x, y transcript.Author) int {
		return cmp.Or(cmp.Compare(x.Kind, y.Kind), cmp.Compare(x.ID, y.ID))
	})
	if got := s.Sorted(); !slices.Equal(got, want) {
		t.Errorf("Sorted = %v, want %v", got, want)
	}
	if !s.Has(transcript.Agent("b", "")) || s.Has(transcript.Agent("c", "")) {
		t.Error("Has: a held identity is not held, or one never added is")
	}
	if got := (participants.Set{}).Sorted(); got == nil || len(got) != 0 {
		t.Errorf("an empty Set's Sorted = %#v, want an empty slice", got)
	}
}

// TestScan reads authors and audiences newest first, up to max rows, says whether it read
// the whole log, and stops as soon as stop says so, reading past ScanLimit in several walks.
func TestScan(t *testing.T) {
	ctx := t.Context()
	log := memlog.New()
	rows := transcript.ScanLimit + 100
	for i := range rows {
		m := transcript.Message{Author: transcript.Agent(fmt.Sprint("a", i%7), ""), Content: "x"}
		if i == 0 {
			m.Author = transcript.Person("first", "First")
			m.Audience = []transcript.Author{transcript.Agent("reader", "")}
		}
		if _, err := log.Append(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	all := participants.Set{}
	read, done, err := all.Scan(ctx, log, rows+10, nil)
	if err != nil || read != rows || !done {
		t.Fatalf("Scan of the whole log = %d, %v, %v; want %d, true", read, done, err, rows)
	}
	if !all.Has(transcript.Person("first", "")) || !all.Has(transcript.Agent("reader", "")) || len(all) != 9 {
		t.Errorf("Scan found %v, want the 7 agents, the first row's author and its reader", all.Sorted())
	}
	some := participants.Set{}
	if read, done, err := some.Scan(ctx, log, 10, nil); err != nil || read != 10 || done {
		t.Errorf("Scan of 10 rows = %d, %v, %v; want 10, false", read, done, err)
	}
	found := participants.Set{}
	read, done, err = found.Scan(ctx, log, rows, func() bool { return found.Has(transcript.Agent("a3", "")) })
	if err != nil || done || read > transcript.PageSize {
		t.Errorf("Scan until a3 = %d, %v, %v; want it to stop within a page", read, done, err)
	}
	if n, _, _ := (participants.Set{}).Scan(ctx, log, rows, func() bool { return true }); n != 0 {
		t.Errorf("Scan told to stop at once read %d rows", n)
	}
}

// TestUnseen: a participant neither the rows nor known name is unseen, with the desk's
// participants of its kind; one they name, and the operator, are not.
func TestUnseen(t *testing.T) {
	ctx := t.Context()
	log := memlog.New()
	for _, m := range []transcript.Message{
		{Author: transcript.Person("ana", "Ana"), Content: "hi"},
		{Author: transcript.Agent("triage", "Triage"), Content: "aside", Audience: []transcript.Author{transcript.Agent("review", "")}},
	} {
		if _, err := log.Append(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	known := []transcript.Author{transcript.Agent("bot", "")}
	a, ok, err := participants.Unseen(ctx, log, known, transcript.Agent("triagge", ""), 100)
	want := []transcript.Author{transcript.Agent("bot", ""), transcript.Agent("review", ""), transcript.Agent("triage", "Triage")}
	if err != nil || !ok || !slices.Equal(a.Kin, want) || a.Read != 2 || !a.All {
		t.Errorf("Unseen(agent:triagge) = %+v, %v, %v; want kin %v, 2 rows, all", a, ok, err, want)
	}
	for _, p := range []transcript.Author{transcript.Agent("review", ""), transcript.Agent("bot", ""), transcript.Person("ana", ""), transcript.Operator()} {
		if a, ok, err := participants.Unseen(ctx, log, known, p, 100); ok || err != nil {
			t.Errorf("Unseen(%v) = %+v, %v, %v; want seen", p, a, ok, err)
		}
	}
}
