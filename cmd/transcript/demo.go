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
three agents, CI notices, several threads and a busy stretch. Then show, side by side, what
each agent sees of the channel and of one thread; run one sharing cycle (Triage takes a
turn, Reviewer replies in between, and Triage's next delta holds only that reply, with
Reviewer's name on it); and show one reinitialization with its reason.`)
	var df deskFlags
	addDeskFlags(fs, &df, "demo")
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
	fmt.Fprintf(e.stdout, "\n%s\n", e.paint(ansiDim, fmt.Sprintf("Done in %s. The desk stays in %s as %q: try\n  go run ./cmd/transcript view --desk %s --as agent:triage --thread %d",
		time.Since(start).Round(time.Millisecond), df.db, df.desk, df.desk, marks.deployThread)))
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
		fmt.Fprintf(d.e.stdout, "Built desk %q: %d messages, among them a busy stretch of %d CI notices.\n", d.desk, len(rows), busyStretch)
		return nil
	}
	if got := first.Messages[0]; got.Content != rows[0].Content || !got.Author.Same(rows[0].Author) {
		return fmt.Errorf("desk %q already holds other messages; pick another with --desk", d.desk)
	}
	fmt.Fprintf(d.e.stdout, "Reusing desk %q (%d scenario messages, plus earlier demo runs' sharing cycles).\n", d.desk, len(rows))
	return nil
}

var agents = []transcript.Author{triage, review, scribe}

// views shows side by side what each agent sees of the channel and of the deploy thread.
func (d *demo) views(ctx context.Context) error {
	for _, v := range []struct {
		title string
		conv  transcript.Conversation
	}{
		{"The channel: every root and its first reply, never a thread's interior", transcript.Conversation{Desk: d.desk}},
		{fmt.Sprintf("Thread #%d: the root and its direct replies", d.marks.deployThread), transcript.Conversation{Desk: d.desk, Thread: d.marks.deployThread}},
	} {
		p, err := transcript.Project(ctx, d.log(), transcript.Query{Conversation: v.conv, Window: d.window})
		if err != nil {
			return err
		}
		d.heading(fmt.Sprintf("%s (newest %d; %d rows read in %s)", v.title, d.window, p.Scanned, plural(p.Reads, "read")))
		cols := make([][]cell, len(agents))
		titles := make([]string, len(agents))
		for i, a := range agents {
			titles[i] = a.Label + " sees"
			for _, m := range p.Messages {
				cols[i] = append(cols[i], d.cell(a, m))
			}
		}
		d.sideBySide(titles, cols)
	}
	return nil
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

	plan, err := sharing.Prepare(ctx, d.log(), sharing.Query{Desired: thread, Current: thread, State: state})
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

	plan, err = sharing.Prepare(ctx, d.log(), sharing.Query{Desired: thread, Current: thread, State: state})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Turn 2: Triage's delta holds %s, not its own reply, and its model reads it as:\n\n", seqList(plan.Delta.Messages))
	for _, turn := range render.Turns(triage, plan.Delta.Messages) {
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
	plan, err := sharing.Prepare(ctx, d.log(), sharing.Query{Desired: channel, Current: channel, State: state})
	if err != nil {
		return err
	}
	if plan.Reinitialize == 0 {
		return fmt.Errorf("expected a reinitialization, got a delta of %d messages", len(plan.Delta.Messages))
	}
	p, err := transcript.Project(ctx, d.log(), transcript.Query{Conversation: channel, Window: d.window})
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
