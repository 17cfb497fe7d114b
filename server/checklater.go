package server

import (
	"errors"
	"io"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/sharedesk/transcript/token"
)

// tokenCacheSize bounds the tokens a server keeps of the requests it accepted (Server.tokens).
const tokenCacheSize = 4096

// checksLater are the operations whose answer may wait on their token's check: reads whose
// answer huma writes, so that confirmFirst holds all of it. A request with a token the
// server accepted before is then served at once, and its token checked by its store reads
// (token.Pending), where the store can (token.Settler), else before its answer is written.
var checksLater = map[string]bool{"view": true, "listThreads": true}

// checkLater reports whether a request for op may be served while its token's check is
// pending.
func (s *Server) checkLater(op *huma.Operation) bool {
	return s.tokens != nil && checksLater[op.OperationID]
}

// confirm makes pending's check, the one identify put off: nil when the token is still
// good, else what admit answers a token that is not, or a store that cannot say. With a
// nil pending there is nothing to check.
func (s *Server) confirm(r *http.Request, pending *token.Pending) *rejection {
	if pending == nil {
		return nil
	}
	err := pending.Confirm(r.Context(), s.st)
	refusal := ""
	if errors.Is(err, token.ErrUnauthorized) {
		refusal, err = refusalName(err), nil
		rec := recordOf(r.Context())
		rec.tokenID, rec.desk = "", ""
	}
	return s.refuse(r, refusal, err)
}

// confirmFirst is the huma.Context of a request admitted with its token's check pending:
// before the first of its answer's headers, status and body is set, it makes the check
// (confirm); when the token is no longer good it writes confirm's refusal in place of the
// answer, and drops whatever the handler writes after.
//
// It has no Unwrap: nothing below it may reach the response writer around it (humago.Unwrap
// panics on it), so authenticate is its group's last middleware, and the handlers of
// checksLater write through huma alone.
type confirmFirst struct {
	humaContext
	s       *Server
	r       *http.Request
	p       *token.Pending
	checked bool
	refused bool
}

// passed makes the check once and reports whether the answer may be written.
func (c *confirmFirst) passed() bool {
	if !c.checked {
		c.checked = true
		if no := c.s.confirm(c.r, c.p); no != nil {
			c.refused = true
			writeProblemCtx(c.humaContext, no.problem, no.header, no.value)
		}
	}
	return !c.refused
}

func (c *confirmFirst) SetStatus(code int) {
	if c.passed() {
		c.humaContext.SetStatus(code)
	}
}

func (c *confirmFirst) SetHeader(name, value string) {
	if c.passed() {
		c.humaContext.SetHeader(name, value)
	}
}

func (c *confirmFirst) AppendHeader(name, value string) {
	if c.passed() {
		c.humaContext.AppendHeader(name, value)
	}
}

func (c *confirmFirst) BodyWriter() io.Writer {
	if c.passed() {
		return c.humaContext.BodyWriter()
	}
	return io.Discard
}
