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
