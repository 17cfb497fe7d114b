package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sharedesk/transcript"
)

// The participants of the aside checks.
var (
	asideOperator = transcript.Operator()
	asideTriage   = transcript.Agent("triage", "Triage")
	asideReview   = transcript.Agent("review", "Reviewer")
	asideAna      = transcript.Person("ana", "Ana")
)

// asideSecret is in the content of every aside the checks write, so that an error quoting
// one shows.
const asideSecret = "SECRET-aside-content"

// Appender is one desk that takes new rows, as memlog.Log and a store's desk do.
type Appender interface {
	Append(ctx context.Context, m transcript.Message) (transcript.Message, error)
	transcript.Log
}

// ReplyRule checks the aside rules on d, a new, empty desk, through single
// appends: audiences stored in canonical order, the reply rule filling in a reply's audience
// from its parent, a private reply to a desk row, every refusal (an invalid, self-naming,
// duplicate or oversized audience; a reply by someone who may not read its parent; a reply
// to an aside naming other readers) with its sentinel, nothing written by a refusal, no
// refusal quoting an aside's content, and every row reading back as Append returned it.
// memlog's tests and the store suite (check "Asides") both run it.
func ReplyRule(t *testing.T, d Appender) {
	t.Helper()
	ctx := t.Context()
	var stored []transcript.Message
	add := func(m transcript.Message, wantAudience []transcript.Author) transcript.Message {
		t.Helper()
		got, err := d.Append(ctx, m)
		if err != nil {
			t.Fatalf("Append(%s): %v", describeAside(m), err)
		}
		if want := transcript.Sequence(len(stored) + 1); got.Seq != want {
			t.Fatalf("Append(%s): seq %d, want %d", describeAside(m), got.Seq, want)
		}
		if diff := cmp.Diff(wantAudience, got.Audience); diff != "" {
			t.Errorf("Append(%s): stored audience (-want +got):\n%s", describeAside(m), diff)
		}
		stored = append(stored, got)
		return got
	}
	refuse := func(name string, m transcript.Message, sentinel error) {
		t.Helper()
		got, err := d.Append(ctx, m)
		switch {
		case err == nil:
			t.Errorf("%s: Append stored row %d, want a refusal matching %v", name, got.Seq, sentinel)
			stored = append(stored, got)
			return
		case !errors.Is(err, transcript.ErrInvalidMessage) || !errors.Is(err, sentinel):
			t.Errorf("%s: error %q, want one matching transcript.ErrInvalidMessage and %v", name, err, sentinel)
		case strings.Contains(err.Error(), asideSecret):
			t.Errorf("%s: the error quotes an aside's content: %q", name, err)
		}
		if got := headOf(t, d); got != transcript.Sequence(len(stored)) {
			t.Errorf("%s: after the refusal the desk's head is %d, want %d", name, got, len(stored))
		}
	}
	op, triage, review, ana := asideOperator, asideTriage, asideReview, asideAna
	msg := func(parent transcript.Sequence, author transcript.Author, content string, audience ...transcript.Author) transcript.Message {
		return transcript.Message{Parent: parent, Author: author, Content: content, Audience: audience}
	}

	add(msg(0, op, "a desk row"), nil)                                                                         // 1
	add(msg(0, op, asideSecret+" 2: for Triage", triage), []transcript.Author{triage})                         // 2
	add(msg(2, triage, asideSecret+" 3: Triage answers"), []transcript.Author{op})                             // 3
	add(msg(2, triage, asideSecret+" 4: naming the operator", op), []transcript.Author{op})                    // 4
	add(msg(0, ana, asideSecret+" 5: Ana to two agents", triage, review), []transcript.Author{review, triage}) // 5
	add(msg(5, review, asideSecret+" 6: Reviewer answers"), []transcript.Author{ana, triage})                  // 6
	add(msg(5, op, asideSecret+" 7: the operator joins in"), []transcript.Author{ana, review, triage})         // 7
	add(msg(1, ana, asideSecret+" 8: a private reply to a desk row", triage), []transcript.Author{triage})     // 8
	add(msg(3, op, asideSecret+" 9: a reply to a reply"), []transcript.Author{triage})                         // 9
	add(msg(1, review, "a public reply"), nil)                                                                 // 10
	// Labels come from the parent's readers as they were written.
	add(msg(5, triage, asideSecret+" 11", review, transcript.Person("ana", "Ana renamed")),
		[]transcript.Author{transcript.Person("ana", "Ana renamed"), review}) // 11

	refuse("a reply by an agent outside the aside", msg(2, review, "may I?"), transcript.ErrNotReadable)
	refuse("a reply by a person outside the aside", msg(3, ana, "may I?", triage), transcript.ErrNotReadable)
	refuse("a reply naming other readers", msg(2, triage, "to the reviewer", review), transcript.ErrInvalidAudience)
	refuse("a reply naming fewer readers", msg(5, review, "to Ana alone", ana), transcript.ErrInvalidAudience)
	refuse("a reply naming more readers", msg(5, review, "and the operator", ana, triage, op), transcript.ErrInvalidAudience)
	refuse("an audience naming its author", msg(0, triage, "to myself", transcript.Agent("triage", "Other label")), transcript.ErrInvalidAudience)
	refuse("an audience naming one participant twice", msg(0, op, "twice", triage, transcript.Agent("triage", "T")), transcript.ErrInvalidAudience)
	refuse("an invalid audience entry", msg(0, op, "nameless", transcript.Agent("", "Nobody")), transcript.ErrInvalidAuthor)
	refuse("an audience entry of unknown kind", msg(0, op, "who", transcript.Author{Kind: 9, ID: "x"}), transcript.ErrInvalidAudience)
	many := make([]transcript.Author, transcript.MaxAudience+1)
	for i := range many {
		many[i] = transcript.Agent(fmt.Sprintf("agent-%02d", i), "")
	}
	refuse("an audience over MaxAudience", msg(0, op, "too many", many...), transcript.ErrInvalidAudience)

	// MaxAudience listed is fine; the operator's reply to it gets all of its readers, one
	// more than MaxAudience, and is not refused for that.
	full := add(msg(0, ana, asideSecret+" full", many[:transcript.MaxAudience]...), many[:transcript.MaxAudience])
	want := append([]transcript.Author{ana}, many[:transcript.MaxAudience]...)
	add(msg(full.Seq, op, asideSecret+" to all of them"), want)

	checkRows(t, "the rows read back after the aside appends", readAllOf(t, d), stored)
}

// describeAside names m for an error message: its parent, author and audience, never its
// content.
func describeAside(m transcript.Message) string {
	return fmt.Sprintf("reply to %d by %s, audience %v", m.Parent, m.Author, m.Audience)
}

// headOf returns the Seq of d's newest row.
func headOf(t *testing.T, d transcript.Log) transcript.Sequence {
	t.Helper()
	page, err := d.ReadBefore(t.Context(), 0, 1)
	if err != nil {
		t.Fatalf("ReadBefore(0, 1): %v", err)
	}
	if len(page.Messages) == 0 {
		return 0
	}
	return page.Messages[0].Seq
}

// readAllOf returns every row of log, oldest first, through a checking transcript.Pager.
func readAllOf(t *testing.T, log transcript.Log) []transcript.Message {
	t.Helper()
	rows, err := ReadLog(t.Context(), log)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// checkAsides: the reply rule through Append (ReplyRule), then through AppendBatch: a batch
// that opens an aside and answers it through transcript.BatchParent gets the filled-in
// audience, and a batch with one refused reply writes nothing. Projections of the stored
// desk for a viewer outside the asides hold none of their content.
func checkAsides(t *testing.T, st Store) {
	ReplyRule(t, DeskOf(st, "replies"))

	const desk = "batch"
	op, triage, review := asideOperator, asideTriage, asideReview
	good := []transcript.Message{
		{Author: op, Content: "desk row"},
		{Author: op, Content: asideSecret + " batch aside", Audience: []transcript.Author{triage}},
		{Parent: transcript.BatchParent(1), Author: triage, Content: asideSecret + " batch answer"},
		{Parent: transcript.BatchParent(0), Author: review, Content: asideSecret + " private note", Audience: []transcript.Author{op}},
	}
	if err := st.AppendBatch(t.Context(), desk, good); err != nil {
		t.Fatalf("AppendBatch of an aside and its answer: %v", err)
	}
	rows := mustReadAll(t, st, desk)
	want := [][]transcript.Author{nil, {triage}, {op}, {op}}
	for i, m := range rows {
		if i < len(want) && !cmp.Equal(m.Audience, want[i]) {
			t.Errorf("batch row %d: audience %v, want %v", m.Seq, m.Audience, want[i])
		}
	}
	for _, bad := range []struct {
		name     string
		msgs     []transcript.Message
		sentinel error
	}{
		{"a reply by an outsider to an aside of the batch", []transcript.Message{
			{Author: op, Content: "ok"},
			{Author: op, Content: asideSecret, Audience: []transcript.Author{triage}},
			{Parent: transcript.BatchParent(1), Author: review, Content: "may I?"},
		}, transcript.ErrNotReadable},
		{"a reply by an outsider to a stored aside", []transcript.Message{
			{Author: op, Content: "ok"},
			{Parent: 2, Author: review, Content: "may I?"},
		}, transcript.ErrNotReadable},
		{"a reply to a stored aside naming other readers", []transcript.Message{
			{Parent: 2, Author: triage, Content: "to the reviewer", Audience: []transcript.Author{review}},
		}, transcript.ErrInvalidAudience},
		{"an invalid audience last", []transcript.Message{
			{Author: op, Content: "ok"},
			{Author: op, Content: "self", Audience: []transcript.Author{op}},
		}, transcript.ErrInvalidAudience},
	} {
		err := st.AppendBatch(t.Context(), desk, bad.msgs)
		switch {
		case !errors.Is(err, transcript.ErrInvalidMessage) || !errors.Is(err, bad.sentinel):
			t.Errorf("AppendBatch with %s: error %v, want one matching transcript.ErrInvalidMessage and %v", bad.name, err, bad.sentinel)
		case strings.Contains(err.Error(), asideSecret):
			t.Errorf("AppendBatch with %s: the error quotes an aside's content: %q", bad.name, err)
		}
		if got := head(t, st, desk); got != transcript.Sequence(len(good)) {
			t.Errorf("AppendBatch with %s: head %d after the refusal, want %d", bad.name, got, len(good))
		}
	}

	// The store's rows through the walk: the reviewer reads none of the asides it is not in.
	for _, d := range []string{"replies", desk} {
		p, err := transcript.Project(t.Context(), st.Log(d), transcript.Query{Viewer: review, Window: 100})
		if err != nil {
			t.Fatalf("Project of desk %q for the reviewer: %v", d, err)
		}
		for _, m := range p.Messages {
			if !m.ReadableBy(review) {
				t.Errorf("desk %q: the reviewer's view holds row %d, which it may not read", d, m.Seq)
			}
		}
		if d == desk && (len(p.Elided) != 1 || p.Elided[0].From != 2 || p.Elided[0].Count != 1) {
			t.Errorf("desk %q: the reviewer's elisions are %+v, want row 2 alone", d, p.Elided)
		}
	}
}
