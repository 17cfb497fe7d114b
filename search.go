package transcript

import "context"

// SearchQuery asks one viewer's question of a desk: its newest rows that hold every word
// of Text.
type SearchQuery struct {
	// Text is the words to find, all of them, in any order: the query's words storage.PlanSearch
	// finds in it.
	Text string
	// Viewer is whose search it is, as in Query: only the rows Viewer may read match
	// (see Message.ReadableBy), and the zero Author reads only desk rows.
	Viewer Author
	// Thread is 0 to search the whole desk, every thread included; otherwise the row Thread
	// and the rows that reply to it directly (Parent == Thread), never a reply to a reply.
	Thread Sequence
	// Before is an exclusive bound, for the next page (a SearchResult's Next); 0 searches
	// from the newest row.
	Before Sequence
	// Limit is the most matches to return: SearchLimit when <= 0, MaxSearchLimit when above.
	Limit int
}

// SearchResult is one page of a search's matches.
type SearchResult struct {
	// Messages are the newest matches below the query's Before, newest first, as the desk
	// stores them now: an edited row with its new content.
	Messages []Message
	// Next is the Before of the next page: the Seq of the oldest match returned when an
	// older match the viewer may read exists, else 0.
	Next Sequence
}

// Searcher is what a Log that can search implements: memlog's and both stores' logs. A
// caller finds it by type assertion on a Log.
//
// Search returns the newest matches of q (see storage.SearchPlan.Matches), at most its limit of
// them, and fewer when their content reaches PageBytes; no part of the answer — messages,
// Next, an error — depends on a row q.Viewer may not read. It fails with ErrBadSearch for
// a query storage.PlanSearch refuses, and honours ctx.
type Searcher interface {
	Search(ctx context.Context, q SearchQuery) (SearchResult, error)
}
