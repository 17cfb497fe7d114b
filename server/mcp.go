package server

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sharedesk/transcript/deskmcp"
	"github.com/sharedesk/transcript/sharing/books"
)

// mcpHandler serves the Model Context Protocol at /mcp: the tools of package
// deskmcp over the SDK's streamable HTTP, for the participant the request's token names
// (its bearer token, or the token a session cookie stands for, its CSRF token required on
// POST: authenticateHTTP, the same admit as every /v1/ route, so one place decides who a
// request is), on the token's desk.
//
// The handler is stateless (no Mcp-Session-Id): each request is served by a server made
// for its own token, so a request can never act in a session another token opened, and
// a participant's place in each conversation lives in the store's books and the staged
// reads the Service shares between requests, not in a session. Answers are JSON
// (application/json), each request's own. The read states are kept by the store when it
// is a books.Store (sqlitestore and pgstore are), else in memory for as long as the
// server lives. Posts wake the desk's event streams like any append.
func (s *Server) mcpHandler() (http.Handler, error) {
	bookStore, ok := s.st.(books.Store)
	if !ok {
		bookStore = new(books.Memory)
	}
	svc, err := deskmcp.New(s.st, bookStore, deskmcp.Options{MaxAnswerBytes: s.opts.MaxAnswerBytes, Logger: s.opts.Logger, Appended: s.stored})
	if err != nil {
		return nil, err
	}
	h := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		t := identity(r.Context())
		srv, err := svc.Server(t.Desk, t.Participant)
		if err != nil { // a token for a desk or participant no book can be kept for
			noteError(r.Context(), err)
			return nil // 400
		}
		return srv
	}, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		JSONResponse:        true,
		MaxRequestBodyBytes: s.opts.MaxBody,
	})
	return s.authenticateHTTP(h), nil
}
