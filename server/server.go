package server

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	"github.com/sharedesk/transcript/server/internal/fanout"
	"github.com/sharedesk/transcript/server/internal/page"
	"github.com/sharedesk/transcript/token"
)

// Server is the HTTP service over one Store: an http.Handler. Make it with New;
// stop it with Shutdown. It is safe for concurrent use.
type Server struct {
	st      Store
	opts    Options
	api     huma.API // the operations, documented
	mux     *http.ServeMux
	handler http.Handler  // mux behind the request log and the drain gate
	openapi []byte        // GET /openapi.json, marshalled once routes are registered
	names   locationNames // what a problem's location may quote: the operations' own names
	hub     *fanout.Hub   // the fan-out: one tail per desk with open streams
	limits  *limits       // per-token rate and stream limits
	fails   *failLimits   // failed authentications by client address
	metrics *metrics
	sess    *page.Sessions // the inspector page's sign-ins
	page    *page.Page     // the inspector page's templates and static files
	mcp     http.Handler   // /mcp: the MCP tools for the token's participant
	folds   *folder        // the background folds; nil without Options.Digester
	tokens  *token.Cache   // the tokens of accepted requests, by hash; nil unless st is a token.Settler that settles

	gate     sync.RWMutex   // held for reading while a request starts, for writing when the drain begins
	draining bool           // under gate: refuse new requests
	inflight sync.WaitGroup // requests being served
	drain    chan struct{}  // closed when the drain begins: streams end
	once     sync.Once
}

// New returns the service over st with opts (zero fields take their defaults).
//
// The server keeps nothing of its own on disk: identity is st's tokens, content is st's
// rows, and a stream's state is its watermark. It starts no goroutine until a stream
// opens: the fan-out's tail of a desk lives while streams on that desk do, and the store's
// Watcher (or the poll) while any tail does.
func New(st Store, opts Options) (*Server, error) {
	if st == nil {
		return nil, errors.New("server: nil store")
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Server{
		st:      st,
		opts:    opts,
		mux:     http.NewServeMux(),
		metrics: newMetrics(),
		drain:   make(chan struct{}),
	}
	s.limits = newLimits(opts)
	s.fails = newFailLimits(opts.AuthFailureRate, opts.AuthFailureBurst, maxFailureAddrs, opts.Now)
	s.hub = fanout.NewHub(st, opts.fanout(), &s.metrics.fanout)
	if opts.Digester != nil {
		s.folds = newFolder(st, opts.Digester, opts.DigestPolicy, opts.DigestTimeout, opts.Logger, s.hub.Digests())
	}
	if ts, ok := st.(token.Settler); ok && ts.SettlesPending() {
		s.tokens = token.NewCache(tokenCacheSize)
	}
	s.sess = page.NewSessions(opts.SessionTTL, opts.Now)
	if s.page, err = page.New(); err != nil {
		return nil, err
	}
	if s.mcp, err = s.mcpHandler(); err != nil {
		return nil, err
	}

	config := huma.Config{
		OpenAPI: &huma.OpenAPI{
			OpenAPI: "3.1.0",
			Info: &huma.Info{
				Title:       "transcript",
				Version:     "1",
				Description: "One shared multi-party chat desk, as each participant sees it.",
			},
			Components: &huma.Components{
				Schemas: huma.NewMapRegistry("#/components/schemas/", schemaNamer),
				SecuritySchemes: map[string]*huma.SecurityScheme{
					bearerScheme: {Type: "http", Scheme: "bearer", Description: "A token secret (trs_...) from `transcript token add`."},
				},
			},
		},
		Formats:       map[string]huma.Format{"application/json": jsonFormat, "json": jsonFormat},
		DefaultFormat: "application/json",
		Transformers:  []huma.Transformer{s.cleanProblem},
	}
	registerSchemas(config.Components.Schemas)
	s.api = humago.New(s.mux, config)
	s.routes()
	s.names = operationNames(s.api.OpenAPI())
	s.openapi, err = s.api.OpenAPI().MarshalJSON()
	if err != nil {
		return nil, err
	}
	s.handler = s.logRequests(refuseLargeHeaders(strictQuery(s.names, s.mux)))
	return s, nil
}

// ServeHTTP serves a request, or refuses it with 503 once Shutdown has begun.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.gate.RLock()
	if s.draining {
		s.gate.RUnlock()
		w.Header().Set("Connection", "close")
		writeProblem(w, kindUnavailable.problem("the server is shutting down"), nil)
		return
	}
	s.inflight.Add(1)
	s.gate.RUnlock()
	defer s.inflight.Done()
	if strings.HasPrefix(r.URL.Path, "/v1/") || r.URL.Path == "/mcp" {
		// What a desk holds is one participant's: no cache keeps it, whether the request
		// came with a bearer token (which caches already honour) or a session cookie.
		w.Header().Set("Cache-Control", "private, no-store")
	}
	s.handler.ServeHTTP(w, r)
}

// Shutdown drains the server for SIGTERM: from now on every request is refused (503), every
// open stream ends after the event it is writing (nothing is sent half-written; a client
// reconnects elsewhere with its Last-Event-ID and loses nothing), and requests in flight,
// appends among them, are let finish. It returns once no request is in flight, or with
// ctx.Err() when ctx is done first. It is safe to call more than once.
//
// Behind an http.Server, register BeginDrain with RegisterOnShutdown (HTTPServer does), so
// that http.Server.Shutdown, which stops accepting connections and then waits for them to
// go idle, need not wait for streams that never would.
func (s *Server) Shutdown(ctx context.Context) error {
	s.BeginDrain()
	done := make(chan struct{})
	go func() { s.inflight.Wait(); close(done) }()
	defer s.folds.close() // after the appends in flight asked for theirs: none is left running
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// BeginDrain begins what Shutdown does and returns at once: new requests are refused and
// streams end.
func (s *Server) BeginDrain() {
	s.once.Do(func() {
		s.gate.Lock()
		s.draining = true
		s.gate.Unlock()
		close(s.drain)
	})
}

// HTTPServer returns an http.Server for s on addr, with the limits that belong to a
// connection: header, read and idle timeouts and a header size limit (four times
// MaxHeaderBytes, past which net/http stops reading and answers 431 itself, in text/plain,
// as it answers a request it cannot parse: Serve's connections turn those answers into
// problems), and BeginDrain registered to run when its Shutdown begins. A
// response's own write deadline is set per response (Options.WriteTimeout) and per event
// of a stream, so the server has no WriteTimeout, which would cut streams. The caller sets
// TLSConfig or calls ListenAndServeTLS for TLS (see CheckAddr).
func (s *Server) HTTPServer(addr string) *http.Server {
	hs := &http.Server{
		Addr:              addr,
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       s.opts.BodyReadTimeout + 10*time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    connectionHeaderBytes, // beyond MaxHeaderBytes the handler answers (refuseLargeHeaders)
	}
	hs.RegisterOnShutdown(s.BeginDrain)
	return hs
}
