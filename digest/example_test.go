package digest_test

import (
	"context"
	"fmt"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/memlog"
)

// A desk's older history folds into a digest, and a view with Digest set carries it below
// its window.
func ExampleFold() {
	ctx := context.Background()
	desk := memlog.New()
	ana, triage := transcript.Person("ana", "Ana"), transcript.Agent("triage", "Triage")
	say := func(a transcript.Author, parent transcript.Sequence, text string) {
		if _, err := desk.Append(ctx, transcript.Message{Author: a, Parent: parent, Content: text}); err != nil {
			panic(err)
		}
	}
	say(ana, 0, "The deploy failed on staging.")
	say(triage, 1, "The migration timed out; retrying with a smaller batch.")
	say(ana, 0, "Release notes are due Friday.")
	say(triage, 0, "Staging is green again.")
	say(ana, 0, "Thanks! Who reviews the patch?")

	channel := transcript.Conversation{Desk: "eng"}
	policy := digest.Policy{KeepLive: 2, FoldAfter: 2}
	d, stored, err := digest.Fold(ctx, desk, digest.Extractive{}, policy, channel)
	fmt.Println(stored, err, d.Through, d.Rows, d.Digester)

	view, _ := transcript.Project(ctx, desk, transcript.Query{Conversation: channel, Window: 2, Digest: true})
	fmt.Printf("digest through %d:\n%s\n", view.Digest.Through, view.Digest.Text)
	for _, m := range view.Messages {
		fmt.Printf("#%d %s: %s\n", m.Seq, m.Author.Label, m.Content)
	}
	// Output:
	// true <nil> 3 3 extractive
	// digest through 3:
	// #1 Ana (person:ana): The deploy failed on staging.
	// #2 Triage (agent:triage) ↳ #1: The migration timed out; retrying with a smaller batch.
	// #3 Ana (person:ana): Release notes are due Friday.
	// #4 Triage: Staging is green again.
	// #5 Ana: Thanks! Who reviews the patch?
}
