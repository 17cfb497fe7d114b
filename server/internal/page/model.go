package page

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/render"
)

// modelInput is GET view's parameters, and the format.
type modelInput struct {
	Desk   string              `path:"desk" doc:"The desk: the token's."`
	Thread transcript.Sequence `query:"thread" doc:"The root of the thread to view; 0 or absent: the channel."`
	Before transcript.Sequence `query:"before" doc:"Exclusive upper bound, usually the triggering message; 0 or absent: the newest row."`
	Window int                 `query:"window" minimum:"0" maximum:"2048" doc:"How many qualifying messages; 0 or absent: 30, as for transcript view."`
	As     string              `query:"as" doc:"Operator tokens only: the model input of this participant (operator, person:ID, agent:ID or system:KIND)."`
	Format render.ModelFormat  `query:"format" required:"true" enum:"openai,anthropic" doc:"The model's JSON: openai (chat completions messages) or anthropic (Messages API messages)."`
	Digest bool                `query:"digest" doc:"With true: the conversation's newest digest below the window, when it has one, comes first, as GET view?digest=true gives it (transcript view --digest)."`
}

type modelOutput struct {
	ContentType string `header:"Content-Type"`
	Body        []byte
}

func (a *API) modelOperation() huma.Operation {
	op := a.Operation("modelInput", http.MethodGet, "/v1/desks/{desk}/model",
		"The view as the participant's model reads it: OpenAI or Anthropic messages JSON", true,
		http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound)
	op.Description = "The projection GET view answers for the same parameters, rendered for the viewer's model: " +
		"its own messages as assistant turns, every other row in an envelope naming its author, elisions as elided tags. " +
		"With digest=true the conversation's digest below the window, when it has one, comes first, in the first user-side message. " +
		"The body is byte for byte what `transcript view --format FORMAT` (with --digest for digest=true) prints for that viewer, window and bound (a newline ends it)."
	op.Responses = map[string]*huma.Response{"200": {
		Description: "The messages array, as JSON",
		Content:     map[string]*huma.MediaType{"application/json": {Schema: &huma.Schema{Type: huma.TypeArray, Items: &huma.Schema{Type: huma.TypeObject}}}},
	}}
	return op
}

// model is the view's projection, with its digest when asked, rendered by
// render.View.ModelInput, the implementation the command's --format shares.
func (a *API) model(ctx context.Context, in *modelInput) (*modelOutput, error) {
	p, v, err := a.Project(ctx, in.Desk, in.Thread, in.Before, in.Window, in.As, in.Digest)
	if err != nil {
		return nil, err
	}
	data, err := render.View{Digest: p.Digest, Messages: p.Messages, Elided: p.Elided}.ModelInput(in.Format, v)
	if err != nil {
		return nil, a.Internal(ctx, err)
	}
	return &modelOutput{ContentType: "application/json", Body: data}, nil
}
