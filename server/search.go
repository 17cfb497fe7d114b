package server

import (
	"context"
	"errors"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/cut"
	"github.com/sharedesk/transcript/storage"
)

type searchInput struct {
	Desk   string              `path:"desk" doc:"The desk: the token's."`
	Q      string              `query:"q" doc:"The words to find, all of them, in any order: runs of letters and digits, compared in lower case; in Chinese, Japanese and Korean, each character and each two adjacent characters; 1 to 16 words, none longer than 64 bytes."`
	Thread transcript.Sequence `query:"thread" doc:"A row: search it and its direct replies only; 0 or absent: the whole desk, every thread included."`
	Before transcript.Sequence `query:"before" doc:"Exclusive upper bound: the previous answer's next, for the page after it; 0 or absent: from the newest row."`
	Limit  int                 `query:"limit" doc:"How many matches, 1 to 100; 0, negative or absent: 20; above 100: 100."`
	As     string              `query:"as" doc:"Operator tokens only: search as this participant, among the rows it may read (operator, person:ID, agent:ID or system:KIND)."`
}

// SearchAnswer is GET search's answer: one page of a search's matches.
type SearchAnswer struct {
	Messages []transcript.Message `json:"messages" doc:"The newest matches below before, newest first, as the desk holds them now (an edited row with its new content)."`
	Next     transcript.Sequence  `json:"next" doc:"The before of the next page: the oldest match returned when an older one exists; 0 when none does."`
}

type searchOutput struct{ Body SearchAnswer }

func (s *Server) searchOperation() huma.Operation {
	op := s.operation("search", http.MethodGet, "/v1/desks/{desk}/search",
		"The newest rows holding every word of q, among those the participant may read", true,
		http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusNotImplemented)
	op.Description = "A row matches when the participant may read it, it is neither a correction nor blank nor redacted, " +
		"it lies in the thread when one is given, and its content holds every word of q (an edited row by its new words only). " +
		"Rows the participant may not read change nothing in the answer. A thread the participant may not read is 404, " +
		"as one that does not exist; a store that cannot search is 501."
	return op
}

// search is transcript.Searcher's Search for the token's participant (or, for an operator,
// as=), over the desk's log when it can search (501 otherwise); a thread the participant
// may not read is 404, as for the view. Its matches past Options.MaxAnswerBytes, the
// oldest, are cut, with next set to the oldest kept.
func (s *Server) search(ctx context.Context, in *searchInput) (*searchOutput, error) {
	v, err := viewer(ctx, in.As)
	if err != nil {
		return nil, err
	}
	searcher, ok := s.st.Log(in.Desk).(transcript.Searcher)
	if !ok {
		return nil, errNoSearch
	}
	q := transcript.SearchQuery{Text: in.Q, Viewer: v, Thread: in.Thread, Before: in.Before, Limit: in.Limit}
	// The words first, so that a q the library refuses is 400 in any thread; then the
	// thread, before the store reads any of it.
	if _, err := storage.PlanSearch(q); err != nil {
		return nil, badSearch(err)
	}
	if err := s.checkThread(ctx, in.Desk, in.Thread, v); err != nil {
		return nil, err
	}
	r, err := searcher.Search(ctx, q)
	if err != nil {
		return nil, s.internal(ctx, err)
	}
	if n := cut.Within(len(r.Messages), s.opts.MaxAnswerBytes, func(i int) int { return len(r.Messages[i].Content) }); n < len(r.Messages) { // the first n: the newest
		r.Messages, r.Next = r.Messages[:n], r.Messages[n-1].Seq
	}
	return &searchOutput{Body: SearchAnswer{Messages: r.Messages, Next: r.Next}}, nil
}

// errNoSearch is the refusal of a store whose logs cannot search.
var errNoSearch = kindNotImplemented.problem("the desk's store cannot search")

// badSearch is the 400 for err, storage.PlanSearch's refusal of q: the rule q broke (no
// word, too many, one too long), which quotes nothing of it.
func badSearch(err error) error {
	reason := "the text is refused"
	if se := (*transcript.InvalidError)(nil); errors.As(err, &se) && se.Kind == transcript.ErrBadSearch {
		reason = se.Reason
	}
	return kindInvalidRequest.problem("q: " + reason)
}
