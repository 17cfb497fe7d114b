package stream

import (
	"context"
	"net/http"
	"slices"

	"github.com/danielgtaylor/huma/v2"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/cut"
	"github.com/sharedesk/transcript/server/internal/fanout"
	"github.com/sharedesk/transcript/sharing"
)

// The desk's rows live, for the operator: what the inspector's desk column streams, every
// row as it is, the operator's own and blank rows among them.

type rowEventsInput struct {
	Desk        string      `path:"desk" doc:"The desk: the token's."`
	After       optionalSeq `query:"after" doc:"The watermark to stream from: every row above it is sent. Absent: the desk's head at connect. Last-Event-ID, when sent, takes its place."`
	LastEventID string      `header:"Last-Event-ID" doc:"The id of the last event received: the watermark to resume from."`
}

// RegisterRowEvents registers GET rows/events on api.
func (s *Streams) RegisterRowEvents(api huma.API) {
	huma.Register(api, s.rowEventsOperation(), s.rowEvents)
}

func (s *Streams) rowEventsOperation() huma.Operation {
	op := s.Operation("rowEvents", http.MethodGet, "/v1/desks/{desk}/rows/events",
		"Server-Sent Events: every new row of the desk, for the operator", true,
		http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound)
	op.Description = "Streams every row above the watermark, in sequence order, each once, the operator's own and blank rows " +
		"included: `event: row` with `id: SEQ` and the Message as data; `event: reinitialize` with {\"reason\": \"gap_too_large\"} " +
		"when more than 2048 rows wait, or {\"reason\": \"watermark_unavailable\"} when the watermark is above the desk's newest row, " +
		"after which the stream closes; `event: digest` with {\"conversation\": {\"desk\", \"thread\"}} when a new digest of the channel " +
		"or a thread is stored while the stream is open, by this server or by another process on its store (it holds no text: read the digest again with GET view?digest=true); " +
		"when the server may have missed such a digest (its watch of the store was down), the stream closes: reconnect with Last-Event-ID and read the digests again; " +
		"a comment line every 15 seconds. Operator tokens only (403)."
	op.Responses = map[string]*huma.Response{"200": {
		Description: "An event stream of rows",
		Content:     map[string]*huma.MediaType{"text/event-stream": {Schema: &huma.Schema{Type: huma.TypeString}}},
	}}
	return op
}

// rowEvents opens a stream of the desk's rows: the same stream as events (a watermark over
// the desk's shared tail, heartbeats, the drain), sending rows instead of a view's delta.
func (s *Streams) rowEvents(ctx context.Context, in *rowEventsInput) (*huma.StreamResponse, error) {
	if err := s.OperatorOnly(ctx, "read the desk's rows"); err != nil {
		return nil, err
	}
	from, err := s.resumeFrom(in.After, in.LastEventID)
	if err != nil {
		return nil, err
	}
	return s.openStream(ctx, transcript.Conversation{Desk: in.Desk}, transcript.Operator(), from, (*stream).sendRows, true)
}

// sendRows sends every row above the watermark up to the tail's head, and moves the
// watermark past them; more than transcript.ScanLimit of them is a reinitialize event, and
// so is a watermark above the desk's newest row (tailBehind). Rows past
// MaxAnswerBytes go in parts, the oldest within the budget at a time.
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
	if n := cut.Within(len(fresh), st.s.MaxAnswerBytes, func(i int) int { return len(fresh[i].Content) }); n < len(fresh) {
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

// DigestEvent is the data of an event: digest, on the desk's rows stream: a new digest of
// the conversation was stored, by this server or another process on its store. It holds no
// digest's text: the client reads the digest again, with a read of its own (GET
// view?digest=true), as any viewer it shows.
type DigestEvent struct {
	Conversation transcript.Conversation `json:"conversation" doc:"The conversation whose digest changed: the channel (no thread) or a thread."`
}

// sendDigests sends a digest event for each conversation noted since the stream last sent
// them, when the stream watches digests; the stream's token and session must still be good
// for them. It reports false when the stream must end, as it does once a digest may have
// been stored that it cannot tell of (DigestWatch.Missed).
func (st *stream) sendDigests(ctx context.Context, out *fanout.SSEWriter) (bool, error) {
	if st.digests == nil {
		return true, nil
	}
	if st.digests.Missed() {
		// A digest may have been stored that the stream cannot tell of: it ends, and the
		// client, as it reconnects from its last id, reads the digests it shows again.
		return false, nil
	}
	convs := st.digests.Take()
	if len(convs) == 0 {
		return true, nil
	}
	if !st.mayReceive(ctx) {
		return false, nil
	}
	for _, c := range convs {
		if err := out.Event("digest", 0, DigestEvent{Conversation: c}); err != nil {
			return false, err
		}
		st.s.Metrics.Events[EventDigest].Add(1)
	}
	return true, out.Flush()
}
