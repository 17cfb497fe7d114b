package render_test

import (
	"fmt"
	"os"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/render"
)

// A delta's corrections render among its messages once WithCorrections merges them: here
// Ana's edit of the row the viewer was shown before, and the operator's redaction of
// another, around a new message.
func ExampleWithCorrections() {
	ana := transcript.Person("ana", "Ana")
	viewer := transcript.Agent("triage", "Triage")
	messages := []transcript.Message{{Seq: 8, Author: ana, Content: "Tests are green."}}
	corrections := []transcript.Message{
		{Seq: 7, Corrects: 1, Author: ana, Content: "Deploy at 23:00."},
		{Seq: 9, Corrects: 3, Author: transcript.Operator(), Redacted: true},
	}
	all := render.WithCorrections(messages, corrections)
	for _, turn := range render.Turns(viewer, all) {
		fmt.Println(turn.Content)
	}
	render.Text(os.Stdout, viewer, all)
	// Output:
	// <message seq="7" corrects="1" kind="person" id="ana" label="Ana">
	// Deploy at 23:00.
	// </message>
	// <message seq="8" kind="person" id="ana" label="Ana">
	// Tests are green.
	// </message>
	// <message seq="9" corrects="3" kind="operator" redacted="true"/>
	// #7 Ana (person:ana) edits #1
	//     Deploy at 23:00.
	// #8 Ana (person:ana)
	//     Tests are green.
	// #9 (operator) redacts #3
}

// A projection's digest renders before its first message: in the model formats as the
// first user-side content, in Text as a block of its own. Here the view opens with the
// viewer's own message, so the digest is also what starts Anthropic's exchange.
func ExampleView() {
	ana := transcript.Person("ana", "Ana")
	viewer := transcript.Agent("triage", "Triage")
	p := transcript.Projection{
		Messages: []transcript.Message{
			{Seq: 813, Author: viewer, Content: "Retrying the migration now."},
			{Seq: 814, Author: ana, Content: "Thanks <3"},
		},
		Digest: &transcript.Digest{
			Conversation: transcript.Conversation{Desk: "ops"}, Through: 812, Rows: 780, Generation: 9,
			Digester: "extractive", Text: "Ana (person:ana): why is deploy #41 red?\nTriage (agent:triage): the migration timed out",
		},
	}
	v := render.View{Digest: p.Digest, Messages: p.Messages, Elided: p.Elided}
	for _, turn := range v.Alternating(viewer) {
		fmt.Printf("%s:\n%s\n", turn.Role, turn.Content)
	}
	fmt.Println()
	v.Text(os.Stdout, viewer, nil)
	// Output:
	// user:
	// <digest of="channel" through="812" rows="780" digester="extractive">
	// Ana (person:ana): why is deploy #41 red?
	// Triage (agent:triage): the migration timed out
	// </digest>
	// assistant:
	// Retrying the migration now.
	// user:
	// <message seq="814" kind="person" id="ana" label="Ana">
	// Thanks &lt;3
	// </message>
	//
	// Digest of the channel through #812 · 780 messages · extractive
	//     Ana (person:ana): why is deploy #41 red?
	//     Triage (agent:triage): the migration timed out
	// #813 Triage (agent:triage, you)
	//     Retrying the migration now.
	// #814 Ana (person:ana)
	//     Thanks <3
}
