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
	// MaxBytes), Reads aside, and the walk holds about MaxBytes of content and a page,
	// however large the rows: it lets go of a message's content as soon as that cut is
	// certain to drop it, and of a first reply's whose root it has not read yet when it
	// holds more than the budget, to read that reply again (one read, counted in Reads)
	// should the answer carry it.
	MaxBytes int
	// Digest asks for the conversation's newest digest below the window: its Through is
	// below Before and below the window's oldest message other than a thread's pinned root
	// (after MaxBytes's cut). Only a Log that keeps digests (package digest's Store) has
	// one. It is read once the walk's first read has answered (with that read, when the Log
	// reads a page and a digest in one go): one read of the Log's digests (a second when the
	// newest digest below Before lies within the window), not counted in Reads; its failure
	// is a *ReadError.
	Digest bool
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
	// Digest is the conversation's digest below the window, when the query asked for one
	// and the log holds one.
	Digest *Digest `json:"digest,omitempty"`
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
// message), else 0. Each Elision is a maximal run of those rows, no message between them,
// whose readers are the same identities.
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

func project(ctx context.Context, log Log, q Query, plan readPlan) (Projection, error) {
	window := q.Window
	if window <= 0 {
		window = SessionWindow
	}
	var v interface {
		view
		// result returns the qualifying messages, chronological, in a slice the caller owns,
		// the sizes of their content as read when the walk has a budget (nil otherwise: a
		// message whose content the walk let go has none left), and the elisions among them.
		result() ([]Message, []int, []Elision)
	}
	if q.Conversation.Thread == 0 {
		v = newChannelView(q.Viewer, window, max(q.MaxBytes, 0))
	} else {
		v = newThreadView(q.Viewer, q.Conversation.Thread, q.Before, window, max(q.MaxBytes, 0))
	}
	digest := newDigestRead(log, q)
	w, err := walkLog(ctx, NewPager(digest.walked(log), q.Before), plan.first(window), plan.grow, v, func() { digest.start(ctx) })
	if err != nil {
		return Projection{}, err
	}
	proj := Projection{Head: w.head, Partial: !w.settled, Scanned: w.scanned, Reads: w.reads}
	var sizes []int
	proj.Messages, sizes, proj.Elided = v.result()
	if proj.Elided == nil {
		proj.Elided = []Elision{} // a list, never nil: none is empty
	}
	if sizes != nil {
		var gone map[Sequence]bool // messages whose content the walk let go while pending
		for i, m := range proj.Messages {
			if m.Content == "" && sizes[i] > 0 {
				if gone == nil {
					gone = make(map[Sequence]bool)
				}
				gone[m.Seq] = true
			}
		}
		proj = proj.withinBytes(q.Conversation.Thread, q.MaxBytes, func(i int) int { return sizes[i] })
		var again []*Message
		for i := range proj.Messages {
			if gone[proj.Messages[i].Seq] {
				again = append(again, &proj.Messages[i])
			}
		}
		reads, err := reread(ctx, log, again)
		if err != nil {
			return Projection{}, err
		}
		proj.Reads += reads
	}
	if err := digest.set(ctx, &proj); err != nil {
		return Projection{}, err
	}
	return proj, nil
}

// reread reads each of ms again, in place, one row a read: messages whose content a walk let
// go while it did not know the answer would carry them. It returns the reads it made.
func reread(ctx context.Context, log Log, ms []*Message) (int, error) {
	if len(ms) == 0 {
		return 0, nil
	}
	p := NewPager(log, 0)
	for _, m := range ms {
		again, err := p.reread(ctx, m)
		if err != nil {
			return 0, err
		}
		*m = again
	}
	return p.Reads(), nil
}
