package transcript

import "context"

// Page is one host read.
type Page struct {
	// Messages are newest first, in strictly descending Seq, every Seq below the read's
	// before bound (when it is not 0), at most the read's limit of them. The walk may keep the
	// slice and never modifies it; a host that hands out its internal storage must copy.
	Messages []Message
	// Next is the exclusive bound for the next, older read: at most the Seq of the page's
	// oldest row and below the read's before bound. It is 0 when no older row exists, and
	// only then; an empty page always has Next == 0.
	Next Sequence
}

// Log is one desk's transcript, lent by the host.
//
// Implementations must be safe for concurrent use by multiple goroutines. A row, once
// visible to a reader, never changes, and a reader that has seen Seq n never later sees a new
// row with a lower Seq (sequences are assigned in commit order).
type Log interface {
	// ReadBefore returns up to limit rows with Seq < before, newest first; before == 0 reads
	// from the newest row. It may return fewer than limit rows and still set Next, but it
	// returns at least one row while rows older than before exist. 1 <= limit <= PageSize
	// for every read Project makes.
	//
	// ReadBefore honours ctx: once ctx is done it returns an error that matches ctx.Err()
	// with errors.Is. Every page must satisfy the contract that Pager checks; a page that
	// breaks it makes the walk fail with a *ContractError.
	ReadBefore(ctx context.Context, before Sequence, limit int) (Page, error)
}
