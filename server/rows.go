package server

import (
	"cmp"
	"context"
	"net/http"
	"slices"

	"github.com/danielgtaylor/huma/v2"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server/internal/fanout"
	"github.com/sharedesk/transcript/sharing"
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

// operatorOnly is the 403 of the routes that tell of every row (the rows routes, the desk's
// participants) for any token but the operator's, who alone reads every row; what names
// what was asked ("the desk's rows").
func operatorOnly(ctx context.Context, what string) error {
	if identity(ctx).Participant.Kind != transcript.KindOperator {
		return kindForbidden.problem("only an operator token may read " + what)
	}
	return nil
}

// rows is one read of the desk's log below before, checked as transcript.Pager checks every
// page, oldest first.
func (s *Server) rows(ctx context.Context, in *rowsInput) (*rowsOutput, error) {
	if err := operatorOnly(ctx, "the desk's rows"); err != nil {
		return nil, err
	}
	p := transcript.NewPager(s.st.Log(in.Desk), in.Before)
	rows, err := p.Next(ctx, cmp.Or(in.Limit, DefaultRowLimit))
	if err != nil {
		return nil, s.internal(ctx, err)
	}
	rows = slices.Clone(rows)
	slices.Reverse(rows)
	page := RowPage{Rows: rows}
	if !p.Done() && len(page.Rows) > 0 {
		page.Next = page.Rows[0].Seq
	}
	return &rowsOutput{Body: page}, nil
}

type rowEventsInput struct {
	Desk        string      `path:"desk" doc:"The desk: the token's."`
	After       optionalSeq `query:"after" doc:"The watermark to stream from: every row above it is sent. Absent: the desk's head at connect. Last-Event-ID, when sent, takes its place."`
	LastEventID string      `header:"Last-Event-ID" doc:"The id of the last event received: the watermark to resume from."`
}

func (s *Server) rowEventsOperation() huma.Operation {
	op := s.operation("rowEvents", http.MethodGet, "/v1/desks/{desk}/rows/events",
		"Server-Sent Events: every new row of the desk, for the operator", true,
		http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound)
	op.Description = "Streams every row above the watermark, in sequence order, each once, the operator's own and blank rows " +
		"included: `event: row` with `id: SEQ` and the Message as data; `event: reinitialize` with {\"reason\": \"gap_too_large\"} " +
		"when more than 2048 rows wait, or {\"reason\": \"watermark_unavailable\"} when the watermark is above the desk's newest row, " +
		"after which the stream closes; a comment line every 15 seconds. Operator tokens only (403)."
	op.Responses = map[string]*huma.Response{"200": {
		Description: "An event stream of rows",
		Content:     map[string]*huma.MediaType{"text/event-stream": {Schema: &huma.Schema{Type: huma.TypeString}}},
	}}
	return op
}

// rowEvents opens a stream of the desk's rows: the same stream as events (a watermark over
// the desk's shared tail, heartbeats, the drain), sending rows instead of a view's delta.
func (s *Server) rowEvents(ctx context.Context, in *rowEventsInput) (*huma.StreamResponse, error) {
	if err := operatorOnly(ctx, "the desk's rows"); err != nil {
		return nil, err
	}
	from, err := resumeFrom(in.After, in.LastEventID)
	if err != nil {
		return nil, err
	}
	return s.openStream(ctx, transcript.Conversation{Desk: in.Desk}, transcript.Operator(), from, (*stream).sendRows)
}

// sendRows sends every row above the watermark up to the tail's head, and moves the
// watermark past them; more than transcript.ScanLimit of them is a reinitialize event, and
// so is a watermark above the desk's newest row (tailBehind). Rows past
// Options.MaxAnswerBytes go in parts, the oldest within the budget at a time.
func (st *stream) sendRows(ctx context.Context, out *fanout.SSEWriter) (bool, error) {
	return st.inParts(func() (bool, bool, error) { return st.sendRowsPart(ctx, out) })
}

// sendRowsPart sends the oldest rows above the watermark that fit in the byte budget, and
// reports, besides sendRows' more, whether rows are left for another part.
func (st *stream) sendRowsPart(ctx context.Context, out *fanout.SSEWriter) (more, rest bool, err error) {
	_, head := st.tail.Current()
	if head < st.state.Watermark {
		behind, err := st.tailBehind(ctx, head)
		if err != nil || behind {
			return behind, false, err
		}
		return false, false, st.reinitialize(out, sharing.WatermarkUnavailable) // the rows up to it would never come
	}
	if head == st.state.Watermark {
		return true, false, nil
	}
	var f fanout.InFlight
	f.Prepare(st.tail) // before the part's rows are read
	p := transcript.NewPager(st.tail.Log(), head+1)
	var fresh []transcript.Message
read:
	for !p.Done() {
		rows, err := p.Next(ctx, transcript.PageSize)
		if err != nil {
			return false, false, err
		}
		for _, m := range rows {
			if m.Seq <= st.state.Watermark {
				break read
			}
			fresh = append(fresh, m)
		}
		if len(fresh) > transcript.ScanLimit {
			break
		}
	}
	if len(fresh) > transcript.ScanLimit {
		return false, false, st.reinitialize(out, sharing.GapTooLarge)
	}
	if len(fresh) > 0 && !st.mayReceive(ctx) {
		return false, false, nil
	}
	slices.Reverse(fresh)
	next := head
	if n := transcript.Within(len(fresh), st.s.opts.MaxAnswerBytes, func(i int) int { return len(fresh[i].Content) }); n < len(fresh) {
		fresh, next, rest = slices.Clone(fresh[:n]), fresh[n-1].Seq, true // the part is all the stream holds while it writes
	}
	evs := make([]fanout.PartEvent, len(fresh))
	for i := range fresh {
		evs[i] = fanout.PartEvent{At: fresh[i].Seq, Row: &fresh[i], Kind: fanout.PartRow}
	}
	if more, err := fanout.WritePart(out, st.writer, evs, &f, st); !more || err != nil {
		return false, false, err
	}
	st.state.Watermark = next
	return true, rest, nil
}
