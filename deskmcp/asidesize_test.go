package deskmcp_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/deskmcp"
)

// TestAsideSizeUnseen: the view tool's answer does not depend on the size of the asides
// the participant may not read (a store ends its pages early at transcript.PageBytes, so a
// read count would tell). Two desks differ only in the size of five asides between ana and
// agent B; agent A's views of both are the same, read count included.
func TestAsideSizeUnseen(t *testing.T) {
	var views [2]transcript.Projection
	for i, size := range []int{10, transcript.MaxContent - 1} {
		st, _ := sqliteStore(t)
		for j := range 40 {
			appendAs(t, st, transcript.Message{Author: ana, Content: "public"})
			if j%8 == 3 {
				appendAs(t, st, transcript.Message{Author: ana, Content: strings.Repeat("a", size), Audience: []transcript.Author{agentB}})
			}
		}
		a := connect(t, service(t, st), agentA)
		views[i], _ = a.View(deskmcp.ViewArgs{Window: 60})
	}
	if diff := cmp.Diff(views[0], views[1], cmpopts.IgnoreFields(transcript.Message{}, "At")); diff != "" {
		t.Errorf("agent A's view differs with the asides' size (-small +large):\n%s", diff)
	}
}
