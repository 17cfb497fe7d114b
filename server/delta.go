package server

import (
	"context"
	"errors"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/sharing"
)

type deltaInput struct {
	Desk string `path:"desk" doc:"The desk: the token's."`
	As   string `query:"as" doc:"Operator tokens only: the delta of this participant."`
	// Rendered asks for the delta's Rendered text.
	Rendered bool `query:"rendered" doc:"With true: the answer carries each message's and correction's envelope and each elision's tag (rendered)."`
	Body     deltaBody
}

// deltaBody asks for what the participant has not seen since State.
type deltaBody struct {
	State        sharing.State       `json:"state" doc:"The client's last committed state: the client owns it."`
	Conversation *conversationBody   `json:"conversation,omitempty" doc:"Where the turn happens; absent: the path's desk's channel."`
	Before       transcript.Sequence `json:"before,omitempty" doc:"Exclusive bound, usually the triggering message; 0 or absent: up to the newest row."`
}

// conversationBody is the desired conversation of a delta. Its desk, when given, must be the
// path's: the desk always comes from the path.
type conversationBody struct {
	Desk   string              `json:"desk,omitempty" doc:"Absent, or the path's desk."`
	Thread transcript.Sequence `json:"thread,omitempty" doc:"The thread's root; 0 or absent: the channel."`
}

// DeltaResult is the delta route's answer: Delta or Reinitialize, never both.
type DeltaResult struct {
	Delta *sharing.Delta `json:"delta,omitempty" doc:"What the participant has not seen; commit next once the turn is durable."`
	// Reinitialize names why there is no delta: the client reloads a view and starts over.
	Reinitialize string `json:"reinitialize,omitempty" enum:"conversation_changed,gap_too_large,watermark_unavailable,digest_corrected" doc:"Why there is no delta: the client reloads a view (with its digest, when it gives one) and starts over from its head. digest_corrected: a row the state's digest may stand for was edited or redacted since."`
	// With conversation_changed and a state of another conversation, the two that differ:
	// the conversation asked for and the one the state is bound to.
	Conversation      *transcript.Conversation `json:"conversation,omitempty" doc:"With conversation_changed: the conversation asked for, when the state's is another."`
	StateConversation *transcript.Conversation `json:"state_conversation,omitempty" doc:"With conversation_changed: the conversation the state is bound to."`
	// With conversation_changed, the participant the state belongs to, when not the one
	// reading.
	StateViewer *transcript.Author `json:"state_viewer,omitempty" doc:"With conversation_changed: the participant the state belongs to, when not the one reading."`
	// Remaining is how many messages and corrections past the answer's byte budget the delta left for the
	// next one, which a Prepare from delta.next gives.
	Remaining int `json:"remaining,omitempty" doc:"How many newer messages and corrections did not fit in the answer's byte budget: the next delta, from delta.next, holds them."`
	// Rendered is the delta's text for a model, when the request asked for it.
	Rendered *Rendered `json:"rendered,omitempty" doc:"With rendered=true and a delta: each message's and correction's envelope and each elision's tag, as the participant's model reads them."`
}

type deltaOutput struct{ Body DeltaResult }

// Reinitialization is the delta route's answer that asks for a reinitialization for reason:
// its name, and for sharing.ConversationChanged what m, the state's mismatch with the
// query (sharing.State.Mismatch), says differs. The pointers are m's.
func Reinitialization(reason sharing.Reason, m sharing.Mismatch) DeltaResult {
	r := DeltaResult{Reinitialize: reason.String()}
	if reason == sharing.ConversationChanged {
		r.Conversation, r.StateConversation, r.StateViewer = m.Conversation, m.StateConversation, m.StateViewer
	}
	return r
}

// delta is sharing.Prepare for the token's participant (or as=), desired and current both
// the body's conversation on the path's desk. A state for another desk or conversation is
// {"reinitialize":"conversation_changed"} with both conversations, and a state of another
// participant is the same with the state's viewer; a thread the viewer may not read is 404. A delta past Options.MaxAnswerBytes is cut to its oldest messages
// within it (sharing.Query.MaxBytes), whose next commits exactly those.
func (s *Server) delta(ctx context.Context, in *deltaInput) (*deltaOutput, error) {
	v, err := viewer(ctx, in.As)
	if err != nil {
		return nil, err
	}
	conv := transcript.Conversation{Desk: in.Desk}
	if c := in.Body.Conversation; c != nil {
		if c.Desk != "" && c.Desk != in.Desk {
			return nil, kindInvalidRequest.problem("conversation.desk must be the path's desk, or absent")
		}
		conv.Thread = c.Thread
	}
	if err := s.checkThread(ctx, in.Desk, conv.Thread, v); err != nil {
		return nil, err
	}
	plan, err := sharing.Prepare(ctx, s.st.Log(in.Desk), sharing.Query{
		Desired: conv, Current: conv, State: in.Body.State, Before: in.Body.Before, Viewer: v,
		MaxBytes: s.opts.MaxAnswerBytes,
	})
	switch {
	case errors.Is(err, sharing.ErrWatermarkRegression):
		return nil, kindWatermarkRegression.problem("before is below the state's watermark")
	case errors.Is(err, sharing.ErrInvalidState), errors.Is(err, sharing.ErrPresentSetTooLarge):
		return nil, kindInvalidRequest.problem("state is invalid: present must be ascending, above the watermark, at most 64 entries")
	case err != nil:
		return nil, s.internal(ctx, err)
	case plan.Reinitialize != 0:
		return &deltaOutput{Body: Reinitialization(plan.Reinitialize, in.Body.State.Mismatch(conv, v))}, nil
	}
	d := plan.Delta
	r := DeltaResult{Delta: &d, Remaining: d.Remaining}
	if in.Rendered {
		r.Rendered = renderedOf(nil, d.Messages, d.Corrections, d.Elided)
	}
	return &deltaOutput{Body: r}, nil
}
