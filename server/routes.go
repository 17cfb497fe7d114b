package server

import (
	"net/http"

	"github.com/danielgtaylor/huma/v2"
)

// bearerScheme names the security scheme of every /v1/ operation in the OpenAPI document.
const bearerScheme = "bearer"

// routes registers every route of the service, top to bottom. The /v1/ operations go
// through a group whose middleware authenticates (authenticate, the only place that decides
// who a request is) and whose modifier documents the statuses they answer with.
func (s *Server) routes() {
	public := huma.NewGroup(s.api)
	public.UseMiddleware(mapStatus)
	public.UseSimpleModifier(documentStatuses)

	huma.Register(public, s.operation("healthz", http.MethodGet, "/healthz",
		"Liveness, with a check of the store", false, http.StatusServiceUnavailable), s.healthz)
	huma.Register(public, s.metricsOperation(), s.serveMetrics)

	streams := s.streams()
	v1 := huma.NewGroup(s.api)
	v1.UseMiddleware(mapStatus, s.authenticate)
	v1.UseSimpleModifier(documentStatuses)

	huma.Register(v1, s.operation("listDesks", http.MethodGet, "/v1/desks",
		"The desks the token may use, with their heads", true), s.listDesks)
	huma.Register(v1, s.operation("view", http.MethodGet, "/v1/desks/{desk}/view",
		"The channel or a thread as the token's participant sees it", true,
		http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound), s.view)
	huma.Register(v1, s.appendOperation(), s.appendMessage)
	huma.Register(v1, s.correctionOperation("editMessage", http.MethodPatch,
		"Edit a row the token's participant wrote", "its content becomes the body's, which may not be blank: 400 blank for content empty or white space only", "the row's author"), s.editMessage)
	huma.Register(v1, s.correctionOperation("redactMessage", http.MethodDelete,
		"Redact a row: erase its content for good", "its content, and that of every earlier correction of it, is erased",
		"the row's author or the operator"), s.redactMessage)
	huma.Register(v1, s.operation("delta", http.MethodPost, "/v1/desks/{desk}/delta",
		"What the participant has not seen since its state", true,
		http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusRequestTimeout,
		http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType), s.delta)
	huma.Register(v1, s.operation("listThreads", http.MethodGet, "/v1/desks/{desk}/threads",
		"The newest threads the participant can read", true,
		http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound), s.listThreads)
	streams.RegisterEvents(v1) // GET events (internal/stream)
	huma.Register(v1, s.searchOperation(), s.search)
	huma.Register(v1, s.digestOperation(), s.foldDigest)

	// The inspector page and what it needs besides the routes above: a session for its
	// operator, the desk's rows as they are, a view as its viewer's model reads it, the
	// desk's participants and the words of elisions (internal/page); the desk's rows live
	// (internal/stream); the page itself and its static files.
	s.pageAPI().Register(v1)      // POST and DELETE session, GET rows, model and participants, POST elision-lines
	streams.RegisterRowEvents(v1) // GET rows/events
	s.mux.HandleFunc("GET /{$}", s.servePage)
	s.mux.Handle("GET /static/{file}", plainErrorsAsProblems(http.HandlerFunc(s.page.ServeStatic), staticErrorDetail))

	s.mux.Handle("/mcp", plainErrorsAsProblems(s.mcp, mcpErrorDetail)) // MCP, authenticated as the /v1/ routes are (mcp.go)
	s.mux.HandleFunc("GET /openapi.json", s.serveOpenAPI)
	s.mux.HandleFunc("/", s.noRoute)
}

// operation describes one operation: its errors are the statuses it answers with besides
// 200 (and, for every operation with a token, 400 for an unknown query parameter, 401 and
// 429; 503 while the server drains; huma adds 400 for parameters and a body, and 500). A body may be Options.MaxBody
// long and must arrive within Options.BodyReadTimeout.
func (s *Server) operation(id, method, path, summary string, withToken bool, errs ...int) huma.Operation {
	op := huma.Operation{
		OperationID:     id,
		Method:          method,
		Path:            path,
		Summary:         summary,
		Errors:          errs,
		MaxBodyBytes:    s.opts.MaxBody + 1, // huma refuses a body that reaches its limit
		BodyReadTimeout: s.opts.BodyReadTimeout,
	}
	if withToken {
		op.Security = []map[string][]string{{bearerScheme: {}}}
		op.Errors = append(op.Errors, http.StatusBadRequest, http.StatusUnauthorized, http.StatusTooManyRequests)
		op.RejectUnknownQueryParameters = true
	}
	op.Errors = append(op.Errors, http.StatusServiceUnavailable) // every route, while the server drains
	return op
}

// mapStatus answers 400 where huma answers 422 (statusContext).
func mapStatus(ctx huma.Context, next func(huma.Context)) { next(statusContext{ctx}) }

// serveOpenAPI serves the OpenAPI 3.1 document generated from the operations' types.
func (s *Server) serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/openapi+json")
	w.Write(s.openapi)
}

// noRoute answers a request no route takes: 405 with Allow for a path that exists for
// other methods, else 404; both as problems.
func (s *Server) noRoute(w http.ResponseWriter, r *http.Request) {
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete} {
		if m == r.Method {
			continue
		}
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "/" && pattern != "" {
			allow = append(allow, m)
		}
	}
	if len(allow) > 0 {
		writeProblem(w, kindMethodNotAllowed.problem("the route does not take this method"), http.Header{"Allow": allow})
		return
	}
	writeProblem(w, kindNotFound.problem("no such route"), nil)
}
