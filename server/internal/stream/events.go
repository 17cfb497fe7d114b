package stream

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/readable"
	"github.com/sharedesk/transcript/server/internal/fanout"
	"github.com/sharedesk/transcript/server/internal/op"
	"github.com/sharedesk/transcript/server/internal/page"
	"github.com/sharedesk/transcript/sharing"
	"github.com/sharedesk/transcript/token"
)

type eventsInput struct {
	Desk        string              `path:"desk" doc:"The desk: the token's."`
	Thread      transcript.Sequence `query:"thread" doc:"The root of the thread to stream; 0 or absent: the channel."`
	After       optionalSeq         `query:"after" doc:"The watermark to stream from: every qualifying row above it is sent. Absent: the desk's head at connect. Last-Event-ID, when sent, takes its place."`
	LastEventID string              `header:"Last-Event-ID" doc:"The id of the last event received (a reconnecting EventSource sends it): the watermark to resume from."`
	As          string              `query:"as" doc:"Operator tokens only: stream as this participant (operator, person:ID, agent:ID or system:KIND) sees it."`
}

// ReinitializeEvent is the data of an event: reinitialize, after which the stream closes:
// the client reloads a view and streams again from its head.
type ReinitializeEvent struct {
	Reason string `json:"reason" enum:"gap_too_large,watermark_unavailable,conversation_changed" doc:"Why the stream cannot go on from its watermark: the client reloads a view and starts over from its head."`
}

// RegisterEvents registers GET events on api.
func (s *Streams) RegisterEvents(api huma.API) {
	huma.Register(api, s.eventsOperation(api), s.events)
}

// eventsOperation documents the stream: text/event-stream, whose events are message (a
// Message), elided (an Elision) and reinitialize, and comment lines as heartbeats.
func (s *Streams) eventsOperation(api huma.API) huma.Operation {
	op := s.Operation("events", http.MethodGet, "/v1/desks/{desk}/events",
		"Server-Sent Events: what the participant has not seen, live", true,
		http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound)
	op.Description = "Streams, for every row that qualifies for the participant (a row of the channel, or of the thread, that it may read) in sequence order, " +
		"never the participant's own rows, each once: `event: message` with `id: SEQ` and the Message as data; " +
		"`event: elided` with `id:` its through and an Elision as data; " +
		"`event: correction` with `id: SEQ` and the correction row as data (it names the row it corrects in corrects: an edit holds the new content, a redaction none), " +
		"once, when it corrects a row that qualifies for the participant; `event: reinitialize` with {\"reason\": ...}, " +
		"after which the stream closes; and a comment line every 15 seconds. A client that reconnects with " +
		"Last-Event-ID set to the last id it received loses nothing and receives nothing twice. " +
		"Too many open streams for one token is 429 (too-many-streams), and for the whole server 503 (streams-full), both with Retry-After."
	event := func(name string, data *huma.Schema) *huma.Schema {
		return &huma.Schema{
			Title: "Event " + name,
			Type:  huma.TypeObject,
			Properties: map[string]*huma.Schema{
				"event": {Type: huma.TypeString, Enum: []any{name}},
				"id":    {Type: huma.TypeInteger, Description: "The event's sequence: a watermark to resume from."},
				"data":  data,
			},
			Required: []string{"event", "data"},
		}
	}
	ref := func(name string) *huma.Schema { return &huma.Schema{Ref: "#/components/schemas/" + name} }
	op.Responses = map[string]*huma.Response{
		"200": {
			Description: "An event stream",
			Content: map[string]*huma.MediaType{"text/event-stream": {Schema: &huma.Schema{
				Type:        huma.TypeArray,
				Description: "The stream's events, in the order sent, each one of these.",
				Items: &huma.Schema{OneOf: []*huma.Schema{
					event("message", ref("Message")),
					event("elided", ref("Elision")),
					event("correction", ref("Message")),
					event("reinitialize", api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[ReinitializeEvent](), true, "ReinitializeEvent")),
				}},
			}}},
		},
	}
	return op
}

// events opens a stream. Before anything is streamed it answers, as problems, what a stream
// cannot start with: 403 and 400 for as=, 404 for a thread the viewer may not read (as for
// one that does not exist), 400 for a Last-Event-ID that is no sequence, 429 past the
// token's cap on open streams, 503 past the server's.
func (s *Streams) events(ctx context.Context, in *eventsInput) (*huma.StreamResponse, error) {
	v, err := s.Viewer(ctx, in.As)
	if err != nil {
		return nil, err
	}
	if err := s.CheckThread(ctx, in.Desk, in.Thread, v); err != nil {
		return nil, err
	}
	from, err := s.resumeFrom(in.After, in.LastEventID)
	if err != nil {
		return nil, err
	}
	return s.openStream(ctx, transcript.Conversation{Desk: in.Desk, Thread: in.Thread}, v, from, (*stream).sendView, false)
}

// resumeFrom is the watermark a stream starts from: Last-Event-ID when sent (a
// reconnecting EventSource sends it), else after=, else nil (the desk's head at connect).
func (s *Streams) resumeFrom(after optionalSeq, lastEventID string) (*transcript.Sequence, error) {
	if id := strings.TrimSpace(lastEventID); id != "" {
		n, err := strconv.ParseUint(id, 10, 64)
		if err != nil {
			return nil, s.Invalid("Last-Event-ID is not a sequence")
		}
		seq := transcript.Sequence(n)
		return &seq, nil
	}
	if after.Set {
		return &after.Value, nil
	}
	return nil, nil
}

// openStream opens a stream of conv for who from the watermark from (nil: the desk's head),
// whose events send writes: the view's (sendView) or the desk's rows (sendRows); with
// digests it sends, besides, a digest event for each conversation of the desk whose digest
// is stored while it is open, by this server or another process (sendDigests). It answers
// Admit's problem when the stream may not open (429 past the token's cap on open streams,
// 503 past the server's).
func (s *Streams) openStream(ctx context.Context, conv transcript.Conversation, who transcript.Author, from *transcript.Sequence,
	send func(*stream, context.Context, *fanout.SSEWriter) (bool, error), digests bool) (*huma.StreamResponse, error) {
	closeStream, err := s.Admit(ctx)
	if err != nil {
		return nil, err
	}
	t, err := s.Hub.AcquireCaughtUp(ctx, conv.Desk) // what any process committed before now, before anything is served
	if err != nil {
		closeStream()
		return nil, s.Internal(ctx, err)
	}
	_, head := t.Current()
	st := &stream{
		s:       s,
		tail:    t,
		token:   op.Identity(ctx),
		session: page.SessionOf(ctx),
		conv:    conv,
		who:     who,
	}
	st.send = func(ctx context.Context, out *fanout.SSEWriter) (bool, error) { return send(st, ctx, out) }
	st.state = sharing.Initialized(st.conv, head)
	if from != nil {
		st.state.Watermark = *from
	}
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		defer closeStream()
		defer s.Hub.Release(t)
		if digests {
			st.digests = s.Hub.Digests().Watch(hctx.Context(), conv.Desk)
			defer st.digests.Stop()
		}
		_, w := humago.Unwrap(hctx)
		st.run(hctx.Context(), w)
	}}, nil
}

// stream is one open event stream. Its state is a sharing.State, a watermark and nothing
// else: no queue. Each time the tail's head moves it runs sharing.Prepare from its
// watermark over the tail's log and sends what that gives; a client that reads slowly
// holds up only its own next Prepare, which then covers more rows.
type stream struct {
	s       *Streams
	tail    *fanout.Tail
	token   token.Token   // the stream's token: once it is revoked the stream ends
	session *page.Session // the session it was opened with (nil: a bearer token): once it ends, so does the stream
	conv    transcript.Conversation
	who     transcript.Author
	state   sharing.State
	writer  *fanout.PartWriter  // the stream's writes, as the tail's redactions see them
	digests *fanout.DigestWatch // the desk's digest changes, for a stream that sends them; else nil
	// send sends what is new up to the tail's head and reports false when the stream must
	// end: sendView or sendRows.
	send func(ctx context.Context, out *fanout.SSEWriter) (bool, error)
}

func (st *stream) run(ctx context.Context, w http.ResponseWriter) {
	s := st.s
	s.Metrics.Open.Add(1)
	defer s.Metrics.Open.Add(-1)
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Time{}) // a stream reads no body: the server's read timeout must not end it
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "private, no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	out := fanout.NewSSEWriter(w, s.WriteTimeout)
	st.writer = st.tail.AddWriter(out)
	defer st.tail.DropWriter(st.writer)
	if out.Flush() != nil {
		return
	}
	heartbeat := time.NewTicker(s.Heartbeat)
	defer heartbeat.Stop()
	var digested <-chan struct{}
	if st.digests != nil {
		digested = st.digests.Woken()
	}
	for {
		changed, _ := st.tail.Current()
		if st.tail.IsEnded() { // the desk was deleted (tail.end): what the client holds is of a desk gone
			st.reinitialize(out, sharing.WatermarkUnavailable)
			return
		}
		more, err := st.send(ctx, out)
		if errors.Is(err, fanout.ErrTailEnded) {
			st.reinitialize(out, sharing.WatermarkUnavailable)
			return
		}
		if err == nil && more {
			more, err = st.sendDigests(ctx, out)
		}
		if err != nil || !more {
			return
		}
		for waiting := true; waiting; {
			select {
			case <-changed:
				waiting = false
			case <-digested:
				waiting = false
			case <-heartbeat.C:
				if !s.Sessions.Live(st.session) || token.Recheck(ctx, s.Store, st.token) != nil { // signed out, revoked, removed, or the store cannot say
					return
				}
				out.Comment("heartbeat")
				if out.Flush() != nil {
					return
				}
				s.Metrics.Heartbeats.Add(1)
			case <-ctx.Done():
				return
			case <-s.Drain:
				return
			}
		}
	}
}

// sendView sends what the participant has not seen up to the tail's head, less its own
// messages (sharing.Query.ExceptAuthor: they take none of the budget), and moves the
// watermark past it. A delta past MaxAnswerBytes goes in parts, its oldest
// messages within the budget at a time (sharing.Query.MaxBytes), each committed before
// the next is prepared, so that the stream holds one part at a time. It reports false when
// the stream must end: after a reinitialize event, or when Prepare fails (the client
// reconnects from its last id).
func (st *stream) sendView(ctx context.Context, out *fanout.SSEWriter) (bool, error) {
	return st.inParts(func() (bool, bool, error) { return st.sendViewPart(ctx, out) })
}

// inParts calls part, which sends one part of what is new and reports whether the stream
// goes on (more) and whether another part waits (rest), until none waits; it reports part's
// more and error. A drain ends it between parts.
func (st *stream) inParts(part func() (more, rest bool, err error)) (bool, error) {
	for {
		more, rest, err := part()
		if err != nil || !more || !rest {
			return more, err
		}
		select {
		case <-st.s.Drain:
			return false, nil
		default:
		}
	}
}

// sendViewPart sends the oldest part of what the participant has not seen that fits in
// the byte budget, and reports, besides sendView's more, whether the budget left rest for
// another part.
func (st *stream) sendViewPart(ctx context.Context, out *fanout.SSEWriter) (more, rest bool, err error) {
	s := st.s
	_, head := st.tail.Current()
	var f fanout.InFlight
	f.Prepare(st.tail) // before the part's rows are read
	plan, err := sharing.Prepare(ctx, st.tail.Log(), sharing.Query{
		Desired: st.conv, Current: st.conv, State: st.state, Viewer: st.who, ExceptAuthor: st.who,
		MaxBytes: s.MaxAnswerBytes,
	})
	if err == nil && plan.Reinitialize == sharing.WatermarkUnavailable {
		behind, berr := st.tailBehind(ctx, head)
		if berr == nil && behind {
			return true, false, nil // the tail's next refresh moves it on
		}
		err = berr
	}
	if err != nil {
		if ctx.Err() == nil && !errors.Is(err, fanout.ErrTailEnded) {
			s.Logger.Error("stream", "desk", st.conv.Desk, "error", err.Error())
		}
		return false, false, err
	}
	if plan.Reinitialize != 0 {
		return false, false, st.reinitialize(out, plan.Reinitialize)
	}
	d := plan.Delta
	rest = d.Remaining > 0
	evs := make([]fanout.PartEvent, 0, len(d.Messages)+len(d.Elided)+len(d.Corrections))
	for i := range d.Messages {
		m := &d.Messages[i]
		evs = append(evs, fanout.PartEvent{At: m.Seq, Row: m, Kind: fanout.PartMessage})
	}
	for i := range d.Elided {
		e := &d.Elided[i]
		evs = append(evs, fanout.PartEvent{At: e.From, Eli: e, Kind: fanout.PartElided})
	}
	for i := range d.Corrections {
		c := &d.Corrections[i]
		evs = append(evs, fanout.PartEvent{At: c.Seq, Row: c, Kind: fanout.PartCorrection})
	}
	slices.SortFunc(evs, func(a, b fanout.PartEvent) int { return cmp.Compare(a.At, b.At) })
	if len(evs) > 0 && !st.mayReceive(ctx) {
		return false, false, nil
	}
	if more, err := fanout.WritePart(out, st.writer, evs, &f, st); !more || err != nil {
		return false, false, err
	}
	st.state = d.Next
	return true, rest, nil
}

// tailBehind reports whether the tail, at head, has yet to read the stream's watermark
// while the store holds it: the client learned of a row elsewhere (the answer to its own
// post, another server) before the tail's next refresh. The stream then waits for the tail
// instead of reinitializing; a watermark above the store's newest row too is what
// WatermarkUnavailable is for.
func (st *stream) tailBehind(ctx context.Context, head transcript.Sequence) (bool, error) {
	if head >= st.state.Watermark {
		return false, nil
	}
	newest, err := readable.Head(ctx, st.s.Store.Log(st.conv.Desk))
	return err == nil && newest >= st.state.Watermark, err
}

// mayReceive reports whether the stream may still send what its tail holds: its session,
// if it has one, is live, and its token is still good for every row the tail read
// (tail.recheck). When it may not, the stream ends without sending them.
func (st *stream) mayReceive(ctx context.Context) bool {
	return st.s.Sessions.Live(st.session) && st.tail.Recheck(ctx, st.token) == nil
}

// eventMetrics is the metric each kind of event counts in.
var eventMetrics = [...]EventKind{
	fanout.PartMessage:    EventMessage,
	fanout.PartCorrection: EventCorrection,
	fanout.PartElided:     EventElided,
	fanout.PartRow:        EventMessage,
}

// Sent counts an event of kind k the stream sent (fanout.Counter).
func (st *stream) Sent(k fanout.PartKind) { st.s.Metrics.Events[eventMetrics[k]].Add(1) }

// reinitialize sends a reinitialize event for reason; the stream then ends.
func (st *stream) reinitialize(out *fanout.SSEWriter, reason sharing.Reason) error {
	if err := out.Event("reinitialize", 0, ReinitializeEvent{Reason: reason.String()}); err != nil {
		return err
	}
	st.s.Metrics.Events[EventReinitialize].Add(1)
	return out.Flush()
}

// optionalSeq is a query parameter that may be absent, which is not the same as 0.
type optionalSeq struct {
	Value transcript.Sequence
	Set   bool
}

// Schema documents the parameter as the sequence it holds.
func (o optionalSeq) Schema(r huma.Registry) *huma.Schema {
	return huma.SchemaFromType(r, reflect.TypeFor[transcript.Sequence]())
}

// Receiver is where huma parses the parameter to.
func (o *optionalSeq) Receiver() reflect.Value { return reflect.ValueOf(&o.Value).Elem() }

// OnParamSet notes whether the request carried the parameter.
func (o *optionalSeq) OnParamSet(isSet bool, _ any) { o.Set = isSet }
