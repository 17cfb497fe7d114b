package server

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/validation"

	"github.com/sharedesk/transcript/internal/quotable"
)

// ProblemTypeBase begins the type of every problem the service answers with
// (application/problem+json, RFC 9457): "tag:sharedesk.dev,2025:problem:" and the kind's
// name, for instance "tag:sharedesk.dev,2025:problem:not-found". A tag URI (RFC 4151), as
// RFC 9457 §3.1.1 suggests for a type that is an identifier and not a page to fetch: it is
// stable, unique to this service, and promises no document at an address.
const ProblemTypeBase = "tag:sharedesk.dev,2025:problem:"

// problemKind is one kind of error the service answers with: a stable type, a status and
// a title that does not change between occurrences. The table below is every kind there is.
type problemKind int

const (
	kindInvalidRequest      problemKind = iota + 1 // malformed parameters, header or body; a body naming an author
	kindInvalidMessage                             // a message the store cannot keep
	kindInvalidAudience                            // an audience the reply rule or ValidateNew refuses
	kindWatermarkRegression                        // a delta's before below its state's watermark
	kindUnauthorized                               // no token, or one the store does not hold or revoked
	kindForbidden                                  // as= from a token that is not the operator's
	kindNotFound                                   // no such desk, parent, thread or route (or one the token may not see)
	kindMethodNotAllowed                           // a route that exists for another method
	kindRequestTimeout                             // the body did not arrive in time
	kindKeyConflict                                // a key that names a different row
	kindTooLarge                                   // a body or content over its limit
	kindHeaderTooLarge                             // header fields over MaxHeaderBytes
	kindUnsupportedMedia                           // a body that is not JSON
	kindNotAcceptable                              // an Accept header the service cannot answer
	kindRateLimited                                // the token's rate limit
	kindTooManyStreams                             // the token's cap on open streams
	kindStreamsFull                                // the server's cap on open streams, all tokens together
	kindInternal                                   // the server or its store failed
	kindUnavailable                                // shutting down, or the store does not answer
	kindNotAuthor                                  // a correction of a row by one who may not correct it
	kindRedacted                                   // a correction of a row that was redacted
	kindNotImplemented                             // a route the store cannot serve (a search of a store that cannot search)
	kindBlank                                      // a post or an edit whose content is blank, which no view would show
	kindRangeNotSatisfiable                        // a Range of the page's static files beyond the file
	kindExpectationFailed                          // an Expect header other than 100-continue
	kindVersionNotSupported                        // a request line of an HTTP version net/http does not serve
)

var problemKinds = [...]struct {
	name   string
	status int
	title  string
}{
	kindInvalidRequest:      {"invalid-request", http.StatusBadRequest, "Invalid request"},
	kindInvalidMessage:      {"invalid-message", http.StatusBadRequest, "Invalid message"},
	kindInvalidAudience:     {"invalid-audience", http.StatusBadRequest, "Invalid audience"},
	kindWatermarkRegression: {"watermark-regression", http.StatusBadRequest, "Bound below the watermark"},
	kindUnauthorized:        {"unauthorized", http.StatusUnauthorized, "Unauthorized"},
	kindForbidden:           {"forbidden", http.StatusForbidden, "Forbidden"},
	kindNotFound:            {"not-found", http.StatusNotFound, "Not found"},
	kindMethodNotAllowed:    {"method-not-allowed", http.StatusMethodNotAllowed, "Method not allowed"},
	kindRequestTimeout:      {"request-timeout", http.StatusRequestTimeout, "Request timeout"},
	kindKeyConflict:         {"key-conflict", http.StatusConflict, "Key names a different row"},
	kindTooLarge:            {"too-large", http.StatusRequestEntityTooLarge, "Content too large"},
	kindHeaderTooLarge:      {"header-too-large", http.StatusRequestHeaderFieldsTooLarge, "Request header fields too large"},
	kindUnsupportedMedia:    {"unsupported-media-type", http.StatusUnsupportedMediaType, "Unsupported media type"},
	kindNotAcceptable:       {"not-acceptable", http.StatusNotAcceptable, "Not acceptable"},
	kindRateLimited:         {"rate-limited", http.StatusTooManyRequests, "Rate limit exceeded"},
	kindTooManyStreams:      {"too-many-streams", http.StatusTooManyRequests, "Too many open streams"},
	kindStreamsFull:         {"streams-full", http.StatusServiceUnavailable, "The server holds all the streams it may"},
	kindInternal:            {"internal", http.StatusInternalServerError, "Internal server error"},
	kindUnavailable:         {"unavailable", http.StatusServiceUnavailable, "Service unavailable"},
	kindNotAuthor:           {"not-author", http.StatusForbidden, "Not the row's author"},
	kindRedacted:            {"redacted", http.StatusConflict, "The row was redacted"},
	kindNotImplemented:      {"not-implemented", http.StatusNotImplemented, "Not implemented"},
	kindBlank:               {"blank", http.StatusBadRequest, "Blank content"},
	kindRangeNotSatisfiable: {"range-not-satisfiable", http.StatusRequestedRangeNotSatisfiable, "Range not satisfiable"},
	kindExpectationFailed:   {"expectation-failed", http.StatusExpectationFailed, "Expectation failed"},
	kindVersionNotSupported: {"http-version-not-supported", http.StatusHTTPVersionNotSupported, "HTTP version not supported"},
}

// Type returns the kind's problem type URI.
func (k problemKind) Type() string { return ProblemTypeBase + problemKinds[k].name }

// Status returns the kind's HTTP status.
func (k problemKind) Status() int { return problemKinds[k].status }

// problem returns an error of kind k with detail, which must hold nothing a client may not
// see: never content, never a secret; handlers build it from fixed text and from values
// the client itself sent or may read.
func (k problemKind) problem(detail string) *huma.ErrorModel {
	return &huma.ErrorModel{Type: k.Type(), Title: problemKinds[k].title, Status: k.Status(), Detail: detail}
}

// kindForStatus is the kind of an error huma raised itself, which has only a status: 422
// (a value that breaks the schema) is invalid-request, as 400 is.
func kindForStatus(status int) problemKind {
	switch status {
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return kindInvalidRequest
	case http.StatusUnauthorized:
		return kindUnauthorized
	case http.StatusForbidden:
		return kindForbidden
	case http.StatusNotFound:
		return kindNotFound
	case http.StatusMethodNotAllowed:
		return kindMethodNotAllowed
	case http.StatusRequestTimeout:
		return kindRequestTimeout
	case http.StatusConflict:
		return kindKeyConflict
	case http.StatusRequestEntityTooLarge:
		return kindTooLarge
	case http.StatusRequestHeaderFieldsTooLarge:
		return kindHeaderTooLarge
	case http.StatusUnsupportedMediaType:
		return kindUnsupportedMedia
	case http.StatusNotAcceptable:
		return kindNotAcceptable
	case http.StatusTooManyRequests:
		return kindRateLimited
	case http.StatusServiceUnavailable:
		return kindUnavailable
	case http.StatusNotImplemented:
		return kindNotImplemented
	case http.StatusRequestedRangeNotSatisfiable:
		return kindRangeNotSatisfiable
	case http.StatusExpectationFailed:
		return kindExpectationFailed
	case http.StatusHTTPVersionNotSupported:
		return kindVersionNotSupported
	}
	return kindInternal
}

// cleanProblem is the transformer every error body passes through on its way out: it gives
// an error huma raised (validation, a body it could not read) its type and title, answers
// 400 for huma's 422 (this service has one status for a request it cannot take), and
// removes what an error must not carry: huma echoes the offending value of a parameter or
// the whole body of a request it could not parse, which may be content or a secret pasted
// in the wrong place, and a 500 says nothing of the failure (the log line does).
func (s *Server) cleanProblem(_ huma.Context, _ string, v any) (any, error) {
	e, ok := v.(*huma.ErrorModel)
	if !ok {
		return v, nil
	}
	out := *e
	if out.Type == "" {
		k := kindForStatus(out.Status)
		out.Type, out.Title, out.Status = k.Type(), problemKinds[k].title, k.Status()
		if k == kindTooLarge {
			out.Detail = "the request body is over the limit"
		}
	}
	if out.Status >= 500 && out.Status != http.StatusNotImplemented { // a 501 is a handler's, of fixed text
		out.Detail = problemDetail(out.Status)
	}
	out.Errors = nil
	var said []string
	for _, d := range e.Errors {
		if d == nil || out.Status >= 500 {
			continue
		}
		loc, msg := d.Location, d.Message
		if l, m, ok := splitBodyError(msg); ok && loc == "body" {
			loc, msg = l, m // the decoder's (unmarshalBody): its location and fixed text
		}
		loc = s.names.safeLocation(loc)
		switch {
		case loc == "body.author":
			out.Detail = "a body may not name an author: the author is the token's participant"
		case out.Status == http.StatusUnsupportedMediaType:
			msg = "the body must be application/json"
		case loc == "body" && !strings.HasPrefix(msg, "expected ") && d.Message == msg:
			// Neither the schema's word ("expected required property content to be present")
			// nor unmarshalBody's: text that may quote the body.
			msg = "the body is not JSON of the operation's schema"
		case (msg == validation.MsgUnexpectedProperty || msg == msgDuplicateProperty) && !strings.HasSuffix(loc, ".*"):
			msg += " " + strconv.Quote(loc[strings.LastIndexByte(loc, '.')+1:])
		}
		out.Errors = append(out.Errors, &huma.ErrorDetail{Message: msg, Location: loc})
		said = append(said, msg+" at "+loc)
	}
	if out.Detail == humaValidationFailed && len(said) > 0 {
		// huma's detail says only that something failed: say what, as the errors do.
		out.Detail = strings.Join(said, "; ")
	}
	return &out, nil
}

// humaValidationFailed is the detail huma gives every request that breaks the schema.
const humaValidationFailed = "validation failed"

// locationNames are the names a problem's error location may quote as they are: the
// location's first word, the service's parameters and body fields (operationNames), and
// author, which a body may not name. Any other name in a location came from the client (an
// unknown property or query parameter): a body's is quoted only when it is a plain name
// (quotable.Name), so that a mistyped field is named ("text"), and any other is replaced by
// "*": a problem never echoes what could be anything, a secret pasted in the wrong place
// among it.
type locationNames map[string]bool

// operationNames returns the locationNames of the operations documented in oapi: the name
// of every parameter of every operation, and every property, at any depth, of every
// operation's request body. New takes them from its API once its routes are registered, so
// that the names a problem quotes are the operations' own, however they change.
func operationNames(oapi *huma.OpenAPI) locationNames {
	names := locationNames{"body": true, "query": true, "path": true, "header": true, "author": true}
	seen := make(map[string]bool) // the $refs walked, for schemas that hold themselves
	var walk func(*huma.Schema)
	walk = func(sc *huma.Schema) {
		if sc == nil {
			return
		}
		if sc.Ref != "" && !seen[sc.Ref] && oapi.Components != nil && oapi.Components.Schemas != nil {
			seen[sc.Ref] = true
			walk(oapi.Components.Schemas.SchemaFromRef(sc.Ref))
		}
		for name, prop := range sc.Properties {
			names[name] = true
			walk(prop)
		}
		walk(sc.Items)
		if extra, ok := sc.AdditionalProperties.(*huma.Schema); ok {
			walk(extra)
		}
		for _, sub := range slices.Concat(sc.OneOf, sc.AnyOf, sc.AllOf) {
			walk(sub)
		}
		walk(sc.Not)
	}
	for _, item := range oapi.Paths {
		for _, op := range []*huma.Operation{item.Get, item.Put, item.Post, item.Delete, item.Options, item.Head, item.Patch, item.Trace} {
			if op == nil {
				continue
			}
			for _, param := range slices.Concat(item.Parameters, op.Parameters) {
				if param != nil {
					names[param.Name] = true
				}
			}
			if op.RequestBody != nil {
				for _, media := range op.RequestBody.Content {
					if media != nil {
						walk(media.Schema)
					}
				}
			}
		}
	}
	return names
}

// safeLocation returns loc ("body.audience[3]", "query.window") with every name that is
// not one of n, nor in the body a plain one, replaced by "*"; indexes are kept. The name
// of a query parameter not one of n is never quoted, plain or not: a URL is what gets
// pasted, secrets and all.
func (n locationNames) safeLocation(loc string) string {
	if loc == "" {
		return ""
	}
	parts := strings.Split(loc, ".")
	inBody := parts[0] == "body"
	for i, p := range parts {
		name, index, _ := strings.Cut(p, "[")
		if !n[name] && !(inBody && quotable.Name(name)) {
			name = "*"
		}
		if index != "" {
			if _, err := strconv.Atoi(strings.TrimSuffix(index, "]")); err == nil {
				name += "[" + index
			}
		}
		parts[i] = name
	}
	return strings.Join(parts, ".")
}

// problemDetail is the detail of a 5xx that huma raised: fixed text.
func problemDetail(status int) string {
	if status == http.StatusServiceUnavailable {
		return "the service is unavailable"
	}
	return "the server failed; its log has the reason"
}

// statusContext is a huma.Context that writes 400 where huma writes 422, so that every
// request the service cannot take is one status, with one type (invalid-request).
type statusContext struct{ humaContext }

// humaContext names huma.Context as a field that does not hide its Context method.
type humaContext = huma.Context

func (c statusContext) SetStatus(code int) {
	if code == http.StatusUnprocessableEntity {
		code = http.StatusBadRequest
	}
	c.humaContext.SetStatus(code)
}

// Unwrap returns the wrapped context (humago.Unwrap follows it to the request).
func (c statusContext) Unwrap() huma.Context { return c.humaContext }

// documentStatuses makes an operation's documented errors the ones it answers with: 400 in
// place of huma's 422, and the problem+json error schema for each.
func documentStatuses(op *huma.Operation) {
	r, ok := op.Responses["422"]
	if !ok {
		return
	}
	delete(op.Responses, "422")
	if _, ok := op.Responses["400"]; !ok {
		c := *r
		c.Description = http.StatusText(http.StatusBadRequest)
		op.Responses["400"] = &c
	}
}

// writeProblem writes p with the headers hdr, outside huma (middleware, routes that are no
// operation): the same body and content type huma writes.
func writeProblem(w http.ResponseWriter, p *huma.ErrorModel, hdr http.Header) {
	for k, vs := range hdr {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	body, err := json.Marshal(p)
	if err != nil { // an ErrorModel of strings always marshals
		body = []byte(`{"status":` + strconv.Itoa(p.Status) + `}`)
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)+1))
	w.WriteHeader(p.Status)
	w.Write(append(body, '\n'))
}

// withHeaders attaches response headers to a problem a handler returns.
func withHeaders(p *huma.ErrorModel, kv ...string) error {
	h := make(http.Header, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return huma.ErrorWithHeaders(p, h)
}
