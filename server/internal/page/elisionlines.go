package page

import (
	"context"
	"fmt"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/render"
)

// The words of an elision, for the inspector: the page shows each elision a view, a delta
// or a stream gives it as the line `transcript view` writes for it (render.ElisionLine),
// asked of the server, so that an elision is worded one way everywhere.

type elisionLinesInput struct {
	Desk string `path:"desk" doc:"The desk: the token's."`
	Body struct {
		Elided []transcript.Elision `json:"elided" maxItems:"2048" doc:"Elisions as a view, a delta or a stream gave them: at most as many as one walk's rows."`
	}
}

// ElisionLines is POST elision-lines' answer.
type ElisionLines struct {
	Lines []string `json:"lines" doc:"Each elision's line, in the order asked: what transcript view writes for it."`
}

type elisionLinesOutput struct{ Body ElisionLines }

func (a *API) elisionLinesOperation() huma.Operation {
	op := a.Operation("elisionLines", http.MethodPost, "/v1/desks/{desk}/elision-lines",
		"The words of elisions: the lines transcript view writes for them", true,
		http.StatusNotFound, http.StatusRequestTimeout, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType)
	op.Description = "Renders the elisions the body holds as `transcript view` does, one line each (\"#12–19 · 3 messages between " +
		"Ana and Triage you cannot read\"). It reads nothing of the desk: an answer holds only what its request held."
	return op
}

// elisionLines renders the body's elisions with render.ElisionLine. It reads nothing of the
// store, so it tells no token anything it did not send.
func (a *API) elisionLines(_ context.Context, in *elisionLinesInput) (*elisionLinesOutput, error) {
	lines := make([]string, len(in.Body.Elided))
	for i, e := range in.Body.Elided {
		if e.From == 0 || e.Through < e.From || e.Count < 1 || uint64(e.Count) > uint64(e.Through-e.From)+1 || len(e.Readers) == 0 {
			return nil, a.Invalid(fmt.Sprintf("elision %d is none a view gives: want 1 <= from <= through, 1 <= count <= through-from+1 and readers", i))
		}
		lines[i] = render.ElisionLine(e)
	}
	return &elisionLinesOutput{Body: ElisionLines{Lines: lines}}, nil
}
