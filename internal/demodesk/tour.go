package demodesk

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/internal/console"
	"github.com/sharedesk/transcript/render"
	"github.com/sharedesk/transcript/sharing"
)

// Terminal is where a tour prints: Out, in colour when Color (Out is a colour terminal), its
// tables shared out over Width columns.
type Terminal struct {
	Out   io.Writer
	Color bool
	Width int
}

// paint returns s in color on a colour terminal (console.Paint).
func (t Terminal) paint(color, s string) string { return console.Paint(t.Color, color, s) }

// Tour builds the demo desk in desk of st as Load does, the channel's digest leaving the
// newest window messages unfolded, and walks a newcomer through it on t: side by side, what
// each agent sees of the channel and of one thread, window messages each (Triage reads the
// Operator's aside; the others see an elision in its place); one sharing cycle, Triage's two
// turns with Reviewer's reply in between; and one reinitialization with its reason, whose
// fresh view begins with the channel's digest. It adds to the desk only the scenario it
// builds and the channel's digest, and returns the scenario's Landmarks.
func Tour(ctx context.Context, st Appender, desk string, window int, t Terminal) (Landmarks, error) {
	rows, marks := Scenario()
	tr := &tour{t: t, st: st, desk: desk, window: window, rows: rows, marks: marks}
	for _, step := range []func(context.Context) error{tr.build, tr.views, tr.sharingCycle, tr.reinitialization} {
		if err := step(ctx); err != nil {
			return Landmarks{}, err
		}
	}
	return marks, nil
}

// Load builds the demo desk in desk of st, as Tour begins with Window messages per view: it
// builds the Scenario, or finds it there from an earlier run (Build), says on w which it
// was, and folds the channel's digest (FoldDigest). It is what serve --demo does before it
// serves the desk.
func Load(ctx context.Context, st Appender, desk string, w io.Writer) error {
	rows, marks := Scenario()
	tr := &tour{t: Terminal{Out: w}, st: st, desk: desk, window: Window, rows: rows, marks: marks}
	return tr.build(ctx)
}

// Window is how many messages each of the demo's views holds unless told otherwise, and so
// how many of the channel's newest messages the digest Load folds leaves out.
const Window = 8

// tour is one walk through the demo desk.
type tour struct {
	t      Terminal
	st     Appender
	desk   string
	window int
	rows   []transcript.Message // the scenario
	marks  Landmarks
	head   transcript.Sequence // the desk's newest row, once build has run
}

func (d *tour) log() transcript.Log { return d.st.Log(d.desk) }

func (d *tour) heading(s string) {
	fmt.Fprintf(d.t.Out, "\n%s\n", d.t.paint(console.Bold, s))
}

// build appends the scenario to an empty desk, or checks that a non-empty desk holds it
// (an earlier run's), adding nothing: running the demo again shows the same desk again. Then
// it folds the channel's digest, leaving the newest window messages (FoldDigest), which adds
// nothing to a desk an earlier run folded as far.
func (d *tour) build(ctx context.Context) error {
	built, head, err := Build(ctx, d.st, d.desk, d.rows)
	if err != nil {
		return err
	}
	d.head = head
	if built {
		fmt.Fprintf(d.t.Out, "Built desk %q: %d messages, among them a busy stretch of %d CI notices and a private\ninstruction from the Operator to Triage (#%d), which Triage answers for the Operator alone.\n", d.desk, len(d.rows), BusyStretch, d.marks.Aside)
	} else {
		fmt.Fprintf(d.t.Out, "Desk %q already holds the demo, from an earlier run: nothing added.\n", d.desk)
	}
	return FoldDigest(ctx, d.log(), transcript.Conversation{Desk: d.desk}, d.window)
}

// before returns the exclusive bound that ends a read just after row seq: 0 (the newest row)
// when seq is the desk's head, so that no bound names a row the desk does not hold.
func (d *tour) before(seq transcript.Sequence) transcript.Sequence {
	if seq >= d.head {
		return 0
	}
	return seq + 1
}

// agents are the demo desk's agents, each a column of the tour's tables.
var agents = []transcript.Author{Triage, Review, Scribe}

// views shows side by side what each agent sees of the channel and of the deploy thread,
// each agent's own view: Triage reads the operator's aside, the others see an elision. The
// views are those before the sharing cycle's thread, which sharingCycle walks through.
func (d *tour) views(ctx context.Context) error {
	for _, v := range []struct {
		title string
		conv  transcript.Conversation
	}{
		{"The channel: every root and its first reply, never a thread's interior", transcript.Conversation{Desk: d.desk}},
		{fmt.Sprintf("Thread #%d: the root and its direct replies", d.marks.DeployThread), transcript.Conversation{Desk: d.desk, Thread: d.marks.DeployThread}},
	} {
		views := make([]transcript.Projection, len(agents))
		for i, a := range agents {
			p, err := transcript.Project(ctx, d.log(), transcript.Query{Conversation: v.conv, Before: d.marks.Question, Window: d.window, Viewer: a})
			if err != nil {
				return err
			}
			views[i] = p
		}
		d.heading(v.title)
		fmt.Fprintln(d.t.Out, d.t.paint(console.Dim, whatWasRead(d.window, views, d.head)))
		cols := make([][]cell, len(agents))
		titles := make([]string, len(agents))
		for i, a := range agents {
			titles[i] = a.Label + " sees"
			cols[i] = cells(a, views[i])
		}
		d.t.sideBySide(titles, cols)
		d.explainElisions(views)
	}
	return nil
}

// whatWasRead says, for someone new to the walk, what the columns are and how little of the
// desk it took to build them: the messages each view holds and the rows and queries it
// read, a range when the views differ.
func whatWasRead(window int, views []transcript.Projection, head transcript.Sequence) string {
	minScan, maxScan, minReads, maxReads := views[0].Scanned, views[0].Scanned, views[0].Reads, views[0].Reads
	for _, p := range views[1:] {
		minScan, maxScan = min(minScan, p.Scanned), max(maxScan, p.Scanned)
		minReads, maxReads = min(minReads, p.Reads), max(maxReads, p.Reads)
	}
	scanned, queries := fmt.Sprint(minScan), fmt.Sprintf("%d queries", minReads)
	switch {
	case minReads != maxReads:
		queries = fmt.Sprintf("%d to %d queries", minReads, maxReads)
	case minReads == 1:
		queries = "one query"
	}
	if minScan != maxScan {
		scanned = fmt.Sprintf("%d to %d", minScan, maxScan)
	}
	return fmt.Sprintf("Each column is what one agent is shown: up to %d of the newest messages it may read. To find them,\neach view read only %s of the desk's %d messages, in %s to the database.", window, scanned, head, queries)
}

// explainElisions says, under a table of views, who sees an elision in place of the
// operator's aside; it prints nothing when no view elides anything.
func (d *tour) explainElisions(views []transcript.Projection) {
	var who []string
	for i, p := range views {
		if len(p.Elided) > 0 {
			who = append(who, agents[i].Label)
		}
	}
	if len(who) == 0 {
		return
	}
	fmt.Fprintf(d.t.Out, "\n%s may not read the Operator's aside to Triage (#%d): in its place their views hold\nan elision, which says who may read it and nothing of what it says, worded as view prints it.\n",
		names(who), d.marks.Aside)
}

// names returns "A", "A and B" or "A, B and C".
func names(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// sharingCycle walks through Triage's two turns in the scenario's last thread, each
// prepared as it was when it came: Triage's first delta holds Ana's question, it answers,
// Reviewer replies in between, and Triage's next delta holds only Reviewer's reply. It adds
// nothing to the desk: the thread is the scenario's, and each turn's delta reads only the
// rows that had landed by then.
func (d *tour) sharingCycle(ctx context.Context) error {
	d.heading("A sharing cycle: Triage takes two turns, Reviewer replies in between")
	out := d.t.Out
	q, answer, peer := d.marks.Question, d.marks.Answer, d.marks.PeerReply
	thread := transcript.Conversation{Desk: d.desk, Thread: q}
	state := sharing.Initialized(thread, q-1)
	fmt.Fprintf(out, "Ana opens thread #%d. Triage joins it having seen everything up to #%d: nothing of the thread yet.\n", q, q-1)

	plan, err := sharing.Prepare(ctx, d.log(), sharing.Query{Desired: thread, Current: thread, State: state, Before: answer, Viewer: Triage})
	if err != nil {
		return err
	}
	next := plan.Delta.Next
	if err := next.NotePresent(answer); err != nil {
		return err
	}
	state = next // committed once the answer is durably appended
	fmt.Fprintf(out, "Turn 1: Triage's delta (what is new for it) holds %s. It answers (#%d); once the answer\nis stored, Triage has seen everything up to #%d, and its own answer.\n", seqList(plan.Delta.Messages), answer, q)
	fmt.Fprintf(out, "Meanwhile Reviewer replies (#%d).\n", peer)

	plan, err = sharing.Prepare(ctx, d.log(), sharing.Query{Desired: thread, Current: thread, State: state, Before: d.before(peer), Viewer: Triage})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Turn 2: Triage's delta holds %s, not its own reply, and its model reads it as:\n\n", seqList(plan.Delta.Messages))
	for _, turn := range render.Turns(Triage, plan.Delta.Messages, plan.Delta.Elided...) {
		fmt.Fprintf(out, "  %s %s\n", d.t.paint(console.Dim, string(turn.Role)+":"), d.t.paint(console.Cyan, strings.ReplaceAll(turn.Content, "\n", "\n        ")))
	}
	return nil
}

// reinitialization: what the scribe has seen predates the busy stretch, so its delta cannot
// be given inside the scan limit; its fresh view begins with the channel's digest, which
// build folded.
func (d *tour) reinitialization(ctx context.Context) error {
	d.heading("A reinitialization: Scribe was away during the busy stretch")
	channel := transcript.Conversation{Desk: d.desk}
	state := sharing.Initialized(channel, d.marks.ScribeLastSeen)
	plan, err := sharing.Prepare(ctx, d.log(), sharing.Query{Desired: channel, Current: channel, State: state, Viewer: Scribe})
	if err != nil {
		return err
	}
	if plan.Reinitialize == 0 {
		return fmt.Errorf("expected a reinitialization, got a delta of %d messages", len(plan.Delta.Messages))
	}
	p, err := transcript.Project(ctx, d.log(), transcript.Query{Conversation: channel, Window: d.window, Viewer: Scribe, Digest: true})
	if err != nil {
		return err
	}
	fmt.Fprintf(d.t.Out, "Scribe has seen everything up to message #%d. Since then %d messages have come in, more\nthan the %d one delta may look through, so instead of a delta Scribe is told to start\nover: %s. It starts from a fresh view of the channel (its newest %d messages, up to\n#%d), and from then on it has seen everything up to #%d.\n",
		d.marks.ScribeLastSeen, p.Head-d.marks.ScribeLastSeen, transcript.ScanLimit, d.t.paint(console.Red+console.Bold, plan.Reinitialize.String()), len(p.Messages), p.Head, p.Head)
	if p.Digest == nil {
		return nil // a store that keeps no digests
	}
	fmt.Fprintf(d.t.Out, "\nThe view begins with the channel's digest: the %d older messages every participant may\nread (never the Operator's aside) folded into a few lines, as view --digest shows it:\n\n", p.Digest.Rows)
	var b strings.Builder
	if err := (render.View{Digest: p.Digest}).Text(&b, Scribe, console.Style(d.t.Color)); err != nil {
		return err
	}
	for line := range strings.Lines(b.String()) {
		fmt.Fprintf(d.t.Out, "  %s", line)
	}
	return nil
}

// DigestBudget is the most characters the demo channel's digest holds: a few lines of its
// outline, so that it fits a screen.
const DigestBudget = 400

// FoldDigest folds conversation c of log, when it keeps digests (digest.Store), with the
// Extractive digester as far as the demo's policy allows: every message it qualifies but
// the newest keep, into a digest of at most DigestBudget characters. A log that keeps no
// digests is left as it is.
func FoldDigest(ctx context.Context, log transcript.Log, c transcript.Conversation, keep int) error {
	ds, ok := log.(digest.Store)
	if !ok {
		return nil
	}
	_, _, err := digest.FoldBacklog(ctx, ds, digest.Extractive{}, digest.Policy{KeepLive: keep, Budget: DigestBudget}, c, maxFolds)
	return err
}

// maxFolds bounds FoldDigest: the scenario's channel folds in fewer generations.
const maxFolds = 50

// seqList returns "#12 (Ana Ruiz), #14 (Reviewer)" or "nothing".
func seqList(msgs []transcript.Message) string {
	if len(msgs) == 0 {
		return "nothing"
	}
	parts := make([]string, len(msgs))
	for i, m := range msgs {
		parts[i] = fmt.Sprintf("#%d (%s)", m.Seq, m.Author.Label)
	}
	return strings.Join(parts, ", ")
}
