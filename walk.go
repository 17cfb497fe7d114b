package transcript

import "context"

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

// view is the rule of one kind of answer — a projection, a thread list, a delta — fed the
// walk's pages in order.
type view interface {
	add(rows []Message)
	// settle reports, after a page, whether further reading cannot change the result. It
	// may Peek for what the walk did not reach.
	settle(ctx context.Context, p *Pager) (bool, error)
	// wanted estimates, after a settle that was not final, how many more rows the view
	// needs; 0 when it cannot tell.
	wanted() int
}

// walked is what a walk reports besides its view.
type walked struct {
	head    Sequence // the newest row read (0 if none)
	settled bool     // the view settled: false when the pages ended at ScanLimit first
	scanned int
	reads   int
}

// walkLog is the one walk of a log, which Project, ListThreads and ReadUnseen share; what a
// reader sees of the rows it passes is decided by Message.visibilityFor,
// Conversation.AtLevel and firstReplies, and what an answer's budget holds by budget and
// within. It reads pages backwards through p, a new Pager, from the bound it was made with,
// checked as Pager describes, the first asking for first rows and each later one for twice
// as many (with grow, for no more than the view still wants), and feeds them to v until v
// settles, the log ends or ScanLimit rows were read. headRead, when not nil, is called once
// the first read has answered, before its rows are fed to v: what the walk's head stands for
// is then fixed. On error the walk's view is to be dropped.
func walkLog(ctx context.Context, p *Pager, first int, grow bool, v view, headRead func()) (walked, error) {
	var w walked
	for rows, err := range p.Pages(ctx, first) {
		if err != nil {
			return walked{}, err
		}
		if headRead != nil {
			headRead()
			headRead = nil
		}
		if w.head == 0 && len(rows) > 0 {
			w.head = rows[0].Seq
		}
		v.add(rows)
		if w.settled, err = v.settle(ctx, p); err != nil {
			return walked{}, err
		}
		if w.settled {
			break
		}
		if want := v.wanted(); grow && want > 0 {
			p.Want(max(want, minRead))
		}
	}
	w.scanned, w.reads = p.Scanned(), p.Reads()
	return w, nil
}
