package deskmcp

import (
	"context"
	"errors"
	"fmt"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/cut"
	"github.com/sharedesk/transcript/render"
	"github.com/sharedesk/transcript/storage"
)

// searchDesk is the search_desk tool: the participant's search of the desk through its
// log's transcript.Searcher (ErrNoSearch when the store has none), every hit in its
// envelope, newest first. The hits kept are the page's first that fit in the service's
// byte budget and in max_tokens (the first always, or ErrTooFewTokens); Next is the
// before of the page that follows them: the last kept hit's seq when some were left out,
// else the search's own Next. A bad query is ErrBadQuery, which quotes none of it, and a
// thread the participant may not read is ErrNoThread, as for read_desk and view. It
// changes nothing.
func (t *tools) searchDesk(ctx context.Context, in SearchDeskArgs) (string, SearchDeskResult, error) {
	s, ok := t.svc.st.Log(t.desk).(transcript.Searcher)
	if !ok {
		return "", SearchDeskResult{}, ErrNoSearch
	}
	q := transcript.SearchQuery{Text: in.Query, Viewer: t.me, Thread: in.Thread, Before: in.Before, Limit: in.Limit}
	// The query first, so that a bad one is refused in any thread; then the thread, before
	// the store reads any of it.
	if _, err := storage.PlanSearch(q); err != nil {
		return "", SearchDeskResult{}, badQuery(err)
	}
	if err := t.checkThread(ctx, "search_desk", in.Thread); err != nil {
		return "", SearchDeskResult{}, err
	}
	r, err := s.Search(ctx, q)
	if err != nil {
		return "", SearchDeskResult{}, t.unavailable(ctx, "search_desk", err)
	}
	hits := r.Messages[:cut.Within(len(r.Messages), t.svc.opts.MaxAnswerBytes, func(i int) int { return len(r.Messages[i].Content) })]
	blocks := make([]render.Block, len(hits))
	for i := range hits {
		blocks[i] = render.Block{Message: &hits[i], Text: render.Envelope(hits[i])}
	}
	// resultOf is the answer that keeps the first kept hits; cutBy names what left the
	// others out, if anything did.
	resultOf := func(kept int) (res SearchDeskResult, cutBy string) {
		switch {
		case kept == 0:
			return SearchDeskResult{Messages: []transcript.Message{}}, "" // never null
		case kept < len(hits):
			return SearchDeskResult{Messages: hits[:kept:kept], Next: hits[kept-1].Seq}, budgetName(in.MaxTokens)
		case kept < len(r.Messages):
			return SearchDeskResult{Messages: hits, Next: hits[kept-1].Seq}, budgetName(0)
		}
		return SearchDeskResult{Messages: r.Messages, Next: r.Next}, ""
	}
	scope := searchScope(t.desk, in.Thread, in.Before)
	line := func(kept int) string {
		res, cutBy := resultOf(kept)
		return searchHeader(scope, t.me, res, cutBy)
	}
	if in.MaxTokens <= 0 || len(hits) == 0 {
		res, _ := resultOf(len(hits))
		return joinBlocks(line(len(hits)), blocks), res, nil
	}
	kept, text, _ := firstThatFit(blocks, in.MaxTokens, line)
	if kept == 0 {
		return "", SearchDeskResult{}, refuse(ErrTooFewTokens, ": %d tokens do not hold the newest hit in %s, #%d", in.MaxTokens, scope, hits[0].Seq)
	}
	res, _ := resultOf(kept)
	return text, res, nil
}

// badQuery is the refusal of a query storage.PlanSearch refused with err: the rule it
// broke, quoting none of it, and what a query holds.
func badQuery(err error) error {
	reason := "the query is refused"
	if se := (*transcript.InvalidError)(nil); errors.As(err, &se) && se.Kind == transcript.ErrBadSearch {
		reason = se.Reason
	}
	return &refusal{kind: ErrBadQuery.(*sentinel), cause: err,
		detail: fmt.Sprintf(": %s; give 1 to %d words, each at most %d bytes long", reason, transcript.MaxSearchTerms, transcript.MaxTermBytes)}
}
