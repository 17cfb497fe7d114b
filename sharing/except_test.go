package sharing_test

import (
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/sharing"
)

// TestPrepareExceptAuthor: the rows of Query.ExceptAuthor are not in the delta, take none
// of its byte budget and are not counted as remaining, Next commits past them, and they
// still part the elisions around them, as they do in the delta without the field.
func TestPrepareExceptAuthor(t *testing.T) {
	ana, bo, triage := transcript.Person("ana", "Ana"), transcript.Person("bo", "Bo"), transcript.Agent("triage", "Triage")
	rows := []transcript.Message{
		{Seq: 1, Author: bo, Content: "aside one", Audience: []transcript.Author{triage}},
		{Seq: 2, Author: ana, Content: strings.Repeat("a", 900)},
		{Seq: 3, Author: bo, Content: "aside two", Audience: []transcript.Author{triage}},
		{Seq: 4, Author: ana, Content: strings.Repeat("b", 900)},
		{Seq: 5, Author: bo, Content: "small news"},
		{Seq: 6, Author: bo, Content: strings.Repeat("c", 1000)},
		{Seq: 7, Author: ana, Content: "mine"},
	}
	log, err := memlog.From(rows)
	if err != nil {
		t.Fatal(err)
	}
	from := sharing.Initialized(eng, 0)
	q := sharing.Query{Desired: eng, Current: eng, State: from, Viewer: ana, ExceptAuthor: ana, MaxBytes: 1000}
	plan, err := sharing.Prepare(t.Context(), log, q)
	if err != nil || plan.Reinitialize != 0 {
		t.Fatalf("Prepare: %+v, %v", plan, err)
	}
	readers := []transcript.Author{bo, triage}
	want := sharing.Delta{
		Messages: []transcript.Message{rows[4]},
		Elided: []transcript.Elision{
			{From: 1, Through: 1, Count: 1, Readers: readers},
			{From: 3, Through: 3, Count: 1, Readers: readers}, // row 2, Ana's, parts them
		},
		Next:      sharing.State{Conversation: eng, Watermark: 5, Viewer: transcript.Person("ana", "")},
		Remaining: 1,
	}
	if diff := gocmp.Diff(want, plan.Delta); diff != "" {
		t.Fatalf("delta within 1000 bytes, Ana's rows left out (-want +got):\n%s", diff)
	}

	q.State = plan.Delta.Next
	plan, err = sharing.Prepare(t.Context(), log, q)
	if err != nil || plan.Reinitialize != 0 {
		t.Fatalf("Prepare from its Next: %+v, %v", plan, err)
	}
	want = sharing.Delta{
		Messages: []transcript.Message{rows[5]},
		Elided:   []transcript.Elision{},
		Next:     sharing.State{Conversation: eng, Watermark: 7, Viewer: transcript.Person("ana", "")}, // past Ana's row 7
	}
	if diff := gocmp.Diff(want, plan.Delta); diff != "" {
		t.Fatalf("the next delta (-want +got):\n%s", diff)
	}
}
