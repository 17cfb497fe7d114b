package server

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/posting"
)

// errNoMessage is the 404 of a correction of a row that does not exist or that the token's
// participant may not read: one answer for both, so that it tells nothing of an aside.
var errNoMessage = kindNotFound.problem("no such message")

type editInput struct {
	Desk string              `path:"desk" doc:"The desk: the token's."`
	Seq  transcript.Sequence `path:"seq" minimum:"1" doc:"The row to edit."`
	Body editBody
}

// editBody is an edit. It names no author: the author is the token's participant, who must
// be the row's.
type editBody struct {
	Content string `json:"content" doc:"The row's new content (not blank)."`
	Key     string `json:"key,omitempty" maxLength:"256" doc:"The writer's name for the correction row, unique within the desk: a retry with the same key and edit returns the stored correction (200)."`
}

type redactInput struct {
	Desk string              `path:"desk" doc:"The desk: the token's."`
	Seq  transcript.Sequence `path:"seq" minimum:"1" doc:"The row to redact."`
	Body *redactBody
}

// redactBody is a redaction's optional body: its key.
type redactBody struct {
	Key string `json:"key,omitempty" maxLength:"256" doc:"The writer's name for the correction row, unique within the desk: a retry with the same key returns the stored correction (200), also after the redaction."`
}

// correctionErrors are the statuses of an edit and a redaction besides 200 and 201.
var correctionErrors = []int{
	http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusRequestTimeout, http.StatusConflict,
	http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType,
}

// correctionOperation documents an edit or a redaction: 201 with the correction row, 200
// with it for a replayed key, and what refuses one.
// what is what the log does to the row; who is who may correct it.
func (s *Server) correctionOperation(id, method, summary, what, who string) huma.Operation {
	op := s.operation(id, method, "/v1/desks/{desk}/messages/{seq}", summary, true, correctionErrors...)
	op.DefaultStatus = http.StatusCreated
	op.Description = "201 with the correction row, which names the row in corrects; the log applies it to the row at once (" + what + "). " +
		"200 with the same correction for a replayed key; 409 key-conflict for a key that names a different row. " +
		"404 not-found for a row that does not exist or that the participant may not read (the same answer); " +
		"403 not-author for anyone but " + who + "; " +
		"409 redacted for a row already redacted; 400 invalid-message for a correction of a correction or of a blank row, " +
		"and for a body with any field it does not know. as= is refused (400): a correction is always the token's participant's."
	op.Responses = map[string]*huma.Response{
		"200": {
			Description: "The key named this same correction already: the stored correction row",
			Content:     map[string]*huma.MediaType{"application/json": {Schema: &huma.Schema{Ref: "#/components/schemas/Message"}}},
		},
	}
	return op
}

// editMessage appends an edit of the path's row by the token's participant. The store
// decides it by the correction rule, in the transaction that writes it; appendRow answers.
func (s *Server) editMessage(ctx context.Context, in *editInput) (*appendOutput, error) {
	return s.correct(ctx, in.Desk, posting.Correction{Target: in.Seq, Content: in.Body.Content, Key: in.Body.Key})
}

// redactMessage appends a redaction of the path's row by the token's participant: the
// row's content, and that of every earlier correction of it, is erased for good.
func (s *Server) redactMessage(ctx context.Context, in *redactInput) (*appendOutput, error) {
	c := posting.Correction{Target: in.Seq, Redact: true}
	if in.Body != nil {
		c.Key = in.Body.Key
	}
	return s.correct(ctx, in.Desk, c)
}

// correct prepares c as the token's participant's and appends it.
func (s *Server) correct(ctx context.Context, desk string, c posting.Correction) (*appendOutput, error) {
	m, err := posting.PrepareCorrection(identity(ctx).Participant, c)
	if err != nil {
		return nil, s.postProblem(ctx, err)
	}
	return s.appendRow(ctx, desk, m)
}
