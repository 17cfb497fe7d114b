package logtest

import (
	"context"
	"fmt"
	"slices"

	"github.com/sharedesk/transcript"
)

// checkSliceOwnership: the reader owns the pages it is given, audiences included. A page it
// keeps does not change under later reads (no reused buffer), and a page it modifies, up to
// its capacity and its audiences' capacity, changes neither the log nor later pages (no
// internal slice handed out).
func checkSliceOwnership(ctx context.Context, d Desk, r *report) {
	rows, ok := fill(ctx, d, 30, r)
	if !ok {
		return
	}
	desc := newestFirst(rows)

	held, err := readOne(ctx, d, 0, 10)
	if err != nil {
		r.add(err)
		return
	}
	kept := slices.Clone(held.Messages)
	checkReads(ctx, d, desc, []bound{{held.Next, 10}, {0, 5}, {0, transcript.PageSize}, {rows[3].Seq, 2}}, r)
	if i := firstDifference(held.Messages, kept); i >= 0 {
		r.add(failf(kindOwnership, "%s: a page the reader kept changed under later reads: page[%d]: got %s, want %s", held, i, describeAt(held.Messages, i), describeAt(kept, i)))
	}

	for _, b := range []bound{{0, 10}, {rows[20].Seq, 4}} {
		p, err := readOne(ctx, d, b.before, b.limit)
		if err != nil {
			r.add(err)
			return
		}
		scribble(p.Messages[:cap(p.Messages)])
		for _, again := range []bound{b, {0, transcript.PageSize}} {
			p, err := readOne(ctx, d, again.before, again.limit)
			if err == nil {
				err = checkPage(p, below(desc, again.before))
			}
			if err != nil {
				r.add(failf(kindOwnership, "after the reader modified the page of %s: %w", page{before: b.before, limit: b.limit}, err))
			}
		}
	}
}

// scribble overwrites rows with rows of its own, as a reader that reuses a page may: their
// audiences too, up to their capacity, first.
func scribble(rows []transcript.Message) {
	for i := range rows {
		a := rows[i].Audience
		for j := range a[:cap(a)] {
			a[:cap(a)][j] = transcript.Agent("scribble", "written by the reader")
		}
		rows[i] = transcript.Message{
			Seq:     transcript.Sequence(1_000_000 + i),
			Author:  transcript.System("scribble", "written by the reader"),
			Content: "written by the reader",
		}
	}
}

// firstDifference returns the index of the first row where got and want differ, or -1.
func firstDifference(got, want []transcript.Message) int {
	for i := range max(len(got), len(want)) {
		if i >= len(got) || i >= len(want) || !sameRow(got[i], want[i]) {
			return i
		}
	}
	return -1
}

// describeAt describes rows[i], or says there is no such row.
func describeAt(rows []transcript.Message, i int) string {
	if i >= len(rows) {
		return fmt.Sprintf("no row (%d rows)", len(rows))
	}
	return describe(rows[i])
}
