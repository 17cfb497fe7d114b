package logtest

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
)

// brokenLogs are logs with one thing wrong each, built around memlog, and what the kit must
// report about them.
var brokenLogs = []struct {
	name string
	desk func() Desk
	rule error    // the contract rule's sentinel the failures must match, if any
	kind kind     // or the kind of failure they must match
	by   []string // checks that must fail, at least
	skip []string // checks not to run (the log's fault would be a data race under -race)
}{
	// The page contract, rule by rule (SPEC §4).
	{
		name: "page larger than its limit", rule: transcript.ErrPageTooLarge,
		by: []string{"Limit", "NextCursor", "Traversal"},
		desk: readWith(func(ctx context.Context, l Desk, before transcript.Sequence, limit int) (transcript.Page, error) {
			return l.ReadBefore(ctx, before, limit+1)
		}),
	},
	{
		name: "empty page with a cursor", rule: transcript.ErrEmptyPageCursor,
		by: []string{"EmptyLog", "EndOfLog", "BoundAtOne"},
		desk: fixPages(func(pg *transcript.Page, _ transcript.Sequence, _ int) {
			if len(pg.Messages) == 0 {
				pg.Next = 1
			}
		}),
	},
	{
		name: "row with seq 0", rule: transcript.ErrInvalidRow,
		by:   []string{"Limit", "Traversal"},
		desk: fixRows(func(rows []transcript.Message) { rows[len(rows)-1].Seq = 0 }),
	},
	{
		name: "row with an invalid author", rule: transcript.ErrInvalidRow,
		by:   []string{"Limit", "Traversal"},
		desk: fixRows(func(rows []transcript.Message) { rows[0].Author = transcript.Author{Kind: transcript.KindAgent} }),
	},
	{
		name: "row with an invalid audience entry", rule: transcript.ErrInvalidRow,
		by: []string{"Limit", "Traversal"},
		desk: fixRows(func(rows []transcript.Message) {
			rows[0].Audience = append(rows[0].Audience, transcript.Author{Kind: transcript.KindPerson})
		}),
	},
	{
		name: "row whose parent is not older", rule: transcript.ErrInvalidRow,
		by:   []string{"Limit", "Traversal"},
		desk: fixRows(func(rows []transcript.Message) { rows[0].Parent = rows[0].Seq }),
	},
	{
		name: "row repeated", rule: transcript.ErrDuplicate,
		by: []string{"Limit", "Traversal"},
		desk: fixRows(func(rows []transcript.Message) {
			if len(rows) > 1 {
				rows[len(rows)-1] = rows[0]
			}
		}),
	},
	{
		name: "rows above the bound", rule: transcript.ErrOutOfRange,
		by: []string{"ExclusiveBound", "Limit"},
		desk: readWith(func(ctx context.Context, l Desk, _ transcript.Sequence, limit int) (transcript.Page, error) {
			return l.ReadBefore(ctx, 0, limit)
		}),
	},
	{
		name: "rows in ascending order", rule: transcript.ErrNotDescending,
		by:   []string{"Limit", "Traversal"},
		desk: fixRows(slices.Reverse[[]transcript.Message]),
	},
	{
		name: "cursor stuck at the bound", rule: transcript.ErrCursorStuck,
		by: []string{"NextCursor", "Traversal"},
		desk: fixPages(func(pg *transcript.Page, before transcript.Sequence, _ int) {
			if pg.Next != 0 && before != 0 {
				pg.Next = before
			}
		}),
	},
	{
		name: "cursor above the oldest row", rule: transcript.ErrCursorAfterOldest,
		by: []string{"Limit", "Traversal"},
		desk: fixPages(func(pg *transcript.Page, before transcript.Sequence, _ int) {
			if pg.Next != 0 && (before == 0 || pg.Next+1 < before) {
				pg.Next++
			}
		}),
	},

	// The rest of the port's contract.
	{
		name: "bound taken as inclusive", rule: transcript.ErrOutOfRange,
		by: []string{"ExclusiveBound"},
		desk: readWith(func(ctx context.Context, l Desk, before transcript.Sequence, limit int) (transcript.Page, error) {
			if before != 0 {
				before++
			}
			return l.ReadBefore(ctx, before, limit)
		}),
	},
	{
		name: "bound kept as an int64", kind: kindRows,
		by: []string{"BoundAboveHead"},
		desk: readWith(func(ctx context.Context, l Desk, before transcript.Sequence, limit int) (transcript.Page, error) {
			if int64(before) < 0 { // as a store whose SQL bound overflows: seq < -1 holds no row
				return transcript.Page{}, ctx.Err()
			}
			return l.ReadBefore(ctx, before, limit)
		}),
	},
	{
		name: "ignores cancellation", kind: kindCancel,
		by: []string{"Cancellation"},
		desk: readWith(func(ctx context.Context, l Desk, before transcript.Sequence, limit int) (transcript.Page, error) {
			return l.ReadBefore(context.WithoutCancel(ctx), before, limit)
		}),
	},
	{
		name: "cancellation error not matchable", kind: kindCancel,
		by: []string{"Cancellation"},
		desk: readWith(func(ctx context.Context, l Desk, before transcript.Sequence, limit int) (transcript.Page, error) {
			if ctx.Err() != nil {
				return transcript.Page{}, errors.New("read cancelled")
			}
			return l.ReadBefore(ctx, before, limit)
		}),
	},
	{
		name: "hands out its internal slice", kind: kindOwnership,
		by:   []string{"SliceOwnership"},
		desk: func() Desk { return new(sharingLog) },
	},
	{
		name: "hands out its audiences' storage", kind: kindOwnership,
		by:   []string{"SliceOwnership"},
		desk: func() Desk { return new(audienceSharingLog) },
	},
	{
		name: "loses audiences", kind: kindRows,
		by: []string{"Traversal", "Projection"},
		desk: fixRows(func(rows []transcript.Message) {
			for i := range rows {
				rows[i].Audience = nil
			}
		}),
	},
	{
		name: "Append keeps no audience", kind: kindAppend,
		by:   []string{"Traversal", "Projection"},
		desk: func() Desk { return publicAppend{memlog.New()} },
	},
	{
		name: "reuses its page buffer", kind: kindOwnership,
		by:   []string{"SliceOwnership", "Traversal"},
		skip: []string{"ConcurrentReads"},
		desk: func() Desk { return new(bufferLog) },
	},
	{
		name: "ends the walk early", kind: kindEnd,
		by: []string{"NextCursor", "Traversal", "Projection"},
		desk: fixPages(func(pg *transcript.Page, before transcript.Sequence, _ int) {
			if before != 0 {
				pg.Next = 0
			}
		}),
	},
	{
		name: "cursor skips a row", kind: kindSkip,
		by: []string{"NextCursor", "Traversal"},
		desk: fixPages(func(pg *transcript.Page, _ transcript.Sequence, _ int) {
			if pg.Next != 0 {
				pg.Next--
			}
		}),
	},
	{
		name: "cursor at the end of the log", kind: kindEnd,
		by: []string{"NextCursor", "EndOfLog"},
		desk: fixPages(func(pg *transcript.Page, _ transcript.Sequence, _ int) {
			if n := len(pg.Messages); n > 0 && pg.Next == 0 {
				pg.Next = pg.Messages[n-1].Seq
			}
		}),
	},
	{
		name: "drops blank rows", kind: kindRows,
		by: []string{"Traversal"},
		desk: fixPages(func(pg *transcript.Page, _ transcript.Sequence, _ int) {
			pg.Messages = slices.DeleteFunc(pg.Messages, transcript.Message.Blank)
		}),
	},
	{
		name: "oldest rows first", kind: kindRows,
		by: []string{"ExclusiveBound", "Limit", "Traversal", "Projection"},
		desk: readWith(func(ctx context.Context, l Desk, before transcript.Sequence, limit int) (transcript.Page, error) {
			pg, err := l.ReadBefore(ctx, before, math.MaxInt)
			pg.Messages = pg.Messages[max(0, len(pg.Messages)-limit):]
			pg.Next = 0
			return pg, err
		}),
	},
	{
		name: "loses labels", kind: kindRows,
		by: []string{"Traversal", "Projection"},
		desk: fixRows(func(rows []transcript.Message) {
			for i := range rows {
				rows[i].Author.Label = ""
			}
		}),
	},
	{
		name: "trims content", kind: kindRows,
		by: []string{"Traversal"},
		desk: fixRows(func(rows []transcript.Message) {
			for i := range rows {
				rows[i].Content = strings.TrimSpace(rows[i].Content)
			}
		}),
	},
	{
		name: "sees no row appended after its first read", kind: kindVisibility,
		by:   []string{"ConcurrentReads"},
		desk: func() Desk { return new(frozenLog) },
	},
	{
		name: "Append returns the row without its seq", kind: kindAppend,
		by:   []string{"ExclusiveBound", "Traversal", "ConcurrentReads", "Projection"},
		desk: func() Desk { return seqlessAppend{memlog.New()} },
	},
}

func TestBrokenLogs(t *testing.T) {
	for _, tt := range brokenLogs {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cs := slices.DeleteFunc(slices.Clone(checks), func(c check) bool { return slices.Contains(tt.skip, c.name) })
			err := test(t.Context(), func() (Desk, error) { return tt.desk(), nil }, cs)
			if err == nil {
				t.Fatal("the kit found nothing wrong")
			}
			failed := make(map[string]bool)
			for _, f := range failures(err) {
				failed[f.Check] = true
			}
			for _, name := range tt.by {
				if !failed[name] {
					t.Errorf("check %s found nothing wrong", name)
				}
			}
			if tt.kind != "" && !errors.Is(err, tt.kind) {
				t.Errorf("no failure matches %q", tt.kind)
			}
			if tt.rule != nil && !reportsRule(err, tt.rule) {
				t.Errorf("no failure holds a *transcript.ContractError for %v that matches it and transcript.ErrContract", tt.rule)
			}
			if t.Failed() {
				t.Logf("the kit reported:\n%v", err)
			}
		})
	}
}

// reportsRule reports whether one of the failures Test returned holds the Pager's
// *transcript.ContractError for rule, matchable with errors.Is.
func reportsRule(err, rule error) bool {
	for _, f := range failures(err) {
		ce, ok := errors.AsType[*transcript.ContractError](f)
		if ok && ce.Err == rule && errors.Is(f, rule) && errors.Is(f, transcript.ErrContract) {
			return true
		}
	}
	return false
}

// TestBrokenLogsCoverChecks makes sure every check is shown to fail on some broken log, so
// none of them passes vacuously.
func TestBrokenLogsCoverChecks(t *testing.T) {
	shown := make(map[string]bool)
	for _, tt := range brokenLogs {
		for _, name := range tt.by {
			shown[name] = true
		}
	}
	for _, c := range checks {
		if !shown[c.name] {
			t.Errorf("no broken log makes check %s fail", c.name)
		}
	}
}

// Logs that keep the contract in ways memlog does not must pass.
var conformingLogs = []struct {
	name string
	desk func() Desk
}{
	{"short pages", readWith(func(ctx context.Context, l Desk, before transcript.Sequence, limit int) (transcript.Page, error) {
		return l.ReadBefore(ctx, before, min(limit, 3))
	})},
	{"sequences with gaps and a loose cursor", func() Desk { return gappedLog{memlog.New()} }},
	{"times in UTC", fixRows(func(rows []transcript.Message) {
		for i := range rows {
			rows[i].At = rows[i].At.UTC()
		}
	})},
}

func TestConformingLogs(t *testing.T) {
	for _, tt := range conformingLogs {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := Test(t.Context(), func() (Desk, error) { return tt.desk(), nil }); err != nil {
				t.Fatal(err)
			}
		})
	}
}
