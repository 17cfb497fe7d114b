package logtest

import (
	"context"
	"math"

	"github.com/sharedesk/transcript"
)

// bound is one read a check makes: the exclusive bound and the limit.
type bound struct {
	before transcript.Sequence
	limit  int
}

// checkReads makes each read through a new Pager and compares the page with the rows of
// desc (newest first) below its bound; see checkPage.
func checkReads(ctx context.Context, d Desk, desc []transcript.Message, reads []bound, r *report) {
	for _, b := range reads {
		p, err := readOne(ctx, d, b.before, b.limit)
		if err == nil {
			err = checkPage(p, below(desc, b.before))
		}
		if err != nil {
			r.add(err)
		}
	}
}

// checkWalks walks d down from each bound and compares every page with desc; see checkWalk.
func checkWalks(ctx context.Context, d Desk, desc []transcript.Message, walks []bound, r *report) {
	for _, b := range walks {
		want := below(desc, b.before)
		pages, err := walk(ctx, d, b.before, b.limit, len(want)+1)
		if err == nil {
			err = checkWalk(pages, want)
		}
		if err != nil {
			r.add(err)
		}
	}
}

// checkEmptyLog: a new desk reads as an empty page with Next == 0 (a cursor on an empty page
// is the Pager's ErrEmptyPageCursor).
func checkEmptyLog(ctx context.Context, d Desk, r *report) {
	for _, b := range []bound{{0, 1}, {0, transcript.PageSize}, {1, 1}, {1000, transcript.PageSize}} {
		p, err := readOne(ctx, d, b.before, b.limit)
		switch {
		case err != nil:
			r.add(err)
		case len(p.Messages) > 0:
			r.add(failf(kindNotEmpty, "%s: got %d rows, the newest %s, want an empty page: newDesk must return a new, empty desk", p, len(p.Messages), describe(p.Messages[0])))
		}
	}
}

// checkExclusiveBound: a read below a row's Seq returns the rows strictly below it, newest
// first, the row itself excluded.
func checkExclusiveBound(ctx context.Context, d Desk, r *report) {
	rows, ok := fill(ctx, d, 12, r)
	if !ok {
		return
	}
	var reads []bound
	for _, m := range rows {
		reads = append(reads, bound{m.Seq, 2}, bound{m.Seq, transcript.PageSize}, bound{m.Seq + 1, transcript.PageSize})
	}
	checkReads(ctx, d, newestFirst(rows), reads, r)
}

// checkLimit: no page holds more rows than asked for, from the newest row and from bounds
// in the log, and every page holds at least one row while older rows exist.
func checkLimit(ctx context.Context, d Desk, r *report) {
	rows, ok := fill(ctx, d, transcript.PageSize+88, r)
	if !ok {
		return
	}
	var reads []bound
	for _, limit := range []int{1, 2, 7, 64, transcript.PageSize} {
		for _, before := range []transcript.Sequence{0, rows[len(rows)/2].Seq, rows[5].Seq} {
			reads = append(reads, bound{before, limit})
		}
	}
	checkReads(ctx, d, newestFirst(rows), reads, r)
}

// checkNextCursor: on every page of a walk, Next is 0 exactly when no older row exists, and
// otherwise at most the page's oldest Seq, below the bound and above the next older row.
func checkNextCursor(ctx context.Context, d Desk, r *report) {
	rows, ok := fill(ctx, d, 50, r)
	if !ok {
		return
	}
	walks := []bound{{0, 1}, {0, 3}, {0, 16}, {0, transcript.PageSize}, {rows[30].Seq, 7}}
	checkWalks(ctx, d, newestFirst(rows), walks, r)
}

// checkEndOfLog: the page that holds the oldest row ends the walk (Next == 0), also when it
// is exactly full, and a read below the oldest row is an empty page with Next == 0.
func checkEndOfLog(ctx context.Context, d Desk, r *report) {
	rows, ok := fill(ctx, d, 20, r)
	if !ok {
		return
	}
	desc := newestFirst(rows)
	checkReads(ctx, d, desc, []bound{
		{rows[5].Seq, 5}, {rows[5].Seq, 6}, {rows[5].Seq, transcript.PageSize},
		{rows[1].Seq, 1}, {rows[0].Seq, 1}, {rows[0].Seq, transcript.PageSize},
	}, r)
	checkWalks(ctx, d, desc, []bound{{0, 20}, {0, 10}, {0, 21}}, r)
}

// checkBoundAboveHead: a bound above the newest row, up to the largest Sequence (a store
// keeping sequences as int64 must not overflow), reads from the newest row.
func checkBoundAboveHead(ctx context.Context, d Desk, r *report) {
	rows, ok := fill(ctx, d, 20, r)
	if !ok {
		return
	}
	head := rows[len(rows)-1].Seq
	var reads []bound
	for _, before := range []transcript.Sequence{head + 1, head + 1000, math.MaxInt64, math.MaxInt64 + 1, math.MaxUint64} {
		reads = append(reads, bound{before, 3}, bound{before, transcript.PageSize})
	}
	desc := newestFirst(rows)
	checkReads(ctx, d, desc, reads, r)
	checkWalks(ctx, d, desc, []bound{{head + 1, 7}, {math.MaxUint64, 7}}, r)
}

// checkBoundAtOne: a bound of 1 reads nothing, since valid rows have Seq >= 1; a bound just
// above the oldest row reads only that row.
func checkBoundAtOne(ctx context.Context, d Desk, r *report) {
	rows, ok := fill(ctx, d, 10, r)
	if !ok {
		return
	}
	desc := newestFirst(rows)
	oldest := rows[0].Seq
	checkReads(ctx, d, desc, []bound{
		{1, 1}, {1, transcript.PageSize}, {oldest, 1}, {oldest + 1, 1}, {oldest + 1, transcript.PageSize},
	}, r)
	checkWalks(ctx, d, desc, []bound{{1, 1}, {oldest + 1, 3}}, r)
}

// checkTraversal: walking 5,000 rows down, in full pages and in odd-sized ones from the
// middle, returns exactly the rows Append returned.
func checkTraversal(ctx context.Context, d Desk, r *report) {
	rows, ok := fill(ctx, d, 5000, r)
	if !ok {
		return
	}
	walks := []bound{{0, transcript.PageSize}, {rows[3999].Seq, 61}}
	checkWalks(ctx, d, newestFirst(rows), walks, r)
}
