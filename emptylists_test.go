package transcript_test

import (
	"context"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/sharing"
)

// TestResultsHaveNoNilLists: Project, ListThreads, Search, Prepare and the budget's cuts answer
// nothing with empty lists, never nil ones, so that no transport has to turn null into [].
func TestResultsHaveNoNilLists(t *testing.T) {
	ctx := context.Background()
	log := memlog.New()
	channel := transcript.Conversation{Desk: "eng"}
	p, err := transcript.Project(ctx, log, transcript.Query{Conversation: channel})
	if err != nil {
		t.Fatal(err)
	}
	cut := p.DropOldest(0, 1)
	list, err := transcript.ListThreads(ctx, log, transcript.ThreadQuery{})
	if err != nil {
		t.Fatal(err)
	}
	state := sharing.Initialized(channel, 0)
	plan, err := sharing.Prepare(ctx, log, sharing.Query{Desired: channel, Current: channel, State: state})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := log.Append(ctx, transcript.Message{Author: transcript.Person("ana", ""), Content: "hi"}); err != nil {
		t.Fatal(err)
	}
	atBound, err := sharing.Prepare(ctx, log, sharing.Query{Desired: channel, Current: channel, State: sharing.Initialized(channel, 1), Before: 1})
	if err != nil {
		t.Fatal(err)
	}
	full, err := sharing.Prepare(ctx, log, sharing.Query{Desired: channel, Current: channel, State: state})
	if err != nil {
		t.Fatal(err)
	}
	found, err := log.Search(ctx, transcript.SearchQuery{Text: "nowhere"})
	if err != nil {
		t.Fatal(err)
	}
	for name, empty := range map[string]bool{
		"Search: Messages":                    found.Messages != nil,
		"Project: Messages":                   p.Messages != nil,
		"Project: Elided":                     p.Elided != nil,
		"DropOldest: Messages":                cut.Messages != nil,
		"DropOldest: Elided":                  cut.Elided != nil,
		"ListThreads: Threads":                list.Threads != nil,
		"Prepare: Messages":                   plan.Delta.Messages != nil,
		"Prepare: Elided":                     plan.Delta.Elided != nil,
		"Prepare at the watermark: Messages":  atBound.Delta.Messages != nil,
		"Prepare at the watermark: Elided":    atBound.Delta.Elided != nil,
		"Delta.Prefix(0): Messages":           full.Delta.Prefix(0, state).Messages != nil,
		"Delta.Prefix(0): Elided":             full.Delta.Prefix(0, state).Elided != nil,
		"Delta.WithinBytes of none: Messages": plan.Delta.WithinBytes(1, state).Messages != nil,
	} {
		if !empty {
			t.Errorf("%s is nil, want an empty list", name)
		}
	}
}
