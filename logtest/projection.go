package logtest

import (
	"context"
	"fmt"
	"slices"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
)

// projectionRows is the size of the Projection check's desk: busier than ScanLimit, so
// sparse views end partial and thread roots are fetched by the extra read.
const projectionRows = transcript.ScanLimit + 552

// checkProjection: transcript.Project over the desk agrees with transcript.Project over a
// memlog holding the rows Append returned, for the channel view and thread views (an old
// busy thread, a thread from the middle, the newest thread, a blank root, a reply, a row that
// does not exist), several Before bounds and windows, for viewers who read every aside, some
// or none. Messages, elisions, Head and Partial must agree;
// Reads and Scanned may differ, since a host may return short pages.
func checkProjection(ctx context.Context, d Desk, r *report) {
	rows, ok := fill(ctx, d, projectionRows, r)
	if !ok {
		return
	}
	reference, err := memlog.From(rows)
	if err != nil {
		r.errorf("memlog.From over the rows Append returned: %w", err)
		return
	}
	for _, q := range projectionQueries(rows) {
		want, err := transcript.Project(ctx, reference, q)
		if err != nil {
			r.errorf("%s over memlog: %w", describeQuery(q), err)
			return
		}
		got, err := transcript.Project(ctx, d, q)
		if err == nil {
			err = compareProjections(got, want)
		}
		if err != nil {
			r.add(failf(kindProjection, "%s: %w", describeQuery(q), err))
		}
	}
}

// projectionQueries returns the queries the Projection check compares.
func projectionQueries(rows []transcript.Message) []transcript.Query {
	head := rows[len(rows)-1].Seq
	threads := []transcript.Sequence{0, rows[0].Seq, head + 1}
	firstRoot := func(from int, blank bool) {
		for _, m := range rows[from:] {
			if m.IsRoot() && m.Blank() == blank {
				threads = append(threads, m.Seq)
				return
			}
		}
	}
	firstRoot(len(rows)/2, false)
	firstRoot(0, true)
	for i := len(rows) - 1; i >= 0; i-- {
		if rows[i].IsRoot() {
			threads = append(threads, rows[i].Seq) // the newest thread
			break
		}
	}
	for i := len(rows) - 1; i >= 0; i-- {
		if !rows[i].IsRoot() {
			threads = append(threads, rows[i].Seq) // a reply, viewed as a thread
			break
		}
	}
	third, scan := rows[len(rows)/3].Seq, rows[len(rows)-transcript.ScanLimit/2].Seq
	bounds := []struct {
		before transcript.Sequence
		window int
	}{
		{0, 0}, {0, 1}, {0, 100}, {head, 0}, {scan, 100}, {third, 1}, {third, 0}, {rows[40].Seq, 100}, {1, 0},
	}
	var qs []transcript.Query
	for i, thread := range threads {
		for j, b := range bounds {
			qs = append(qs, transcript.Query{
				Conversation: transcript.Conversation{Desk: "logtest", Thread: thread},
				Before:       b.before,
				Window:       b.window,
				Viewer:       viewers[(i+j)%len(viewers)],
			})
		}
	}
	return qs
}

// viewers are whom the Projection check's views are for: the operator reads every aside, an
// agent and a person some, a stranger and the zero Author none.
var viewers = []transcript.Author{
	transcript.Operator(), authors[2], authors[1], transcript.Agent("stranger", "Stranger"), {},
}

// compareProjections compares what Project returned over the desk with what it returned
// over memlog.
func compareProjections(got, want transcript.Projection) error {
	switch {
	case got.Head != want.Head:
		return fmt.Errorf("got Head %d, want %d", got.Head, want.Head)
	case got.Partial != want.Partial:
		return fmt.Errorf("got Partial %t, want %t", got.Partial, want.Partial)
	}
	if i := firstDifference(got.Messages, want.Messages); i >= 0 {
		return fmt.Errorf("got %d messages, want %d: message %d: got %s, want %s",
			len(got.Messages), len(want.Messages), i, describeAt(got.Messages, i), describeAt(want.Messages, i))
	}
	if !slices.EqualFunc(got.Elided, want.Elided, sameElision) {
		return fmt.Errorf("got elisions %+v, want %+v", got.Elided, want.Elided)
	}
	return nil
}

func sameElision(a, b transcript.Elision) bool {
	return a.From == b.From && a.Through == b.Through && a.Count == b.Count && slices.Equal(a.Readers, b.Readers)
}

func describeQuery(q transcript.Query) string {
	view := "channel"
	if q.Conversation.Thread != 0 {
		view = fmt.Sprintf("thread %d", q.Conversation.Thread)
	}
	return fmt.Sprintf("Project(%s, before %d, window %d, viewer %v)", view, q.Before, q.Window, q.Viewer)
}
