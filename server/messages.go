package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/sharedesk/transcript"
)

type appendInput struct {
	Desk string `path:"desk" doc:"The desk: the token's."`
	Body appendBody
}

// appendBody is a new message. It names no author: the author is the token's participant,
// and a body with any field but these is refused (400).
type appendBody struct {
	Content  string              `json:"content" doc:"The message."`
	Parent   transcript.Sequence `json:"parent,omitempty" doc:"The row it replies to; 0 or absent: a root."`
	Audience []audienceEntry     `json:"audience,omitempty" maxItems:"16" doc:"Participants of an aside, each in the command line's syntax (operator, person:ID, agent:ID, system:KIND, each with an optional :LABEL) or as an Author object, the form answers write. Absent: the whole desk reads it; a reply to an aside is an aside with the aside's readers. Empty ([]): refused (400)."`
	Key      string              `json:"key,omitempty" maxLength:"256" doc:"The writer's name for the row, unique within the desk: a retry with the same key and message returns the stored row (200) instead of a new one."`
}

type appendOutput struct {
	Status int
	Body   transcript.Message
}

func (s *Server) appendOperation() huma.Operation {
	op := s.operation("appendMessage", http.MethodPost, "/v1/desks/{desk}/messages",
		"Append a message as the token's participant", true,
		http.StatusBadRequest, http.StatusNotFound, http.StatusRequestTimeout, http.StatusConflict,
		http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType)
	op.DefaultStatus = http.StatusCreated
	op.Description = "201 with the stored Message; 200 with the same row for a replayed key; 409 for a key that names a different row; " +
		"400 for a body naming an author or any other field it does not know; 404 for a parent that does not exist or that the participant may not read."
	op.Responses = map[string]*huma.Response{
		"200": {
			Description: "The key named this same message already: the stored row, unchanged",
			Content:     map[string]*huma.MediaType{"application/json": {Schema: &huma.Schema{Ref: "#/components/schemas/Message"}}},
		},
	}
	return op
}

// appendMessage appends the body as the token's participant.
//
// Checks the store would make are made first, so that every refusal has a precise and safe
// answer: the message (transcript.ValidateNew: 413 for content over transcript.MaxContent,
// 400 otherwise; a store opened with a lower limit refuses it with 413 too), the parent
// (404 when it does not exist or the author may not read it: one read of one row, and rows
// never change, so the answer holds for the append) and the reply rule
// (transcript.ResolveAudience on that row, 400). None of their messages quotes content.
//
// With a key, the append is a replay (200) when the store says it stored no new row
// (AppendNew): of concurrent appends with one key, from any number of processes over one
// database, exactly one is 201.
func (s *Server) appendMessage(ctx context.Context, in *appendInput) (*appendOutput, error) {
	author := identity(ctx).Participant
	b := in.Body
	m := transcript.Message{Author: author, Content: b.Content, Parent: b.Parent, Key: b.Key}
	if b.Audience != nil && len(b.Audience) == 0 { // "audience": [], not an absent field
		return nil, kindInvalidAudience.problem("an empty audience names no reader: omit the audience for a message the whole desk reads")
	}
	for i, a := range b.Audience {
		if a.err != nil {
			return nil, kindInvalidAudience.problem(fmt.Sprintf("audience entry %d is not a participant: operator, person:ID, agent:ID or system:KIND, each with an optional :LABEL, or an Author object", i))
		}
		m.Audience = append(m.Audience, a.author)
	}
	if err := transcript.ValidateNew(m); err != nil {
		switch {
		case errors.Is(err, transcript.ErrTooLarge):
			return nil, kindTooLarge.problem(transcript.Reason(err))
		case errors.Is(err, transcript.ErrInvalidAudience):
			return nil, kindInvalidAudience.problem(transcript.Reason(err))
		}
		return nil, kindInvalidMessage.problem(transcript.Reason(err))
	}
	if m.Parent != 0 {
		parent, ok, err := transcript.ReadableRow(ctx, s.st.Log(in.Desk), m.Parent, author)
		switch {
		case err != nil:
			return nil, s.internal(ctx, err)
		case !ok:
			return nil, errNoParent
		}
		if _, err := transcript.ResolveAudience(m, &parent); err != nil {
			return nil, appendRefusal(err)
		}
	}

	// The append itself is not the client's to cancel: once begun it finishes (or times
	// out), also while the server drains.
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opts.AppendTimeout)
	defer cancel()
	stored, created, err := s.st.AppendNew(actx, in.Desk, m)
	if err != nil {
		if errors.Is(err, transcript.ErrKeyConflict) || errors.Is(err, transcript.ErrInvalidMessage) {
			return nil, appendRefusal(err)
		}
		return nil, s.internal(ctx, err)
	}
	if !created {
		s.metrics.replayed.Add(1)
		return &appendOutput{Status: http.StatusOK, Body: stored}, nil
	}
	s.metrics.appended.Add(1)
	s.hub.appended(in.Desk, stored.Seq)
	return &appendOutput{Status: http.StatusCreated, Body: stored}, nil
}

// appendRefusal is the problem for the store's (or the reply rule's) refusal of a message:
// by sentinel, with fixed text, since a store's message is the store's to word.
func appendRefusal(err error) error {
	switch {
	case errors.Is(err, transcript.ErrTooLarge): // the store's own limit, below transcript.MaxContent
		return kindTooLarge.problem("the content is over the store's limit")
	case errors.Is(err, transcript.ErrKeyConflict):
		return kindKeyConflict.problem("the key already names a different row of the desk")
	case errors.Is(err, transcript.ErrNotReadable):
		return errNoParent
	case errors.Is(err, transcript.ErrInvalidAudience):
		return kindInvalidAudience.problem("the audience is refused: a reply to an aside keeps the aside's readers (leave the audience out to reply to them), and an aside's readers must not be only its author")
	case errors.Is(err, transcript.ErrInvalidDesk):
		return kindInvalidMessage.problem("the desk's name breaks the rule for desk names (1 to 100 letters, digits, '.', '_' or '-', not . or ..): it can be read and exported, not written to")
	}
	return kindInvalidMessage.problem("the store refused the message (text must be valid UTF-8 without NUL bytes, and the parent an older row of the desk)")
}
