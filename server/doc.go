// Package server is the HTTP service: one shared desk, over HTTP, as each
// participant sees it, for agents and people in any language.
//
//	st, err := sqlitestore.Open(ctx, "desk.db") // or pgstore.Open(ctx, dsn)
//	srv, err := server.New(st, server.Options{Logger: logger})
//	hs := srv.HTTPServer(server.DefaultAddr) // timeouts; Shutdown drains srv
//	go hs.ListenAndServe()
//	<-sigterm
//	hs.Shutdown(ctx) // no new connections, streams closed, requests in flight finished
//
// New takes a Store (sqlitestore.Store and pgstore.Store are ones) and Options, and
// returns a Server, an http.Handler. Every route is in routes.go; each handler decodes, calls
// the library (transcript.Project, transcript.ListThreads, sharing.Prepare, the store's
// Append) and encodes.
//
// # Routes
//
//	GET  /v1/desks                               the token's desk, with its head
//	GET  /v1/desks/{desk}/view?thread=&before=&window=&as=   a transcript.Projection
//	POST /v1/desks/{desk}/messages               {content, parent?, audience?, key?}: 201, or 200 for a replayed key
//	POST /v1/desks/{desk}/delta?as=              {state, conversation?, before?}: {"delta":...} or {"reinitialize":...}
//	GET  /v1/desks/{desk}/threads?before=&limit=&as=         a transcript.ThreadList
//	GET  /v1/desks/{desk}/events?thread=&after=&as=          Server-Sent Events
//	POST /mcp                                    the MCP tools (package deskmcp) for the token's participant
//	GET  /healthz, /metrics, /openapi.json       no token: they hold no desk's content or names
//
// and, for the inspector page:
//
//	GET    /                                     the page: the sign-in form, or the inspector for a session
//	GET    /static/{file}                        its stylesheet, script and icon
//	POST   /v1/session                           an operator token for a session cookie and a CSRF token
//	DELETE /v1/session                           sign out
//	GET    /v1/desks/{desk}/rows?before=&limit=  the desk's rows as they are, oldest first: operator only
//	GET    /v1/desks/{desk}/rows/events?after=   every new row, live: operator only
//	GET    /v1/desks/{desk}/model?format=&thread=&before=&window=&as=   the view as its viewer's model reads it
//	GET    /v1/desks/{desk}/participants         every participant of the desk, also who never wrote: operator only
//	POST   /v1/desks/{desk}/elision-lines        {elided}: the lines transcript view writes for them
//
// JSON in and out. The operations are huma v2 operations on net/http's ServeMux (humago),
// each with typed input and output structs, from which huma generates GET /openapi.json, an
// OpenAPI 3.1 document, and validates requests: an unknown body field or query parameter
// is refused, so a body cannot name an author and a mistyped as= is not silently the
// token's own view; the problem names an unknown body field when its name is plain
// (`unexpected property "text"`), never a query parameter's. A body is decoded strictly
// (unmarshalBody, with github.com/go-json-experiment/json): a name given twice (`duplicate
// property "id"`, never the last one winning) or in another case than the schema's
// ("Content") is refused too, inside an audience's objects and a delta's state as well, and
// so is text that is not valid UTF-8, raw or an escaped lone surrogate (never replaced by
// U+FFFD, which would make two different keys one). Huma was chosen for that: the document is the handlers' own types, not
// a second description to keep in step, and it validates against the same schema. Its sse
// package was not used (see sseWriter): the stream is written here, and described in the
// document by hand.
//
// Audience entries of a new message are participants in the command line's syntax
// ("agent:triage", "person:ana:Ana"), as for --to and the MCP tools, or author objects as
// the stored Message and every other answer write them, so that an audience read can be
// posted back as it is.
//
// # Identity
//
// Every /v1/ request, and every /mcp request, carries Authorization: Bearer SECRET, or the
// inspector page's session cookie (below), which stands for its operator token. One
// function (admit, behind the huma middleware authenticate and the net/http middleware
// authenticateHTTP of /mcp) calls token.Authenticate and puts the token in the request's
// context; handlers take the author and the viewer from there and from nowhere else. A missing, malformed, unknown or
// revoked token, or two Authorization headers, is 401 with WWW-Authenticate: Bearer (a
// header without the Bearer scheme is told how to write it, without being quoted); a
// store that cannot say is 500. A path naming another desk than the token's is 404, the
// same 404 as for a desk that does not exist; so are a thread root or a parent the
// participant may not read: "no such thread", "no such parent", whether it exists or not,
// with nothing of it in the answer. as= is for operator tokens only (403 otherwise), and
// the operator then sees exactly that participant's view, stream included.
//
// A browser's EventSource cannot send an Authorization header, so the page signs in:
// POST /v1/session with an operator's bearer token answers a session cookie
// (SessionCookie: HttpOnly, SameSite=Strict, Path=/, Secure over TLS or with
// Options.SecureCookie, for Options.SessionTTL) and a CSRF token. identify is the one
// place that decides who a request is, for the API's middleware and the page alike: a
// request without Authorization is the session its cookie names, whose token
// token.Authenticate checks again on every request,
// so a cookie and a bearer token end in the same token in the context, and a revoked token
// ends its sessions. A request the cookie authenticates that is no GET or HEAD must carry
// the CSRF token in CSRFHeader (else 403): SameSite=Strict keeps the cookie from other
// sites' requests, and the token keeps a request from being forged where it does not. A
// signed-out or expired session is 401; a stream opened with it ends at its next heartbeat.
// The session keeps the token's Authorization header in memory only; no log line holds it,
// the cookie or the CSRF token.
//
// # The inspector page
//
// The page is files in web/, embedded (page.go): one html/template, one stylesheet, one
// script, an icon; no build step, nothing fetched from elsewhere, and a
// Content-Security-Policy that lets the page run only its own script. The script draws the
// desk column from the rows routes and each viewer column from view, events (as=), delta
// and model, the routes every client uses: what a column shows is the API's answer for that
// participant, and the model input is render.ModelInput's bytes, the implementation
// transcript view --format shares. It puts the desk's text in with textContent only.
//
// # MCP
//
// /mcp is the Model Context Protocol's streamable HTTP transport (the official Go SDK's),
// stateless: every request is served by an MCP server made for the participant of its own
// token, on the token's desk, so no request can act in another token's session. Its read
// states are the store's books (sharing.BookStore) and the reads staged between a read and
// its acknowledgement, which the requests share (see package deskmcp). Posts through it
// wake the desk's event streams like any append.
//
// # Errors
//
// Every error is application/problem+json (RFC 9457): type, title, status, detail, and for
// a request that breaks the schema, errors with a message and a location. The type is
// ProblemTypeBase and the kind, a tag URI (RFC 4151, as RFC 9457 §3.1.1 suggests for a type
// that is an identifier and no page):
//
//	kind                   status  when
//	invalid-request        400     malformed parameters, header or body; an unknown field (a body naming an author); a bad as=; an invalid delta state
//	invalid-message        400     a message the store cannot keep (transcript.ValidateNew, NUL bytes)
//	invalid-audience       400     an audience ValidateNew or the reply rule refuses
//	watermark-regression   400     a delta's before below its state's watermark
//	unauthorized           401     no token, or one malformed, unknown or revoked
//	forbidden              403     as= from a token that is not the operator's
//	not-found              404     no such desk, thread, parent or route, or one the token may not see
//	method-not-allowed     405     a route that takes other methods (Allow lists them)
//	request-timeout        408     the body did not arrive within Options.BodyReadTimeout
//	key-conflict           409     a key that names a different row
//	too-large              413     a body over Options.MaxBody, content over the store's limit
//	unsupported-media-type 415     a body that is not JSON
//	rate-limited           429     the token's rate limit; an address's failed authentications past Options.AuthFailureBurst (Retry-After)
//	too-many-streams       429     the token's cap on open streams (Retry-After)
//	header-too-large       431     header fields over MaxHeaderBytes
//	internal               500     the server or its store failed (the log line has the reason)
//	unavailable            503     shutting down, or /healthz's store check failed
//	streams-full           503     the server's cap on open streams, all tokens together (Retry-After)
//
// Huma answers a value that breaks the schema with 422; here it is 400, one status and one
// type for every request the service cannot take. No problem quotes what the client sent
// (huma's echo of the offending value is removed, and a location names only the service's
// own fields), any content, or any secret; a 500 says nothing of its cause.
//
// # Appends and keys
//
// The author is the token's participant. The server checks what it can before the store
// does, so that each refusal has a precise and safe answer: the content's size (413), the
// message (400), the parent (404 when it does not exist or the author may not read it:
// one read of one row, and rows never change, so the answer holds), and the reply rule on
// that parent (400). An append with a key is a replay (200, the stored row) when the store
// stored no new row for it (transcript.NewRowAppender): of concurrent appends of one key,
// through any number of processes over one database, exactly one is 201. An append, once
// begun, is not cancelled by the client leaving or by a drain (Options.AppendTimeout).
//
// # Live stream
//
// GET events streams what the participant has not seen of the channel or a thread, from
// after= or Last-Event-ID (a watermark; the header, which a reconnecting EventSource sends,
// wins; neither: the desk's head at connect): event: message, id: SEQ, the Message, for
// every row that qualifies, in sequence order, never the participant's own, each once;
// event: elided, id: its Through, an Elision; event: reinitialize, {"reason": ...}, and the
// stream closes; a comment line every Options.Heartbeat. Ids only grow, so a client that
// reconnects with the last id it received gets exactly the rest.
//
// A stream's state is a sharing.State: a watermark. It holds no queue: each time its desk
// has new rows it runs sharing.Prepare from its watermark and writes what comes, each event
// whole, in one write under a write deadline. A client that reads slowly holds up only its
// own next Prepare, which then covers more rows (or, past transcript.ScanLimit of them,
// says reinitialize); one that reads nothing for Options.WriteTimeout is let go. A
// watermark above the desk's newest row (an id from another database, or from before a
// restore) is reinitialize watermark_unavailable, since the rows up to it would never come;
// one the store holds and the tail has yet to read (the answer to the client's own post)
// waits for the tail.
//
// The streams of a desk share one tail of its rows (tail.go): made by the first stream,
// dropped with the last, it keeps the newest rows in memory (Options.TailRows, TailBytes)
// and, on each wake-up, reads the desk's new rows from the store once, however many
// streams wait. Its transcript.Log answers from memory when it holds the range and from
// the store otherwise; it passes logtest. A tail wakes when this server appends to its
// desk, when the store's Watcher names the desk (a row appended by another process:
// PostgreSQL's LISTEN/NOTIFY, SQLite's data_version), and, while the store has no Watcher or
// its watch is lost, every Options.PollInterval (default 500 ms, so that another process's
// row reaches the streams within a second).
//
// A revoked token receives nothing more. With each read of new rows the tail reads the
// desk's tokens (one read for all its streams), and a stream whose token is no longer good
// (token.StillGood) ends instead of sending them: a row committed after the token was
// revoked, by this process or by `transcript token revoke` behind its back, never reaches
// the token's streams. A stream with nothing to send checks its token at every heartbeat
// (token.Recheck) and ends once it is revoked, or when the store cannot say.
//
// # Limits and lifecycle
//
// Request bodies are bounded (Options.MaxBody, 413), as is the time to read one; HTTPServer
// sets header, read and idle timeouts; each token has a rate limit (429 with Retry-After,
// golang.org/x/time/rate) and a cap on its open streams (429, too-many-streams, with
// Retry-After: a client's own limit, not the server's overload); all tokens together have a
// cap on open streams (503, streams-full, Options.MaxTotalStreams), so that streams leave
// file descriptors to every other request; failed authentications are rate-limited per
// client address (Options.AuthFailureRate), valid tokens never. No answer holds more than
// Options.MaxAnswerBytes of message content: a view drops its oldest messages past it and
// says how many (dropped), a delta, a stream and an MCP read deliver their oldest messages
// within it with a next state that commits exactly those, and a stream writes event by
// event, so that a client that stops reading holds a budget, not the desk. CheckAddr says whether an
// address may be listened on: loopback always, any other with TLS or an explicit insecure
// HTTP. Shutdown, or http.Server.Shutdown of HTTPServer's server, drains: new requests get
// 503, streams end after the event they are writing, appends in flight finish.
//
// Each request is one log/slog line: method, route pattern, status, duration, bytes, the
// token's public ID (token.IDOf) and desk, why authentication refused it, and for a 5xx the
// error. Never a header, a query, a body or any content: never a secret. GET /metrics is the
// Prometheus text format, written by hand (a dependency on the client library is not
// worth its few counters): requests by route, method and status, open streams, events
// sent, heartbeats, open tails, tail wake-ups, the tails' store reads and fallbacks,
// appends created and replayed, rate-limited requests.
package server
