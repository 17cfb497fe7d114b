package main

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/render"
	"github.com/sharedesk/transcript/sharing"
)

func runDemo(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "demo", "[flags]", `
Build a demo desk in the database (or reuse it when it is there): an operator, two people,
three agents, CI notices, several threads, a busy stretch and a private instruction from the
operator to Triage (an aside). Then show, side by side, what each agent sees of the channel
and of one thread (Triage reads the aside; the others see only an elision in its place); run
one sharing cycle (Triage takes a turn, Reviewer replies in between, and Triage's next delta
holds only that reply, with Reviewer's name on it); and show one reinitialization with its
reason.`)
	var df deskFlags
	addWritingDeskFlags(fs, &df, "demo")
	window := fs.Int("window", 8, "messages per view")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usageErrorf("demo takes no arguments")
	}
	start := time.Now()
	st, err := df.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	rows, marks := scenario()
	d := &demo{e: e, st: st, desk: df.desk, window: *window, rows: rows, marks: marks}
	for _, step := range []func(context.Context) error{d.build, d.views, d.sharingCycle, d.reinitialization} {
		if err := step(ctx); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stdout, "\n%s\n", e.paint(ansiDim, fmt.Sprintf("Done in %s. The desk stays in %s as %q: try\n  go run ./cmd/transcript view --desk %s --as agent:triage --thread %d\n  go run ./cmd/transcript view --desk %s --as agent:review --window %d",
		time.Since(start).Round(time.Millisecond), df.db, df.desk, df.desk, marks.deployThread, df.desk, *window)))
	return nil
}

type demo struct {
	e      *env
	st     store
	desk   string
	window int
	rows   []transcript.Message // the scenario
	marks  landmarks
}

func (d *demo) log() transcript.Log { return d.st.Log(d.desk) }

func (d *demo) heading(s string) {
	fmt.Fprintf(d.e.stdout, "\n%s\n", d.e.paint(ansiBold, s))
}

// build appends the scenario to an empty desk, or checks that a non-empty desk holds it.
func (d *demo) build(ctx context.Context) error {
	rows := d.rows
	first, err := d.log().ReadBefore(ctx, 2, 1)
	if err != nil {
		return err
	}
	if len(first.Messages) == 0 {
		if err := d.st.AppendBatch(ctx, d.desk, rows); err != nil {
			return err
		}
		fmt.Fprintf(d.e.stdout, "Built desk %q: %d messages, among them a busy stretch of %d CI notices and a private\ninstruction from the Operator to Triage (#%d), which Triage answers for the Operator alone.\n", d.desk, len(rows), busyStretch, d.marks.aside)
		return nil
	}
	if got := first.Messages[0]; got.Content != rows[0].Content || !got.Author.Same(rows[0].Author) {
		return fmt.Errorf("desk %q already holds other messages; pick another with --desk", d.desk)
	}
	fmt.Fprintf(d.e.stdout, "Reusing desk %q (%d scenario messages, plus earlier demo runs' sharing cycles).\n", d.desk, len(rows))
	return nil
}

var agents = []transcript.Author{triage, review, scribe}

// views shows side by side what each agent sees of the channel and of the deploy thread,
// each agent's own view: Triage reads the operator's aside, the others see an elision.
func (d *demo) views(ctx context.Context) error {
	for _, v := range []struct {
		title string
		conv  transcript.Conversation
	}{
		{"The channel: every root and its first reply, never a thread's interior", transcript.Conversation{Desk: d.desk}},
		{fmt.Sprintf("Thread #%d: the root and its direct replies", d.marks.deployThread), transcript.Conversation{Desk: d.desk, Thread: d.marks.deployThread}},
	} {
		views := make([]transcript.Projection, len(agents))
		for i, a := range agents {
			p, err := transcript.Project(ctx, d.log(), transcript.Query{Conversation: v.conv, Window: d.window, Viewer: a})
			if err != nil {
				return err
			}
			views[i] = p
		}
		d.heading(fmt.Sprintf("%s (newest %d; %s)", v.title, d.window, rowsRead(views)))
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

// rowsRead says how much the views' walks read: "32 rows read in 1 read" when they all read
// the same, else the range of each.
func rowsRead(views []transcript.Projection) string {
	minScan, maxScan, minReads, maxReads := views[0].Scanned, views[0].Scanned, views[0].Reads, views[0].Reads
	for _, p := range views[1:] {
		minScan, maxScan = min(minScan, p.Scanned), max(maxScan, p.Scanned)
		minReads, maxReads = min(minReads, p.Reads), max(maxReads, p.Reads)
	}
	if minScan == maxScan && minReads == maxReads {
		return fmt.Sprintf("%d rows read in %s", minScan, plural(minReads, "read"))
	}
	return fmt.Sprintf("%d to %d rows read in %d to %d reads", minScan, maxScan, minReads, maxReads)
}

// explainElisions says, under a table of views, who sees an elision and the line view
// prints for it; it prints nothing when no view elides anything.
func (d *demo) explainElisions(views []transcript.Projection) {
	var who []string
	var line string
	for i, p := range views {
		if len(p.Elided) > 0 {
			who = append(who, agents[i].Label)
			line = render.ElisionLine(p.Elided[len(p.Elided)-1])
		}
	}
	if len(who) == 0 {
		return
	}
	fmt.Fprintf(d.e.stdout, "%s may not read the Operator's aside to Triage: their views hold an elision in its place,\nwith nothing of its content, which view prints as\n  %s\n",
		names(who), d.e.paint(ansiDim, line))
}

// names returns "A", "A and B" or "A, B and C".
func names(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// cells returns the column of a view: its messages and its elisions in sequence order.
func (d *demo) cells(viewer transcript.Author, p transcript.Projection) []cell {
	out := make([]cell, 0, len(p.Messages)+len(p.Elided))
	elided := p.Elided
	for _, m := range p.Messages {
		for len(elided) > 0 && elided[0].From < m.Seq {
			out = append(out, elisionCell(elided[0]))
			elided = elided[1:]
		}
		out = append(out, d.cell(viewer, m))
	}
	for _, e := range elided {
		out = append(out, elisionCell(e))
	}
	return out
}

// elisionCell is an elision in a column, short enough to fit one: "#2339 ⋯ aside of
// Operator and Triage". It holds no content: an elision has none.
func elisionCell(e transcript.Elision) cell {
	span := fmt.Sprintf("#%d", e.From)
	if e.Through != e.From {
		span += fmt.Sprintf("–%d", e.Through)
	}
	what := "aside"
	if e.Count != 1 {
		what = fmt.Sprintf("%d asides", e.Count)
	}
	readers := make([]string, len(e.Readers))
	for i, a := range e.Readers {
		readers[i] = a.Label
		if readers[i] == "" {
			readers[i] = a.String()
		}
	}
	return cell{text: fmt.Sprintf("%s ⋯ %s of %s", span, what, names(readers)), color: ansiDim}
}

// cell is one message in a column: its text and its colour.
type cell struct{ text, color string }

func (d *demo) cell(viewer transcript.Author, m transcript.Message) cell {
	who := m.Author.Label
	own := viewer.Same(m.Author)
	if own {
		who = "you"
	}
	reply := ""
	if m.Parent != 0 {
		reply = "↳"
	}
	return cell{text: fmt.Sprintf("#%d %s%s: %s", m.Seq, reply, who, m.Content), color: authorColor(m, own)}
}

// sideBySide prints columns of cells, each cut to fit the terminal's width.
func (d *demo) sideBySide(titles []string, cols [][]cell) {
	const gap = "  "
	width := max((d.e.width-len(gap)*(len(cols)-1))/len(cols), 20)
	rows := 0
	for _, c := range cols {
		rows = max(rows, len(c))
	}
	var b strings.Builder
	for i, t := range titles {
		if i > 0 {
			b.WriteString(gap)
		}
		b.WriteString(d.e.paint(ansiBold, fit(t, width)))
	}
	b.WriteString("\n")
	for r := range rows {
		for i, c := range cols {
			if i > 0 {
				b.WriteString(gap)
			}
			var x cell
			if r < len(c) {
				x = c[r]
			}
			b.WriteString(d.e.paint(x.color, fit(x.text, width)))
		}
		b.WriteString("\n")
	}
	fmt.Fprint(d.e.stdout, b.String())
}

// fit cuts s to width runes, with an ellipsis when it is cut, and pads it to width.
func fit(s string, width int) string {
	if n := utf8.RuneCountInString(s); n <= width {
		return s + strings.Repeat(" ", width-n)
	}
	r := []rune(s)
	return string(r[:width-1]) + "…"
}

// sharingCycle: Triage takes a turn in a new thread, Reviewer replies in between, and
// Triage's next delta holds only Reviewer's reply.
func (d *demo) sharingCycle(ctx context.Context) error {
	d.heading("A sharing cycle: Triage takes two turns, Reviewer replies in between")
	out := d.e.stdout
	q, err := d.st.Append(ctx, d.desk, transcript.Message{Author: ana, Content: "Is the release branch for 2.4 cut?"})
	if err != nil {
		return err
	}
	thread := transcript.Conversation{Desk: d.desk, Thread: q.Seq}
	state := sharing.Initialized(thread, q.Seq-1)
	fmt.Fprintf(out, "Ana opens thread #%d; Triage joins it with a state at watermark %d: nothing of it seen yet.\n", q.Seq, q.Seq-1)

	plan, err := sharing.Prepare(ctx, d.log(), sharing.Query{Desired: thread, Current: thread, State: state, Viewer: triage})
	if err != nil {
		return err
	}
	reply, err := d.st.Append(ctx, d.desk, transcript.Message{Author: triage, Parent: q.Seq, Content: "Yes: cut at 14:00 from main at 9f3c2e1."})
	if err != nil {
		return err
	}
	next := plan.Delta.Next
	if err := next.NotePresent(reply.Seq); err != nil {
		return err
	}
	state = next // committed once the reply is durably appended
	fmt.Fprintf(out, "Turn 1: Triage's delta holds %s; it replies (#%d), notes its reply present and commits.\n", seqList(plan.Delta.Messages), reply.Seq)

	peer, err := d.st.Append(ctx, d.desk, transcript.Message{Author: review, Parent: q.Seq, Content: "Blocking: two changelog entries are missing. Fixing now."})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Meanwhile Reviewer replies (#%d).\n", peer.Seq)

	plan, err = sharing.Prepare(ctx, d.log(), sharing.Query{Desired: thread, Current: thread, State: state, Viewer: triage})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Turn 2: Triage's delta holds %s, not its own reply, and its model reads it as:\n\n", seqList(plan.Delta.Messages))
	for _, turn := range render.Turns(triage, plan.Delta.Messages, plan.Delta.Elided...) {
		fmt.Fprintf(out, "  %s %s\n", d.e.paint(ansiDim, string(turn.Role)+":"), d.e.paint(ansiCyan, strings.ReplaceAll(turn.Content, "\n", "\n        ")))
	}
	return nil
}

// reinitialization: the scribe's state predates the busy stretch, so its delta cannot be
// given inside the scan limit.
func (d *demo) reinitialization(ctx context.Context) error {
	d.heading("A reinitialization: Scribe was away during the busy stretch")
	channel := transcript.Conversation{Desk: d.desk}
	state := sharing.Initialized(channel, d.marks.scribeLastSeen)
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
	fmt.Fprintf(d.e.stdout, "Scribe's state stands at #%d; more than %d rows have landed since, so Prepare asks for a\nreinitialization: %s. Scribe starts over from a fresh channel projection (%d messages,\nhead #%d) and a new state at its head.\n",
		d.marks.scribeLastSeen, transcript.ScanLimit, d.e.paint(ansiRed+ansiBold, plan.Reinitialize.String()), len(p.Messages), p.Head)
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
