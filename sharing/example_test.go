package sharing_test

import (
	"context"
	"fmt"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/sharing"
)

// One agent's turns on a shared channel: prepare, apply, append its reply, note it present,
// commit — and what a crash between append and commit does.
func Example() {
	ctx := context.Background()
	desk := memlog.New()
	eng := transcript.Conversation{Desk: "eng"}
	ana := transcript.Person("ana", "Ana")
	triage := transcript.Agent("triage", "Triage")
	review := transcript.Agent("review", "Reviewer")
	say := func(a transcript.Author, parent transcript.Sequence, text string) transcript.Message {
		m, err := desk.Append(ctx, transcript.Message{Author: a, Parent: parent, Content: text})
		if err != nil {
			panic(err)
		}
		return m
	}
	show := func(turn string, msgs []transcript.Message) {
		fmt.Println(turn)
		for _, m := range msgs {
			fmt.Printf("  #%d %s: %s\n", m.Seq, m.Author.Label, m.Content)
		}
	}

	q1 := say(ana, 0, "Is the release branch cut?")
	// The agent starts from a full projection and the state it seeds.
	proj, _ := transcript.Project(ctx, desk, transcript.Query{Conversation: eng})
	show("triage sees:", proj.Messages)
	committed := sharing.Initialized(eng, proj.Head)

	// Turn 1: prepare, answer, note the answer present, commit.
	plan, _ := sharing.Prepare(ctx, desk, sharing.Query{Desired: eng, Current: eng, State: committed})
	show("turn 1 delta:", plan.Delta.Messages)
	answer := say(triage, q1.Seq, "Yes, at 14:00.")
	next := plan.Delta.Next
	_ = next.NotePresent(answer.Seq)
	committed = next

	// A peer replies between two of triage's turns: the next delta holds only that.
	say(review, 0, "Blocking: the changelog is missing.")
	plan, _ = sharing.Prepare(ctx, desk, sharing.Query{Desired: eng, Current: eng, State: committed})
	show("turn 2 delta:", plan.Delta.Messages)
	say(triage, 0, "I'll write the changelog.")
	// Crash: the reply is appended but the state is never committed.

	plan, _ = sharing.Prepare(ctx, desk, sharing.Query{Desired: eng, Current: eng, State: committed})
	show("after the crash, turn 2 again:", plan.Delta.Messages)

	// Moving to a thread is a reinitialization, with its reason.
	thread := transcript.Conversation{Desk: "eng", Thread: q1.Seq}
	plan, _ = sharing.Prepare(ctx, desk, sharing.Query{Desired: thread, Current: eng, State: committed})
	fmt.Println("in the thread:", plan.Reinitialize)
	// Output:
	// triage sees:
	//   #1 Ana: Is the release branch cut?
	// turn 1 delta:
	// turn 2 delta:
	//   #3 Reviewer: Blocking: the changelog is missing.
	// after the crash, turn 2 again:
	//   #3 Reviewer: Blocking: the changelog is missing.
	//   #4 Triage: I'll write the changelog.
	// in the thread: conversation_changed
}
