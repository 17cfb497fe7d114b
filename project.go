package transcript

import "context"

// Query asks for one participant's view of a desk.
type Query struct {
	// Conversation selects the view: Thread == 0 is the channel view, otherwise the thread
	// view of the row Thread. Desk is informational here: the Log is already that desk's.
	Conversation Conversation
	// Before is the exclusive upper bound, usually the triggering message; 0 means newest.
	Before Sequence
	// Window is how many qualifying messages to return; <= 0 means SessionWindow.
	Window int
	// Viewer is who the view is for: a row Viewer may not read (see Message.ReadableBy)
	// counts as blank. The zero Author, like any viewer that fails Author.Validate, reads
	// only the rows the whole desk reads.
	Viewer Author
	// MaxBytes is the answer's byte budget; 0 (or less) means none. With one, the result is
	// the projection without it cut by Projection.WithinBytes(Conversation.Thread,
	// MaxBytes), and the walk lets go of each message's content as soon as that cut is
	// certain to drop it: it holds about MaxBytes of content, and a page, however large the
	// rows, besides the first replies whose roots it has not read yet.
	MaxBytes int
}

// Projection is what one participant sees of a desk for one turn.
// Messages and Elided are never nil: nothing is an empty list (Elided is then omitted from
// JSON).
type Projection struct {
	Messages []Message `json:"messages"` // chronological (ascending Seq); the caller owns the slice
	Head     Sequence  `json:"head"`     // newest row seen (0 if none): a watermark to seed sharing with
	Partial  bool      `json:"partial"`  // the walk needed more rows but hit ScanLimit while older rows remained
	Scanned  int       `json:"scanned"`  // raw rows read from the host
	// Reads is how many host reads the walk made. A store ends a page early at PageBytes of
	// content, so Reads depends on the size of rows the viewer may not read: an answer to
	// the viewer does not tell it.
	Reads int `json:"reads"`
	// Elided stands for the rows of the view the viewer may not read, in ascending From,
	// placed among Messages by sequence.
	Elided []Elision `json:"elided,omitempty"`
	// Dropped is how many of the view's oldest messages were left out to keep it within a
	// budget (WithinBytes, DropOldest); 0 when none were.
	Dropped int `json:"dropped,omitempty"`
}

// Project walks log backwards from q.Before and returns the newest q.Window messages that
// qualify for q's view, as q.Viewer may read it, in chronological order.
//
// Over the log's rows older than Before, newest first, let P be the first ScanLimit of them.
// A row the viewer may not read counts as blank below: it never qualifies, and as a root it
// still anchors replies.
//
//   - Thread view of root T: T itself and every direct reply of T (Parent == T) qualify when
//     non-blank; replies to replies never do. The root is always the first message when it
//     exists in the log, is older than Before and is non-blank, even when the walk did not
//     reach it (one extra read of limit 1 fetches it; it does not count toward Scanned); the
//     newest direct replies in P then fill Window-1 places. Without such a root, replies fill
//     all Window places.
//   - Channel view: every non-blank root (Parent == 0) in P qualifies, and for each root R in
//     P its first reply: the oldest non-blank row in P with Parent == R. A reply whose root is
//     not in P, and a reply to a reply, never qualify.
//
// Elided stands for the rows of P that are non-blank, that the viewer may not read and that
// sit at the view's level (roots in the channel view; T and its direct replies in the thread
// view of T), newer than the window's floor: when Messages holds Window messages, the Seq of
// its oldest message other than the thread root (the root itself when it is the only
// message), else 0. They are grouped as Elide groups them.
//
// The walk never asks for more than PageSize rows in one read nor more than the scan budget
// left. It starts with a small read and doubles it, and stops as soon as further reading
// cannot change the result: the window is full and no unconfirmed first reply could still
// enter it, the thread root was reached or passed, the log ended, or ScanLimit rows were
// read. Hitting ScanLimit is not an error: the projection comes back with Partial set.
//
// With q.MaxBytes, the projection is then cut by WithinBytes, the walk holding no more
// content than it must (see Query).
//
// Every page is checked as Pager describes. A page that breaks the contract makes Project
// fail with a *ContractError, a host error with a *ReadError; a ctx that is done stops the
// walk before its next read with ctx.Err(). On error the Projection is zero: never a
// partial history.
func Project(ctx context.Context, log Log, q Query) (Projection, error) {
	return project(ctx, log, q, growingReads)
}

// readPlan says how large a walk's reads are.
type readPlan struct {
	first func(window int) int // limit of the first read
	grow  bool                 // double the limit after every read
}

// growingReads starts a little above the window, since most views need few more rows than
// they show, and doubles up to PageSize for sparse views.
var growingReads = readPlan{first: func(window int) int { return max(2*window, 32) }, grow: true}

// minRead is the smallest read after the first: below it a read costs more than its rows.
// A view's estimate of the rows it still wants sizes the next read (Pager.Want), down to
// it — a second read sized to what is missing, not to a power of two, saves a store most
// of the rows it would copy for nothing.
const minRead = 16

// view is the qualifying rule of one kind of projection, fed the walk's pages in order.
type view interface {
	add(rows []Message)
	// settle reports, after a page, whether further reading cannot change the result. It
	// may Peek for what the walk did not reach.
	settle(ctx context.Context, p *Pager) (bool, error)
	// wanted estimates, after a settle that was not final, how many more rows the view
	// needs; 0 when it cannot tell.
	wanted() int
	// result returns the qualifying messages, chronological, in a slice the caller owns,
	// the sizes of their content as read when the walk has a budget (nil otherwise: a
	// message whose content the walk let go has none left), and the elisions among them.
	result() ([]Message, []int, []Elision)
}

func project(ctx context.Context, log Log, q Query, plan readPlan) (Projection, error) {
	window := q.Window
	if window <= 0 {
		window = SessionWindow
	}
	var v view
	if q.Conversation.Thread == 0 {
		v = newChannelView(q.Viewer, window, max(q.MaxBytes, 0))
	} else {
		v = newThreadView(q.Viewer, q.Conversation.Thread, q.Before, window, max(q.MaxBytes, 0))
	}
	p := NewPager(log, q.Before)
	var proj Projection
	done := false
	for rows, err := range p.Pages(ctx, plan.first(window)) {
		if err != nil {
			return Projection{}, err
		}
		if proj.Head == 0 && len(rows) > 0 {
			proj.Head = rows[0].Seq
		}
		v.add(rows)
		if done, err = v.settle(ctx, p); err != nil {
			return Projection{}, err
		}
		if done {
			break
		}
		if want := v.wanted(); plan.grow && want > 0 {
			p.Want(max(want, minRead))
		}
	}
	proj.Partial = !done // the pages ended at ScanLimit: at the log's end a view is settled
	var sizes []int
	proj.Messages, sizes, proj.Elided = v.result()
	if proj.Elided == nil {
		proj.Elided = []Elision{} // a list, never nil: none is empty
	}
	proj.Scanned = p.Scanned()
	proj.Reads = p.Reads()
	if sizes != nil {
		proj = proj.withinBytes(q.Conversation.Thread, q.MaxBytes, func(i int) int { return sizes[i] })
	}
	return proj, nil
}
