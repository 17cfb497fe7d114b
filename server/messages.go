package server

import (
	"context"
	"errors"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/posting"
)

type appendInput struct {
	Desk string `path:"desk" doc:"The desk: the token's."`
	Body appendBody
}

// appendBody is a new message. It names no author: the author is the token's participant,
// and a body with any field but these is refused (400).
type appendBody struct {
	Content  string              `json:"content" doc:"The message; never blank (empty or white space only: 400 blank)."`
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
		"400 blank for content that is empty or white space only, which no view would show; " +
		"400 for a body naming an author or any other field it does not know; 404 for a parent that does not exist or that the participant may not read."
	op.Responses = map[string]*huma.Response{
		"200": {
			Description: "The key named this same message already: the stored row, unchanged",
			Content:     map[string]*huma.MediaType{"application/json": {Schema: &huma.Schema{Ref: "#/components/schemas/Message"}}},
		},
	}
	return op
}

// appendMessage appends the body as the token's participant. posting.Prepare checks what
// the store would, so that every refusal has a precise and safe answer (postProblem): 413
// for content over the limit, 404 for a parent that does not exist or the author may not
// read, 400 blank for blank content, 400 otherwise. With a key, the append is a replay
// (200) when the store stored no new row for it (AppendNew): of concurrent appends with one
// key, from any number of processes over one database, exactly one is 201.
func (s *Server) appendMessage(ctx context.Context, in *appendInput) (*appendOutput, error) {
	b := in.Body
	req := posting.Request{Content: b.Content, Parent: b.Parent, Key: b.Key}
	if b.Audience != nil {
		req.Audience = make([]posting.Entry, len(b.Audience))
		for i, a := range b.Audience {
			req.Audience[i] = posting.Entry{Author: a.author, Err: a.err}
		}
	}
	m, _, err := posting.Prepare(ctx, s.st.Log(in.Desk), identity(ctx).Participant, req)
	if err != nil {
		return nil, s.postProblem(ctx, err)
	}
	return s.appendRow(ctx, in.Desk, m)
}

// appendRow appends m, a post or a correction that posting prepared, to desk: 201 with the
// stored row, 200 with the row a replayed key names, or the problem for the store's
// refusal. A correction, new or replayed, is applied at once to the rows the desk's tail
// holds and to the parts its streams are writing, before the answer: once the client
// learns it committed, no stream serves what it replaced.
func (s *Server) appendRow(ctx context.Context, desk string, m transcript.Message) (*appendOutput, error) {
	// The append itself is not the client's to cancel: once begun it finishes (or times
	// out), also while the server drains.
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opts.AppendTimeout)
	defer cancel()
	stored, created, err := s.appendNew(actx, desk, m)
	if err != nil {
		err = posting.Refusal(m, err)
		return nil, s.postProblem(ctx, err)
	}
	if !created {
		s.metrics.replayed.Add(1)
		return &appendOutput{Status: http.StatusOK, Body: stored}, nil
	}
	s.metrics.appended.Add(1)
	return &appendOutput{Status: http.StatusCreated, Body: stored}, nil
}

// postProblem is the problem for err, a post's refusal (a *posting.Error) by its kind, or
// the store's failure (500).
func (s *Server) postProblem(ctx context.Context, err error) error {
	var refusal *posting.Error
	if !errors.As(err, &refusal) {
		return s.internal(ctx, err)
	}
	switch refusal.Kind {
	case posting.NoParent:
		return errNoParent
	case posting.TooLarge:
		return kindTooLarge.problem(refusal.Reason)
	case posting.InvalidAudience:
		return kindInvalidAudience.problem(refusal.Reason)
	case posting.InvalidEntry: // the body's audience, whose entries may be Author objects too
		return kindInvalidAudience.problem("audience " + refusal.Reason + ", or an Author object")
	case posting.KeyConflict:
		return kindKeyConflict.problem(refusal.Reason)
	case posting.NoTarget:
		return errNoMessage
	case posting.NotAuthor:
		return kindNotAuthor.problem(refusal.Reason)
	case posting.Redacted:
		return kindRedacted.problem(refusal.Reason)
	case posting.Blank:
		return kindBlank.problem(refusal.Reason)
	}
	return kindInvalidMessage.problem(refusal.Reason)
}

// stored tells of a new row every place that follows appends, whichever surface appended
// it: the fan-out (the desk's streams) and the background folds.
func (s *Server) stored(desk string, m transcript.Message) {
	s.hub.Stored(desk, m)
	s.folds.appended(desk, m)
}
