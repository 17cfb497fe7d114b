package logtest

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/sharedesk/transcript"
)

// tap passes reads through to a Log and keeps the last page, so the kit sees the cursor a
// Pager consumes. It is used by one goroutine.
type tap struct {
	log  transcript.Log
	last transcript.Page
}

func (t *tap) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	pg, err := t.log.ReadBefore(ctx, before, limit)
	t.last = pg
	return pg, err
}

// page is one read of a walk: what was asked for and what came back.
type page struct {
	before transcript.Sequence
	limit  int
	transcript.Page
}

func (p page) String() string {
	return fmt.Sprintf("ReadBefore(before %d, limit %d)", p.before, p.limit)
}

// readOne makes one read through a new Pager, so a page that breaks the contract comes back
// as a *transcript.ContractError.
func readOne(ctx context.Context, log transcript.Log, before transcript.Sequence, limit int) (page, error) {
	p := page{before: before, limit: limit}
	t := &tap{log: log}
	if _, err := transcript.NewPager(t, before).Next(ctx, limit); err != nil {
		return p, fmt.Errorf("%s: %w", p, err)
	}
	p.Page = t.last
	return p, nil
}

// walk reads log from before down to its end in pages of at most limit rows through one
// Pager, and returns the pages. It fails on a contract break (wrapping the Pager's error) and
// when the log has not ended after maxReads reads.
func walk(ctx context.Context, log transcript.Log, before transcript.Sequence, limit, maxReads int) ([]page, error) {
	t := &tap{log: log}
	pager := transcript.NewPager(t, before)
	var pages []page
	for bound := before; !pager.Done(); bound = t.last.Next {
		if len(pages) == maxReads {
			return pages, failf(kindEnd, "walk down from %d, limit %d: got no end of log within %d reads, want one: each page must hold a row", before, limit, maxReads)
		}
		if _, err := pager.Next(ctx, limit); err != nil {
			return pages, fmt.Errorf("walk down from %d, limit %d: %w", before, limit, err)
		}
		pages = append(pages, page{before: bound, limit: limit, Page: t.last})
	}
	return pages, nil
}

// checkWalk compares every page of a walk with desc, the log's rows below the walk's first
// bound, newest first; see checkPage.
func checkWalk(pages []page, desc []transcript.Message) error {
	for i, p := range pages {
		if err := checkPage(p, below(desc, p.before)); err != nil {
			return fmt.Errorf("read %d of the walk: %w", i+1, err)
		}
	}
	return nil
}

// checkPage compares one page with want, the log's rows below the page's bound, newest
// first. The page must be a prefix of want, non-empty when want is, and its cursor must end
// the walk exactly when the page holds all of want, and otherwise lie above the next older
// row, so the next read starts at that row. (That the cursor is at most the page's oldest
// Seq and below the bound is the Pager's to check.)
func checkPage(p page, want []transcript.Message) error {
	rows := p.Messages
	if len(rows) == 0 && len(want) > 0 {
		return failf(kindRows, "%s: got an empty page, want %d rows from %s: rows below the bound exist", p, len(want), describe(want[0]))
	}
	for i, m := range rows {
		if i >= len(want) {
			return failf(kindRows, "%s: page[%d]: got %s, want no row: only %d rows lie below the bound", p, i, describe(m), len(want))
		}
		if !sameRow(m, want[i]) {
			return failf(kindRows, "%s: page[%d]: got %s, want %s", p, i, describe(m), describe(want[i]))
		}
	}
	rest := want[len(rows):]
	switch {
	case len(rows) == 0 && p.Next != 0: // the Pager reports it first; never index an empty page
		return failf(kindEnd, "%s: got Next %d on an empty page, want 0", p, p.Next)
	case len(rest) == 0 && p.Next != 0:
		return failf(kindEnd, "%s: got Next %d, want 0: no row older than seq %d exists", p, p.Next, rows[len(rows)-1].Seq)
	case len(rest) > 0 && p.Next == 0:
		return failf(kindEnd, "%s: got Next 0 (end of log), want a cursor: %d older rows remain, the newest seq %d", p, len(rest), rest[0].Seq)
	case len(rest) > 0 && p.Next <= rest[0].Seq:
		return failf(kindSkip, "%s: got Next %d, want a cursor above seq %d (the next older row), else that row is skipped", p, p.Next, rest[0].Seq)
	}
	return nil
}

// newestFirst returns a reversed copy of rows.
func newestFirst(rows []transcript.Message) []transcript.Message {
	desc := slices.Clone(rows)
	slices.Reverse(desc)
	return desc
}

// below returns the rows of desc (newest first) with Seq < before; all of them when before
// is 0.
func below(desc []transcript.Message, before transcript.Sequence) []transcript.Message {
	if before == 0 {
		return desc
	}
	return desc[sort.Search(len(desc), func(i int) bool { return desc[i].Seq < before }):]
}
