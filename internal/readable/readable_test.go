package readable_test

import (
	"context"
	"errors"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/readable"
	"github.com/sharedesk/transcript/memlog"
)

// TestRow checks that Row finds a row the viewer may read, and answers a
// row that does not exist and an aside the viewer may not read alike.
func TestRow(t *testing.T) {
	ctx := context.Background()
	ana, triage, review := transcript.Person("ana", "Ana"), transcript.Agent("triage", ""), transcript.Agent("review", "")
	log := memlog.New()
	for _, m := range []transcript.Message{
		{Author: ana, Content: "desk row"},
		{Author: ana, Content: "secret", Audience: []transcript.Author{triage}},
	} {
		if _, err := log.Append(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		seq    transcript.Sequence
		viewer transcript.Author
		ok     bool
	}{
		{1, review, true},
		{2, triage, true},
		{2, ana, true},
		{2, transcript.Operator(), true},
		{2, review, false},
		{3, triage, false},
		{0, triage, false},
		{^transcript.Sequence(0), triage, false},
	} {
		m, ok, err := readable.Row(ctx, log, c.seq, c.viewer)
		if err != nil || ok != c.ok {
			t.Errorf("Row(%d, %v) = ok %v, %v; want ok %v", c.seq, c.viewer, ok, err, c.ok)
			continue
		}
		if ok && m.Seq != c.seq {
			t.Errorf("Row(%d, %v) returned row %d", c.seq, c.viewer, m.Seq)
		}
		if !ok && (m.Seq != 0 || m.Content != "") {
			t.Errorf("Row(%d, %v) returned %+v with ok false", c.seq, c.viewer, m)
		}
	}
	m, _, _ := readable.Row(ctx, log, 2, triage)
	m.Audience[0] = review
	if again, _, _ := readable.Row(ctx, log, 2, triage); !again.Audience[0].Same(triage) {
		t.Error("writing into a returned row's audience changed the log")
	}
	_, _, err := readable.Row(ctx, failingLog{}, 1, triage)
	var re *transcript.ReadError
	if !errors.As(err, &re) {
		t.Errorf("Row over a failing host = %v, want a *ReadError", err)
	}
}

type failingLog struct{}

func (failingLog) ReadBefore(context.Context, transcript.Sequence, int) (transcript.Page, error) {
	return transcript.Page{}, errors.New("host down")
}

// TestHead checks that Head is 0 for a log that holds no row, and then its newest row's
// Seq, an aside's too.
func TestHead(t *testing.T) {
	ctx := context.Background()
	log := memlog.New()
	if h, err := readable.Head(ctx, log); h != 0 || err != nil {
		t.Fatalf("Head of an empty log = %d, %v; want 0", h, err)
	}
	ana, triage := transcript.Person("ana", "Ana"), transcript.Agent("triage", "")
	for _, m := range []transcript.Message{{Author: ana, Content: "one"}, {Author: ana, Content: "aside", Audience: []transcript.Author{triage}}} {
		if _, err := log.Append(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if h, err := readable.Head(ctx, log); h != 2 || err != nil {
		t.Fatalf("Head = %d, %v; want 2", h, err)
	}
}
