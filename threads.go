package transcript

import "context"

// DefaultThreadLimit is how many threads ListThreads returns when ThreadQuery.Limit <= 0;
// MaxThreadLimit is the most it returns.
const (
	DefaultThreadLimit = 20
	MaxThreadLimit     = 200
)

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
	type counted struct {
		replies int
		newest  Sequence
	}
	pending := make(map[Sequence]counted) // parent → its qualifying replies read so far
	p := NewPager(log, q.Before)
	var list ThreadList
	for rows, err := range p.Pages(ctx, growingReads.first(limit)) {
		if err != nil {
			return ThreadList{}, err
		}
		if list.Head == 0 && len(rows) > 0 {
			list.Head = rows[0].Seq
		}
		for i := range rows {
			m := &rows[i]
			if m.Parent != 0 {
				if m.visibilityFor(q.Viewer) == shown {
					c := pending[m.Parent]
					c.replies++
					c.newest = max(c.newest, m.Seq)
					pending[m.Parent] = c
				}
				continue
			}
			c, ok := pending[m.Seq]
			if !ok {
				continue
			}
			delete(pending, m.Seq)
			if m.ReadableBy(q.Viewer) && len(list.Threads) < limit {
				// The pages belong to the walk, and so, like Project's messages, to the caller.
				list.Threads = append(list.Threads, Thread{Root: *m, Replies: c.replies, Newest: c.newest})
			}
		}
		if len(list.Threads) >= limit {
			break
		}
	}
	list.Partial = len(list.Threads) < limit && !p.Done() // the pages ended at ScanLimit
	if list.Threads == nil {
		list.Threads = []Thread{}
	}
	list.Scanned, list.Reads = p.Scanned(), p.Reads()
	return list, nil
}
