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

// Outsider is the viewer of the aside benchmarks: Asides never makes it the author or a
// reader of an aside, so it reads none of them.
var Outsider = transcript.Agent("coder", "Coder")

// asideAudiences are the audiences Asides gives the asides it opens, by the author's index
// in Authors; an author's set never names the author itself or the Outsider.
var asideAudiences = [][]transcript.Author{
	{Authors[3]},             // the operator to Triage
	{Authors[5], Authors[3]}, // Ana to Reviewer and Triage
	{Authors[0]},             // Raj to the operator
	{Authors[1]},             // Triage to Ana
	nil,                      // the Outsider writes no aside
	{Authors[3], Authors[2]}, // Reviewer to Triage and Raj
	{Authors[0]},             // workflow notices to the operator
	{Authors[0], Authors[1]}, // alerts to the operator and Ana
}

// Asides turns about percent of msgs into asides, in place, the same way on every run: a
// root opens an aside when its Seq hashes below percent, and every reply to an aside is an
// aside with its parent's readers, as transcript.Message.ResolveAudience fills them in (a
// reply whose author may not read its parent is rewritten as its parent's author's). msgs
// are a desk's rows, oldest first, with consecutive sequences; a parent below the first is
// a desk row.
func Asides(msgs []transcript.Message, percent int) {
	if len(msgs) == 0 {
		return
	}
	base := msgs[0].Seq
	for i := range msgs {
		m := &msgs[i]
		m.Audience = nil
		if m.Parent < base {
			if m.Parent == 0 && m.Seq*0x9E3779B97F4A7C15>>32%100 < transcript.Sequence(percent) {
				m.Audience = asideAudiences[slices.IndexFunc(Authors, m.Author.Same)]
				m.Audience, _ = m.ResolveAudience(nil) // canonical order, as stores keep it
			}
			continue
		}
		parent := &msgs[m.Parent-base]
		if !parent.IsAside() {
			continue
		}
		if !parent.ReadableBy(m.Author) {
			m.Author = parent.Author
		}
		audience, err := m.ResolveAudience(parent)
		if err != nil {
			panic(err) // the rewrite above keeps the rule: a bug here, not data
		}
		m.Audience = audience
	}
}

// NewMessages returns Stream(n) as messages to append, oldest first: row i becomes Seq i+1
// once appended to an empty desk, so its Parent holds.
func NewMessages(n int) []transcript.Message {
	msgs := make([]transcript.Message, n)
	for i, row := range Stream(n) {
		msgs[i] = transcript.Message{Parent: transcript.Sequence(row.Parent), Author: Authors[row.Author], Content: row.Text()}
	}
	return msgs
}
