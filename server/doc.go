// Package server is the HTTP service: one shared desk, over HTTP, as each participant sees
// it, for agents and people in any language.
//
//	st, err := sqlitestore.Open(ctx, "desk.db") // or pgstore.Open(ctx, dsn)
//	srv, err := server.New(st, server.Options{Logger: logger})
//	ln, err := net.Listen("tcp", server.DefaultAddr)
//	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
//	err = srv.Serve(ctx, ln, server.ServeOptions{}) // until ctx ends, then drains
//
// New takes a Store (sqlitestore.Store and pgstore.Store are ones) and Options and returns
// a Server, an http.Handler. Every route is in routes.go; GET /openapi.json describes them.
//
// # Routes
//
//	GET  /v1/desks                               the token's desk, with its head
//	GET  /v1/desks/{desk}/view?thread=&before=&window=&as=&rendered=   a transcript.Projection (+ rendered text)
//	POST /v1/desks/{desk}/messages               {content, parent?, audience?, key?}: 201, or 200 for a replayed key
//	PATCH  /v1/desks/{desk}/messages/{seq}       {content, key?}: an edit of the token's own row, 201 with the correction
//	DELETE /v1/desks/{desk}/messages/{seq}       {key?} or no body: a redaction (the row's author or the operator), 201
//	POST /v1/desks/{desk}/delta?as=&rendered=    {state, conversation?, before?}: {"delta":...} or {"reinitialize":...}
//	GET  /v1/desks/{desk}/threads?before=&limit=&as=         a transcript.ThreadList
//	GET  /v1/desks/{desk}/events?thread=&after=&as=          Server-Sent Events
//	GET  /v1/desks/{desk}/search?q=&thread=&before=&limit=&as=   {messages, next}: the newest rows holding every word of q
//	POST /mcp                                    the MCP tools (package deskmcp) for the token's participant
//	GET  /healthz, /metrics, /openapi.json       no token: they hold no desk's content or names
//
// and, for the inspector page:
//
//	GET    /                                     the sign-in form, or the inspector for a session
//	GET    /static/{file}                        its stylesheet, script and icon
//	POST   /v1/session                           an operator token for a session cookie and a CSRF token
//	DELETE /v1/session                           sign out
//	GET    /v1/desks/{desk}/rows?before=&limit=  the desk's rows as they are, oldest first: operator only
//	GET    /v1/desks/{desk}/rows/events?after=   every new row, live: operator only
//	GET    /v1/desks/{desk}/model?format=&thread=&before=&window=&as=   the view as its viewer's model reads it
//	GET    /v1/desks/{desk}/participants         every participant of the desk, also who never wrote: operator only
//	POST   /v1/desks/{desk}/elision-lines        {elided}: the lines transcript view writes for them
//
// Bodies are JSON, read strictly: an unknown field, a field named twice or in another case
// than the schema's, and text that is not valid UTF-8 are refused (400), never guessed at.
// Audience entries are participants in the command line's syntax ("agent:triage",
// "person:ana:Ana") or author objects as every answer writes them.
//
// # Identity
//
// Every /v1/ and /mcp request carries Authorization: Bearer SECRET, or the inspector's
// session cookie, which stands for its operator token; one function decides who a request
// is, and handlers read the participant from the request's context only. A missing,
// malformed, unknown or revoked token is 401. A desk other than the token's is 404 with a
// detail naming the token's own desk, the same whether the desk named exists or not; a
// thread root or a parent the participant may not read are 404, the same 404 as for one
// that does not exist. as= is for operator tokens only (403 otherwise), and shows exactly that
// participant's view, streams included.
//
// A token is checked against the store on every request, so that a revocation counts from
// the next request, by any process. On a store that can check a token in the statement
// that reads a page of rows (pgstore without standbys: token.Settler), a view or a thread
// list with a token the server accepted before is served while its token is checked by its
// reads, which read nothing unless the token is still good; the answer is written only
// once the check has passed (by a read, else by a lookup), and otherwise is the same 401.
//
// The session cookie (SessionCookie: HttpOnly, SameSite=Strict, Secure over TLS or with
// Options.SecureCookie, for Options.SessionTTL) is re-checked against its token on every
// request, so revoking the token ends its sessions. A request the cookie authenticates
// that is no GET or HEAD must carry the CSRF token in CSRFHeader (else 403).
//
// # Appends and keys
//
// The author is the token's participant. An append with a key the desk already holds for
// the same message is a replay: 200 with the stored row, whichever process stored it. An
// append, once begun, is not cancelled by the client leaving or by a drain
// (Options.AppendTimeout).
//
// # Corrections
//
// PATCH edits a row and DELETE redacts it: each appends a correction row that names it
// (Corrects), which the store applies to it in the same transaction — an edit's content
// replaces the row's, a redaction erases the row's content and its earlier edits' for
// good. The store decides who may correct what: a row the participant may not read is 404,
// as one that does not exist; not-author (403), redacted (409); a correction of a
// correction or of a blank row is 400. Every read afterwards shows the row as corrected
// (Revised, Redacted), streams and the inspector included. Once a redaction's 201 is sent,
// no stream writes what it erased: a stream still writing a part it prepared before writes
// the row erased, however slowly its client reads; one in the middle of writing the row
// stops at once, before the 201 is sent, and its client resumes from the last whole event
// (over HTTP/2, a frame the connection has taken already may still leave); and a stream
// opened or resumed after a redaction committed, by this server or any other process on
// the store, reads the desk's newest rows first (HeadReader) and never carries it.
//
// # Live stream
//
// GET events streams what the participant has not seen of the channel or a thread, from
// after= or Last-Event-ID (a watermark; the header wins; neither: the desk's head at
// connect): event: message, id: SEQ, the Message, for every row that qualifies, in
// sequence order, never the participant's own, each once; event: elided, id: its Through,
// an Elision; event: correction, id: SEQ, the correction row, once, when it corrects a row
// that qualifies for the participant (the delta's Corrections); event: reinitialize, {"reason": ...}, and the stream closes; a comment line
// every Options.Heartbeat. Ids only grow, so a client that reconnects with the last id it
// received gets exactly the rest. A watermark above the desk's newest row is reinitialize
// watermark_unavailable, and so is a desk deleted under an open stream (by any process):
// the stream ends, and one opened after carries only the new desk's rows. A stream holds no queue, only its watermark: a client that reads
// slowly delays only itself, and one that reads nothing for Options.WriteTimeout is let
// go. Rows appended by another process reach the streams through the store's Watcher, or
// within Options.PollInterval without one. A revoked token's streams receive nothing
// committed after the revocation.
//
// # MCP
//
// /mcp is the Model Context Protocol's streamable HTTP transport, stateless: each request is
// served for its own token's participant on the token's desk (package deskmcp), with read
// states kept in the store's books. Posts through it wake the desk's streams like any
// append.
//
// # Limits
//
// Request bodies are bounded (Options.MaxBody, 413), as is the time to read one. Each token
// has a rate limit (429) and a cap on its open streams (429, too-many-streams); all tokens
// together have one (503, streams-full, Options.MaxTotalStreams); failed authentications
// are rate-limited per client address (429), valid tokens never; all with Retry-After. No
// answer holds more than Options.MaxAnswerBytes of message content: a view drops its oldest
// messages past it and says how many (dropped); a delta, a stream and an MCP read deliver
// their oldest messages within it, with a next state that commits exactly those. CheckAddr
// says whether an address may be listened on: loopback always, any other with TLS or an
// explicit insecure HTTP. Serve, once its context ends, and Shutdown drain: new requests
// get 503, streams end after the event they are writing, appends in flight finish.
//
// # Errors
//
// Every error is application/problem+json (RFC 9457): type, title, status, detail, and for
// a request that breaks the schema, errors with a message and a location. The type is
// ProblemTypeBase and the kind:
//
//	kind                   status  when
//	invalid-request        400     malformed parameters, header or body; an unknown field; a bad as=; an invalid delta state;
//	                               a query parameter given twice or not UTF-8; a request net/http cannot parse
//	invalid-message        400     a message the store cannot keep
//	blank                  400     a post or an edit whose content is empty or white space only, which no view shows
//	invalid-audience       400     an audience the reply rule or the audience rules refuse
//	watermark-regression   400     a delta's before below its state's watermark
//	unauthorized           401     no token, or one malformed, unknown or revoked
//	forbidden              403     as= from a token that is not the operator's
//	not-author             403     an edit of a row by anyone but its author; a redaction by anyone but its author or the operator
//	not-found              404     no such desk, thread, parent, message or route, or one the token may not see
//	method-not-allowed     405     a route that takes other methods (Allow lists them)
//	request-timeout        408     the body did not arrive within Options.BodyReadTimeout
//	key-conflict           409     a key that names a different row
//	redacted               409     an edit or a redaction of a row that was redacted
//	too-large              413     a body over Options.MaxBody, or content over the stores' limit
//	unsupported-media-type 415     a body that is not JSON
//	range-not-satisfiable  416     a Range of the page's static files beyond the file
//	expectation-failed     417     an Expect header other than 100-continue (behind Serve)
//	rate-limited           429     the token's rate limit, or an address's failed authentications
//	too-many-streams       429     the token's cap on open streams
//	header-too-large       431     a request line and header fields over MaxHeaderBytes, however large (behind Serve)
//	internal               500     the server or its store failed (the log line has the reason)
//	not-implemented        501     a search of a store that cannot search; a transfer coding net/http does not know
//	unavailable            503     shutting down, or /healthz's store check failed
//	streams-full           503     the server's cap on open streams, all tokens together
//	http-version-not-supported 505 a request line of an HTTP version the server does not serve (behind Serve)
//
// Over TLS, a header block that net/http itself refuses (above 4 × MaxHeaderBytes) is
// answered by net/http, in plain text over HTTP/1.1 and in HTML over HTTP/2: Serve sees only
// encrypted bytes there, and net/http has no hook for it. A header block between
// MaxHeaderBytes and that is a problem over TLS too.
//
// No problem quotes what the client sent, any content, or any secret; a 500 says nothing
// of its cause. Each request is one log/slog line: method, route, status, duration, bytes,
// the token's public ID and desk; never a header, a query, a body or any content. GET
// /metrics is the Prometheus text format.
package server
