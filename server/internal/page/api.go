package page

import (
	"context"

	"github.com/danielgtaylor/huma/v2"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server/internal/op"
)

// API is the operations only the page calls: its sign-in and sign-out, the desk's rows as
// they are, a view as its viewer's model reads it, the desk's participants and the words of
// elisions. Make it with its fields set; it is safe for concurrent use.
type API struct {
	op.Service
	Sessions *Sessions
	// SecureCookie marks every session cookie Secure, also for a sign-in that came over
	// plain HTTP (behind a TLS proxy).
	SecureCookie bool
	// Project is the projection GET view answers for these parameters (digest: its
	// digest=true), and whose it is: the request's participant or, for an operator token,
	// as's. Its errors are problems.
	Project func(ctx context.Context, desk string, thread, before transcript.Sequence, window int, as string, digest bool) (transcript.Projection, transcript.Author, error)
}

// Register registers the operations on api: signIn, signOut, rows, modelInput,
// participants and elisionLines.
func (a *API) Register(api huma.API) {
	huma.Register(api, a.signInOperation(), a.signIn)
	huma.Register(api, a.signOutOperation(), a.signOut)
	huma.Register(api, a.rowsOperation(), a.rows)
	huma.Register(api, a.modelOperation(), a.model)
	huma.Register(api, a.participantsOperation(), a.participants)
	huma.Register(api, a.elisionLinesOperation(), a.elisionLines)
}
