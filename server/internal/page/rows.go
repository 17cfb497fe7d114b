package page

import (
	"cmp"
	"context"
	"net/http"
	"slices"

	"github.com/danielgtaylor/huma/v2"

	"github.com/sharedesk/transcript"
)

// The desk's rows as they are, for the operator: what the inspector's desk column shows,
// blank rows, thread interiors and the operator's own rows among them, which no view holds.

// DefaultRowLimit is how many rows GET rows answers when limit is absent.
const DefaultRowLimit = 100

// RowPage is one bounded read of a desk's rows.
type RowPage struct {
	Rows []transcript.Message `json:"rows" doc:"The rows below before, oldest first: every row, blank ones and asides included."`
	Next transcript.Sequence  `json:"next" doc:"The before of the next, older page; 0 when no older row exists."`
}

type rowsInput struct {
	Desk   string              `path:"desk" doc:"The desk: the token's."`
	Before transcript.Sequence `query:"before" doc:"Exclusive upper bound; 0 or absent: the newest row."`
	Limit  int                 `query:"limit" minimum:"0" maximum:"512" doc:"How many rows; 0 or absent: 100."`
}

type rowsOutput struct{ Body RowPage }

func (a *API) rowsOperation() huma.Operation {
	return a.Operation("rows", http.MethodGet, "/v1/desks/{desk}/rows",
		"The desk's rows as they are, oldest first: operator tokens only", true,
		http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound)
}

// rows is one read of the desk's log below before, checked as transcript.Pager checks every
// page, oldest first.
func (a *API) rows(ctx context.Context, in *rowsInput) (*rowsOutput, error) {
	if err := a.OperatorOnly(ctx, "read the desk's rows"); err != nil {
		return nil, err
	}
	p := transcript.NewPager(a.Store.Log(in.Desk), in.Before)
	rows, err := p.Next(ctx, cmp.Or(in.Limit, DefaultRowLimit))
	if err != nil {
		return nil, a.Internal(ctx, err)
	}
	rows = slices.Clone(rows)
	slices.Reverse(rows)
	page := RowPage{Rows: rows}
	if !p.Done() && len(page.Rows) > 0 {
		page.Next = page.Rows[0].Seq
	}
	return &rowsOutput{Body: page}, nil
}
