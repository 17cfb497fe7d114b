// Package benchdesk holds the material the benchmarks build their desks from, so that the
// root package's and the stores' benchmarks measure rows of the same shape.
package benchdesk

import (
	"math/rand/v2"
	"slices"
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

// Row is one row of a generated stream. It holds no pointers, so a stream of a million rows
// costs the garbage collector nothing while it is kept.
type Row struct {
	Parent  uint32 // Seq of the parent in the stream (row i has Seq i+1), 0 for a root
	Author  uint8  // index into Authors
	Content uint8  // index into Contents, or len(Contents)+i for Blanks[i]
}

// Text returns the row's content.
func (r Row) Text() string {
	if int(r.Content) < len(Contents) {
		return Contents[r.Content]
	}
	return Blanks[int(r.Content)-len(Contents)]
}

// Stream returns n rows of a busy channel, oldest first (row i has Seq i+1), the same for a
// given n on every run: mostly roots, 30% of them opening a thread of 1 to 5 replies (a fifth
// of those to the thread's previous reply), each reply going to one of the 8 newest open
// threads (at most 32 stay open, the oldest are abandoned), so threads interleave with newer
// roots; 2% of rows are blank. A stream's first rows do not depend on n.
func Stream(n int) []Row {
	type openThread struct {
		root, last uint32 // last: the thread's newest reply, 0 if none
		left       int    // replies still to come
	}
	r := rand.New(rand.NewPCG(1, 2))
	rows := make([]Row, n)
	var open []openThread // newest last
	for i := range rows {
		seq := uint32(i + 1)
		row := Row{Author: uint8(r.IntN(len(Authors))), Content: uint8(r.IntN(len(Contents)))}
		if r.IntN(50) == 0 {
			row.Content = uint8(len(Contents) + r.IntN(len(Blanks)))
		}
		if len(open) > 0 && r.IntN(100) < 45 {
			k := len(open) - 1 - r.IntN(min(len(open), 8)) // one of the 8 newest threads
			t := &open[k]
			row.Parent = t.root
			if t.last != 0 && r.IntN(5) == 0 {
				row.Parent = t.last // a reply to a reply
			}
			t.last = seq
			if t.left--; t.left == 0 {
				open = slices.Delete(open, k, k+1)
			}
		} else if r.IntN(10) >= 7 {
			open = append(open, openThread{root: seq, left: 1 + r.IntN(5)})
			if len(open) > 32 {
				open = slices.Delete(open, 0, 1)
			}
		}
		rows[i] = row
	}
	return rows
}
