package transcript

import "context"

// ThreadQuery asks for the newest threads of a desk one viewer can read.
type ThreadQuery struct {
	Before Sequence // exclusive upper bound; 0 means newest
	Limit  int      // how many threads; <= 0 means DefaultThreadLimit, above MaxThreadLimit means MaxThreadLimit
	Viewer Author   // whose list it is, as in Query
}

// Thread is one thread of a ThreadList: its root and what the viewer can read of its replies
// within the scan.
type Thread struct {
	Root    Message  `json:"root"`    // the root row, which the viewer may read (it may be blank)
	Replies int      `json:"replies"` // direct replies the viewer may read, non-blank, within the scan
	Newest  Sequence `json:"newest"`  // the newest of those replies
}

// ThreadList is ListThreads' answer.
type ThreadList struct {
	Threads []Thread `json:"threads"` // newest root first; empty, never nil, for none
	Head    Sequence `json:"head"`    // newest row seen (0 if none)
	Partial bool     `json:"partial"` // the walk hit ScanLimit while older rows remained
	Scanned int      `json:"scanned"` // raw rows read from the host
	// Reads is how many host reads the walk made; like Projection.Reads, an answer to the
	// viewer does not tell it.
	Reads int `json:"reads"`
}

// ListThreads walks log backwards from q.Before, as Project does, and returns the newest
// threads q.Viewer can read. Over P, the first ScanLimit rows older than Before, a thread is a
// root (Parent == 0) of P that the viewer may read, with at least one direct reply in P that
// qualifies for the viewer (non-blank, readable: see Message.ReadableBy). Its Replies counts
// those replies and Newest is the newest of them; replies to replies are not counted, and a
// reply whose root is not in P belongs to no listed thread. The list holds the newest Limit
// such threads by root, newest first.
//
// The walk reads pages as Project's does (small first, then doubling, never more than
// PageSize rows or the scan budget left) and stops once Limit threads are found — every
// reply of a root is newer than the root, so a root's count is complete when the walk reaches
// it — or the log ends, or ScanLimit rows were read (Partial, when older rows remain). No
// content of a row the viewer may not read is in the list. Pages are checked as Pager
// describes; errors are as Project's, and on error the list is zero.
func ListThreads(ctx context.Context, log Log, q ThreadQuery) (ThreadList, error) {
	limit := q.Limit
	switch {
	case limit <= 0:
		limit = DefaultThreadLimit
	case limit > MaxThreadLimit:
		limit = MaxThreadLimit
	}
	v := &threadsView{limit: limit, first: firstReplies{viewer: q.Viewer, count: true}}
	w, err := walkLog(ctx, NewPager(log, q.Before), growingReads.first(limit), false, v, nil)
	if err != nil {
		return ThreadList{}, err
	}
	list := ThreadList{Threads: v.threads, Head: w.head, Partial: !w.settled, Scanned: w.scanned, Reads: w.reads}
	if list.Threads == nil {
		list.Threads = []Thread{}
	}
	return list, nil
}

// threadsView lists the roots the viewer may read with the replies the viewer sees of them.
type threadsView struct {
	limit   int
	first   firstReplies
	threads []Thread
}

func (v *threadsView) add(rows []Message) {
	for i := range rows {
		m := &rows[i]
		r, ok := v.first.add(m)
		if ok && m.ReadableBy(v.first.viewer) && len(v.threads) < v.limit {
			// The pages belong to the walk, and so, like Project's messages, to the caller.
			v.threads = append(v.threads, Thread{Root: *m, Replies: r.count, Newest: r.newest})
		}
	}
}

// settle reports whether the list is full: every reply of a root is newer than the root, so
// a root's count is complete when the walk reaches it.
func (v *threadsView) settle(_ context.Context, p *Pager) (bool, error) {
	return len(v.threads) >= v.limit || p.Done(), nil
}

func (v *threadsView) wanted() int { return 0 }
