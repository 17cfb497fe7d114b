package transcript

import (
	"cmp"
	"context"
	"iter"
	"slices"
)

// Pager reads one Log backwards, page by page, and checks every page against the port
// contract before handing it on. Project and the sharing package walk a log through a
// Pager; a host that writes its own walk can too.
//
// The contract, checked on every read in this order (rules 3 to 6 row by row, in page
// order, each row against the four rules in turn before the next row):
//
//  1. size: no more rows than the limit asked for (ErrPageTooLarge);
//  2. empty page: an empty page has Next == 0 (ErrEmptyPageCursor);
//  3. row: Seq != 0, a valid Author, valid Audience entries, Parent < Seq (ErrInvalidRow);
//  4. uniqueness: no Seq already seen in this walk (ErrDuplicate);
//  5. range: Seq < the read's before bound, when it is not 0 (ErrOutOfRange);
//  6. order: strictly below the previous row of the page (ErrNotDescending);
//  7. cursor advance: Next < before, when neither is 0 (ErrCursorStuck);
//  8. cursor position: Next <= the page's oldest Seq, when Next != 0 (ErrCursorAfterOldest).
//
// Checking is nearly free: the bound only moves down and every row must be below it, so a
// row repeated across pages also breaks the range rule and one repeated inside a page also
// breaks the order rule. The sequences already seen are searched only when one of those two
// rules breaks, to name the right one. A Pager keeps those sequences, never the rows: the
// rows of a page are the caller's once Next returns them.
//
// A Pager is not safe for concurrent use. After an error it returns the same error forever.
type Pager struct {
	log     Log
	before  Sequence // bound of the next read; 0 reads from the newest row
	done    bool     // the log ended: a page came back with Next == 0
	err     error    // sticky: the first error
	reads   int
	scanned int
	// seen holds the Seq of every row Next returned, as runs of consecutive sequences,
	// newest first: only the sequences, never the rows, so that a long walk holds no row the
	// caller has let go of, and a log without gaps costs one run.
	seen    []seqRun
	seenBuf [4]seqRun // seen's first array: most walks need no other
	want    int       // the rows the caller of Pages still wants (Want); 0: no estimate
}

// seqRun is the sequences from low to high, both included.
type seqRun struct{ high, low Sequence }

// NewPager returns a Pager whose first read asks for rows below before (0: the newest).
func NewPager(log Log, before Sequence) *Pager {
	return &Pager{log: log, before: before}
}

// Next reads the next, older page of at most limit rows (limit is clamped to 1..PageSize)
// and returns its rows, newest first. The rows belong to the host's page: do not modify
// them. At the end of the log it returns nil, nil and Done reports true; an empty page is
// also how the end can show.
//
// If ctx is done before the read, Next returns ctx.Err() without reading. A host error comes
// back as a *ReadError, a page that breaks the contract as a *ContractError.
func (p *Pager) Next(ctx context.Context, limit int) ([]Message, error) {
	if p.err != nil || p.done {
		return nil, p.err
	}
	pg, err := p.read(ctx, p.before, limit, false)
	if err != nil {
		p.err = err
		return nil, err
	}
	p.note(pg.Messages)
	p.scanned += len(pg.Messages)
	if pg.Next == 0 {
		p.done = true
	} else {
		p.before = pg.Next
	}
	return pg.Messages, nil
}

// Pages returns the walk's pages from where it stands, newest first, as Next reads them: the
// first read asks for first rows, each later one for twice as many as the one before, up
// to PageSize, or for no more than the caller said it still wants (Want) since the page
// before; no read asks for more than the scan budget left, ScanLimit - Scanned. It ends
// after the page that ends the log (Done), once Scanned reaches ScanLimit, when the caller
// stops, or with an error, yielded with no rows, after which the Pager is failed as Next
// describes. A page may be empty only at the end of the log.
func (p *Pager) Pages(ctx context.Context, first int) iter.Seq2[[]Message, error] {
	return func(yield func([]Message, error) bool) {
		size := min(first, PageSize)
		for !p.done && p.scanned < ScanLimit {
			p.want = 0
			rows, err := p.Next(ctx, min(size, ScanLimit-p.scanned))
			if err != nil {
				yield(nil, err)
				return
			}
			if !yield(rows, nil) {
				return
			}
			size = min(2*size, PageSize)
			if p.want > 0 {
				size = min(size, p.want)
			}
		}
	}
}

// Want tells Pages that the caller, after the page it was given, still wants about n rows:
// the next read asks for no more than n of them. n <= 0 gives no estimate.
func (p *Pager) Want(n int) { p.want = max(n, 0) }

// Peek makes one extra read of at most limit rows below before, checked like any other,
// without moving the walk: its rows count toward Reads but not Scanned, and are not
// remembered as seen. It reports a row the walk has already seen as ErrDuplicate.
func (p *Pager) Peek(ctx context.Context, before Sequence, limit int) ([]Message, error) {
	if p.err != nil {
		return nil, p.err
	}
	pg, err := p.read(ctx, before, limit, true)
	if err != nil {
		p.err = err
		return nil, err
	}
	return pg.Messages, nil
}

// Done reports whether the log has ended: the last page came back with Next == 0.
func (p *Pager) Done() bool { return p.done }

// Reads returns the number of host reads made, Peek's included.
func (p *Pager) Reads() int { return p.reads }

// Scanned returns the number of rows Next has returned.
func (p *Pager) Scanned() int { return p.scanned }

// read makes one host read and checks the page. With peek, every row is also searched for
// among the rows seen, since Peek's bound need not lie below them.
func (p *Pager) read(ctx context.Context, before Sequence, limit int, peek bool) (Page, error) {
	limit = min(max(limit, 1), PageSize)
	if err := ctx.Err(); err != nil {
		return Page{}, err
	}
	p.reads++
	pg, err := p.log.ReadBefore(ctx, before, limit)
	if err != nil {
		return Page{}, &ReadError{Read: p.reads, Before: before, Limit: limit, Err: err}
	}
	if seq, rule := p.check(pg, before, limit, peek); rule != nil {
		return Page{}, &ContractError{Read: p.reads, Before: before, Limit: limit, Seq: seq, Err: rule}
	}
	return pg, nil
}

// check applies the contract's rules to one page and returns the offending sequence and
// the broken rule's sentinel, or a nil rule.
func (p *Pager) check(pg Page, before Sequence, limit int, peek bool) (Sequence, error) {
	rows := pg.Messages
	if len(rows) > limit {
		return rows[limit].Seq, ErrPageTooLarge
	}
	if len(rows) == 0 {
		if pg.Next != 0 {
			return pg.Next, ErrEmptyPageCursor
		}
		return 0, nil
	}
	if !peek && p.checkRows(rows, before) {
		return p.checkCursor(pg, before)
	}
	for i := range rows {
		m := &rows[i]
		if m.Seq == 0 || m.Parent >= m.Seq || !m.Author.valid() || !validEntries(m.Audience) {
			return m.Seq, ErrInvalidRow
		}
		outOfRange := before != 0 && m.Seq >= before
		unordered := i > 0 && m.Seq >= rows[i-1].Seq
		if outOfRange || unordered || peek {
			if p.wasSeen(m.Seq, rows[:i]) {
				return m.Seq, ErrDuplicate
			}
			if outOfRange {
				return m.Seq, ErrOutOfRange
			}
			if unordered {
				return m.Seq, ErrNotDescending
			}
		}
	}
	return p.checkCursor(pg, before)
}

// checkRows reports whether rows, a page read below before, break none of the row rules
// (3 to 6). It checks the rules of the common page, strictly descending rows below the
// bound, in one pass; check names the rule a page it refuses breaks.
func (p *Pager) checkRows(rows []Message, before Sequence) bool {
	bound := before - 1 // every Seq - 1 is below it: Seq is not 0 and under the bound (0: none)
	for i := range rows {
		m := &rows[i]
		if m.Seq-1 >= bound || m.Parent >= m.Seq || !m.Author.valid() || (len(m.Audience) > 0 && !validEntries(m.Audience)) {
			return false
		}
		bound = m.Seq - 1
	}
	return true
}

// checkCursor applies rules 7 and 8 to a page whose rows passed.
func (p *Pager) checkCursor(pg Page, before Sequence) (Sequence, error) {
	rows := pg.Messages
	if pg.Next != 0 {
		if before != 0 && pg.Next >= before {
			return pg.Next, ErrCursorStuck
		}
		if pg.Next > rows[len(rows)-1].Seq {
			return pg.Next, ErrCursorAfterOldest
		}
	}
	return 0, nil
}

// validEntries reports whether every author of audience is valid: a row naming an invalid
// reader could be neither rendered nor encoded for the readers it has.
func validEntries(audience []Author) bool {
	for _, a := range audience {
		if !a.valid() {
			return false
		}
	}
	return true
}

// wasSeen reports whether seq is among the rows already seen in this walk or in prefix, the
// checked part of the current page. Both are in descending order.
func (p *Pager) wasSeen(seq Sequence, prefix []Message) bool {
	if containsDescending(prefix, seq) {
		return true
	}
	i, _ := slices.BinarySearchFunc(p.seen, seq, func(r seqRun, seq Sequence) int {
		return cmp.Compare(seq, r.low) // descending: a run of larger sequences comes first
	})
	// seen[i] is the first run that reaches down to seq or below: the one that may hold it.
	return i < len(p.seen) && p.seen[i].high >= seq
}

// note adds the sequences of rows, a checked page below every row seen, to seen.
func (p *Pager) note(rows []Message) {
	if p.seen == nil {
		p.seen = p.seenBuf[:0]
	}
	if n := len(rows); n > 0 && rows[0].Seq-rows[n-1].Seq == Sequence(n-1) { // no gap: one run
		high, low := rows[0].Seq, rows[n-1].Seq
		if k := len(p.seen); k > 0 && p.seen[k-1].low == high+1 {
			p.seen[k-1].low = low
		} else {
			p.seen = append(p.seen, seqRun{high: high, low: low})
		}
		return
	}
	for i := range rows {
		seq := rows[i].Seq
		if n := len(p.seen); n > 0 && p.seen[n-1].low == seq+1 {
			p.seen[n-1].low = seq
			continue
		}
		p.seen = append(p.seen, seqRun{high: seq, low: seq})
	}
}

// containsDescending reports whether rows, sorted by strictly descending Seq, hold seq.
func containsDescending(rows []Message, seq Sequence) bool {
	_, found := slices.BinarySearchFunc(rows, seq, func(m Message, seq Sequence) int {
		return cmp.Compare(seq, m.Seq) // descending: a larger Seq comes first
	})
	return found
}

// reread reads the row held again, one read of limit 1, checked like any other and counted
// in Reads, for a walk that let go of its content. A log that no longer returns the row, or
// returns another row at its Seq (a desk deleted and made anew), breaks the contract:
// ErrInvalidRow.
func (p *Pager) reread(ctx context.Context, held *Message) (Message, error) {
	if p.err != nil {
		return Message{}, p.err
	}
	seq := held.Seq
	pg, err := p.read(ctx, seq+1, 1, false)
	if err == nil && (len(pg.Messages) == 0 || !sameIdentity(held, &pg.Messages[0])) {
		err = &ContractError{Read: p.reads, Before: seq + 1, Limit: 1, Seq: seq, Err: ErrInvalidRow}
	}
	if err != nil {
		p.err = err
		return Message{}, err
	}
	return pg.Messages[0], nil
}

// sameIdentity reports whether again, a read of held's Seq, is held's row whatever its
// content now (held's may have been let go): Message.SameRow without the content.
func sameIdentity(held, again *Message) bool {
	h := *held
	h.Content, h.Revised, h.Redacted = again.Content, again.Revised, again.Redacted
	return h.SameRow(again)
}
