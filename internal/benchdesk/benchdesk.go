// Package benchdesk holds the material the benchmarks build their desks from, so that the
// root package's and the stores' benchmarks measure rows of the same shape.
package benchdesk

import (
	"math/rand/v2"
	"strings"

	"github.com/sharedesk/transcript"
)

// Authors are the desk's cast: an operator, two people, three agents and two system notices.
var Authors = []transcript.Author{
	transcript.Operator(),
	transcript.Person("ana", "Ana Lima"),
	transcript.Person("raj", "Raj Patel"),
	transcript.Agent("triage", "Triage"),
	transcript.Agent("coder", "Coder"),
	transcript.Agent("reviewer", "Reviewer"),
	transcript.System("workflow", "Workflow"),
	transcript.System("alert", "Alerts"),
}

// Contents are the non-blank contents rows draw from: 64 texts of 20 to about 400 bytes,
// the same on every run. Rows share them; a Message copy copies only the string header, as
// with any host.
var Contents = func() []string {
	words := strings.Fields("the deploy failed on staging because the migration timed out; " +
		"retrying with a smaller batch fixed it, please review the patch before noon and " +
		"tell me if the alert thresholds still make sense for the weekend traffic")
	r := rand.New(rand.NewPCG(7, 7))
	out := make([]string, 64)
	for i := range out {
		var sb strings.Builder
		for sb.Len() < 20+r.IntN(380) {
			if sb.Len() > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(words[r.IntN(len(words))])
		}
		out[i] = sb.String()
	}
	return out
}()

// Blanks are the blank contents: white space that strings.TrimSpace and SQL's trim remove.
var Blanks = []string{"", " ", "\n\t "}
