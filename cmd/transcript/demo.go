package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/demodesk"
	"github.com/sharedesk/transcript/render"
	"github.com/sharedesk/transcript/sharing"
)

func runDemo(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "demo", "[flags]", `
Build a demo desk in the database: an operator, two people, three agents, CI notices,
several threads, a busy stretch and a private instruction from the operator to Triage (an
aside). Then show, side by side, what each agent sees of the channel and of one thread
(Triage reads the aside; the others see only an elision in its place); walk through one
sharing cycle (Triage takes a turn, Reviewer replies in between, and Triage's next delta
holds only that reply, with Reviewer's name on it); and show one reinitialization with its
reason. Run again on the same database, the demo adds nothing: it shows the desk an earlier
run built.`)
	var df deskFlags
	addWritingDeskFlags(fs, &df, "demo")
	window := fs.Int("window", 8, "messages per view")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return noArguments(fs)
	}
	start := time.Now()
	st, err := df.withIndexProgress(e).open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	rows, marks := demodesk.Scenario()
	d := &demo{e: e, st: st, desk: df.desk, window: *window, rows: rows, marks: marks}
	for _, step := range []func(context.Context) error{d.build, d.views, d.sharingCycle, d.reinitialization} {
		if err := step(ctx); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stdout, "\n%s\n", e.paint(ansiDim, fmt.Sprintf("Done in %s. The desk stays in %s as %q: try\n  go run ./cmd/transcript view --desk %s --as agent:triage --thread %d\n  go run ./cmd/transcript view --desk %s --as agent:review --window %d",
		time.Since(start).Round(time.Millisecond), df.db, df.desk, df.desk, marks.DeployThread, df.desk, *window)))
	return nil
}

type demo struct {
	e      *env
	st     store
	desk   string
	window int
	rows   []transcript.Message // the scenario
	marks  demodesk.Landmarks
	head   transcript.Sequence // the desk's newest row, once build has run
}

func (d *demo) log() transcript.Log { return d.st.Log(d.desk) }

func (d *demo) heading(s string) {
	fmt.Fprintf(d.e.stdout, "\n%s\n", d.e.paint(ansiBold, s))
}

// build appends the scenario to an empty desk, or checks that a non-empty desk holds it
// (an earlier run's), adding nothing: running the demo again shows the same desk again.
func (d *demo) build(ctx context.Context) error {
	built, head, err := demodesk.Build(ctx, d.st, d.desk, d.rows)
	if err != nil {
		return err
	}
	d.head = head
	if built {
		fmt.Fprintf(d.e.stdout, "Built desk %q: %d messages, among them a busy stretch of %d CI notices and a private\ninstruction from the Operator to Triage (#%d), which Triage answers for the Operator alone.\n", d.desk, len(d.rows), demodesk.BusyStretch, d.marks.Aside)
		return nil
	}
	fmt.Fprintf(d.e.stdout, "Desk %q already holds the demo, from an earlier run: nothing added.\n", d.desk)
	return nil
}

// before returns the exclusive bound that ends a read just after row seq: 0 (the newest row)
// when seq is the desk's head, so that no bound names a row the desk does not hold.
func (d *demo) before(seq transcript.Sequence) transcript.Sequence {
	if seq >= d.head {
		return 0
	}
	return seq + 1
}

// The demo desk's cast, as the demo names them.
var (
	triage, review, scribe = demodesk.Triage, demodesk.Review, demodesk.Scribe
	agents                 = []transcript.Author{triage, review, scribe}
)

// views shows side by side what each agent sees of the channel and of the deploy thread,
// each agent's own view: Triage reads the operator's aside, the others see an elision. The
// views are those before the sharing cycle's thread, which sharingCycle walks through.
func (d *demo) views(ctx context.Context) error {
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
		fmt.Fprintln(d.e.stdout, d.e.paint(ansiDim, whatWasRead(d.window, views, d.head)))
		cols := make([][]cell, len(agents))
		titles := make([]string, len(agents))
		for i, a := range agents {
			titles[i] = a.Label + " sees"
			cols[i] = d.cells(a, views[i])
		}
		d.sideBySide(titles, cols)
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
func (d *demo) explainElisions(views []transcript.Projection) {
	var who []string
	for i, p := range views {
		if len(p.Elided) > 0 {
			who = append(who, agents[i].Label)
		}
	}
	if len(who) == 0 {
		return
	}
	fmt.Fprintf(d.e.stdout, "\n%s may not read the Operator's aside to Triage (#%d): in its place their views hold\nan elision, which says who may read it and nothing of what it says, worded as view prints it.\n",
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
func (d *demo) sharingCycle(ctx context.Context) error {
	d.heading("A sharing cycle: Triage takes two turns, Reviewer replies in between")
	out := d.e.stdout
	q, answer, peer := d.marks.Question, d.marks.Answer, d.marks.PeerReply
	thread := transcript.Conversation{Desk: d.desk, Thread: q}
	state := sharing.Initialized(thread, q-1)
	fmt.Fprintf(out, "Ana opens thread #%d. Triage joins it having seen everything up to #%d: nothing of the thread yet.\n", q, q-1)

	plan, err := sharing.Prepare(ctx, d.log(), sharing.Query{Desired: thread, Current: thread, State: state, Before: answer, Viewer: triage})
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

	plan, err = sharing.Prepare(ctx, d.log(), sharing.Query{Desired: thread, Current: thread, State: state, Before: d.before(peer), Viewer: triage})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Turn 2: Triage's delta holds %s, not its own reply, and its model reads it as:\n\n", seqList(plan.Delta.Messages))
	for _, turn := range render.Turns(triage, plan.Delta.Messages, plan.Delta.Elided...) {
		fmt.Fprintf(out, "  %s %s\n", d.e.paint(ansiDim, string(turn.Role)+":"), d.e.paint(ansiCyan, strings.ReplaceAll(turn.Content, "\n", "\n        ")))
	}
	return nil
}

// reinitialization: what the scribe has seen predates the busy stretch, so its delta cannot
// be given inside the scan limit.
func (d *demo) reinitialization(ctx context.Context) error {
	d.heading("A reinitialization: Scribe was away during the busy stretch")
	channel := transcript.Conversation{Desk: d.desk}
	state := sharing.Initialized(channel, d.marks.ScribeLastSeen)
	plan, err := sharing.Prepare(ctx, d.log(), sharing.Query{Desired: channel, Current: channel, State: state, Viewer: scribe})
	if err != nil {
		return err
	}
	if plan.Reinitialize == 0 {
		return fmt.Errorf("expected a reinitialization, got a delta of %d messages", len(plan.Delta.Messages))
	}
	p, err := transcript.Project(ctx, d.log(), transcript.Query{Conversation: channel, Window: d.window, Viewer: scribe})
	if err != nil {
		return err
	}
	fmt.Fprintf(d.e.stdout, "Scribe has seen everything up to message #%d. Since then %d messages have come in, more\nthan the %d one delta may look through, so instead of a delta Scribe is told to start\nover: %s. It starts from a fresh view of the channel (its newest %d messages, up to\n#%d), and from then on it has seen everything up to #%d.\n",
		d.marks.ScribeLastSeen, p.Head-d.marks.ScribeLastSeen, transcript.ScanLimit, d.e.paint(ansiRed+ansiBold, plan.Reinitialize.String()), len(p.Messages), p.Head, p.Head)
	return nil
}

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

// plural returns "1 read" or "3 reads".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
