package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"sync"
	"time"

	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/internal/cliflag"
	"github.com/sharedesk/transcript/internal/dbflag"
	"github.com/sharedesk/transcript/internal/digestflag"
	"github.com/sharedesk/transcript/internal/quotable"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/token"
)

// The command's store is a server.Store: every store the commands open can be served.
var _ server.Store = store(nil)

// serveFlags are serve's flags, checked before anything is opened.
type serveFlags struct {
	df           dbflag.Flags // --db, --init-db and --read-db
	addr         string
	tlsCert      string
	tlsKey       string
	insecureHTTP bool
	opts         server.Options // --rate, --burst, the streams' and the answers' limits, --secure-cookie
	drainTimeout time.Duration
	logFormat    string
	demo         bool
	digester     digestflag.Flags // --digester, --model, --base-url and --digest-timeout
}

func runServe(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "serve", "[flags]", `
Serve the database's desks over HTTP: JSON in and out, application/problem+json
errors, an OpenAPI 3.1 document at /openapi.json, Server-Sent Events at
/v1/desks/DESK/events, /healthz and /metrics, and the Model Context Protocol at /mcp
(streamable HTTP; the tools of "transcript mcp"). Every /v1/ and /mcp request carries
Authorization: Bearer SECRET, a secret from "transcript token add": the token is one
participant on one desk, the author of what it posts and the viewer of what it reads. Tokens added or revoked
while serve runs take effect at their next request.

serve listens on the loopback interface unless --addr says otherwise; another address
needs TLS (--tls-cert and --tls-key) or, behind a proxy that terminates TLS, an explicit
--insecure-http. Once listening it prints one line to standard error, "listening on
http://HOST:PORT" (with the port chosen, for --addr HOST:0), and then one log line per
request (never a secret, a header, a query or any content). No answer holds more than
--max-answer-bytes of message content: a view drops its oldest messages and says how many,
a delta, a stream and an MCP read deliver the oldest within it and the rest on the next read.

SIGTERM or SIGINT drains the server: it stops accepting connections, answers new requests
503, ends each event stream after the event it is writing (a client reconnects with its
Last-Event-ID and loses nothing), lets requests in flight finish, appends among them, and
exits 0. Past --drain-timeout it cuts what is left and exits 1.

A SQLite database that does not exist is created, as for import and append. With SQLite,
rows that other processes append (transcript append, import) reach the streams too; with
PostgreSQL, several serve processes can share one database, and --read-db names hot
standbys to read from (the live streams still hear of new rows from --db).

At / is the inspector: sign in with an operator token and see the desk and, side
by side and live, what chosen participants see of it. --demo loads the demo desk (desk
"demo", as the demo command builds it), makes an operator token for it and prints, on
standard output, the page's address and the token, which is deleted when serve stops.

After appends serve folds, in the background, the digests of the desk's channel and of the
thread of an appended reply (never delaying an append's answer; one fold per conversation
at a time): --digester extractive (the default; no model), openai (Chat Completions at
--base-url, else OPENAI_BASE_URL or OpenAI's, with --model, the key from OPENAI_API_KEY)
or none; a fold whose digester has not answered within --digest-timeout fails and leaves
the digest as it was. Views with digest=true carry them; POST /v1/desks/DESK/digest (an
operator token) folds now, after the fold of the same conversation that runs, if one does.`)
	f := serveFlags{digester: digestflag.Flags{AllowNone: true}}
	fs.StringVar(&f.df.DB, "db", dbflag.Default, dbflag.Usage)
	dbflag.AddInitDB(fs, &f.df.Opts.InitSchema)
	f.df.AddReadDB(fs)
	fs.StringVar(&f.addr, "addr", server.DefaultAddr, "the `host:port` to listen on (port 0: a free port, which the listening line names)")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "serve HTTPS with this PEM certificate `file` (chain included), with --tls-key")
	fs.StringVar(&f.tlsKey, "tls-key", "", "the PEM private key `file` of --tls-cert")
	fs.BoolVar(&f.insecureHTTP, "insecure-http", false, "allow plain HTTP on an address beyond loopback (behind a proxy that terminates TLS)")
	fs.BoolVar(&f.opts.SecureCookie, "secure-cookie", false, "mark the inspector's session cookie Secure over plain HTTP too (behind a proxy that terminates TLS)")
	fs.Float64Var((*float64)(&f.opts.Rate), "rate", server.DefaultRate, "the `requests` a second one token may make, sustained (inf: no limit); past them, 429 with Retry-After")
	fs.IntVar(&f.opts.Burst, "burst", server.DefaultBurst, "how many `requests` one token may make at once, above --rate")
	fs.IntVar(&f.opts.MaxStreams, "max-streams", server.DefaultMaxStreams, "how many event `streams` one token may hold open at once; one more is 429")
	fs.IntVar(&f.opts.MaxTotalStreams, "max-total-streams", 0, "how many event `streams` all tokens together may hold open at once; one more is 503 with Retry-After (0: half the file descriptors beyond 256, (RLIMIT_NOFILE-256)/2, at most 65536)")
	fs.IntVar(&f.opts.MaxAnswerBytes, "max-answer-bytes", server.DefaultMaxAnswerBytes, "the most message content, in `bytes`, one answer holds: a view drops its oldest messages past it and says how many (dropped); a delta, a stream and an MCP read deliver their oldest messages within it and the rest on the next read")
	fs.DurationVar(&f.drainTimeout, "drain-timeout", server.DefaultDrainTimeout, "how long SIGTERM waits for requests in flight before cutting them")
	fs.StringVar(&f.logFormat, "log-format", "text", "the request log's `format` on standard error: text or json")
	fs.StringVar(&f.digester.Name, "digester", "extractive", "who folds the digests in the background: `extractive`, openai or none")
	fs.StringVar(&f.digester.Model, "model", "", "the `model` --digester openai asks (required with it)")
	fs.StringVar(&f.digester.BaseURL, "base-url", "", "the OpenAI-compatible endpoint's base `URL` for --digester openai, https or plain http to a loopback host (default OPENAI_BASE_URL, else OpenAI's)")
	fs.DurationVar(&f.digester.Timeout, "digest-timeout", digest.DefaultTimeout, "the most one fold's digester may take to answer (with openai: the model's answer, its retries included); past it the fold fails and the digest stays as it was")
	fs.BoolVar(&f.demo, "demo", false, "load the demo desk, make an operator token for it, and print the inspector's address and the token")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	var tlsConfig *tls.Config
	if f.tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(f.tlsCert, f.tlsKey)
		if err != nil {
			return fmt.Errorf("serve: loading --tls-cert and --tls-key: %w", err)
		}
		tlsConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}

	logs := f.logHandler(e)
	f.df.Opts.StandbyReport = func(err error) {
		slog.New(logs).Warn("a standby is set aside", "error", err.Error())
	}
	// Listen first: a serve that cannot listen creates no database and loads no demo desk.
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", f.addr)
	if err != nil {
		return listenError(f.addr, err)
	}
	st, err := f.df.WithIndexProgress(e.stderr, e.progress).Open(ctx)
	if err != nil {
		ln.Close()
		return err
	}
	drained, err := f.serve(ctx, e, st, ln, logs, tlsConfig)
	closeErr := st.Close()
	if !drained {
		return err
	}
	if closeErr != nil {
		err = errors.Join(err, fmt.Errorf("closing the database: %w", closeErr))
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("serve: the drain did not finish within %v (--drain-timeout): the connections left were cut", f.drainTimeout)
	}
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	fmt.Fprintln(e.stderr, "stopped: every request finished")
	return nil
}

// serve serves st on ln until the server drains, and reports whether it did: when it did
// not (it failed to start, or its listener failed), err is the command's error. It closes
// ln, whether the server starts or not. With --demo it loads the demo desk first, and
// deletes the token it makes for it once: as the drain begins (the page's sessions end with
// it), else as serve returns, its secret printed or not.
func (f serveFlags) serve(ctx context.Context, e *env, st store, ln net.Listener, logs slog.Handler, tlsConfig *tls.Config) (drained bool, err error) {
	serving := false // the server owns ln: it closes it as it returns
	defer func() {
		if !serving {
			ln.Close()
		}
	}()
	var demoSecret string
	var demoToken token.Token
	dropToken := sync.OnceFunc(func() { dropDemo(e, st, demoToken) })
	defer dropToken()
	if f.demo {
		if demoSecret, demoToken, err = loadDemo(ctx, e, st); err != nil {
			return false, err
		}
	}
	opts := f.options(logs)
	if opts.Digester, err = f.newDigester(e, st); err != nil {
		return false, err
	}
	srv, err := server.New(st, opts)
	if err != nil {
		return false, err
	}
	scheme := "http"
	if tlsConfig != nil {
		scheme = "https"
	}
	fmt.Fprintf(e.stderr, "listening on %s://%s\n", scheme, ln.Addr())
	if f.demo {
		printDemoSignIn(e, scheme, ln.Addr(), demoSecret)
	}
	serving = true
	err = srv.Serve(ctx, ln, server.ServeOptions{
		TLSConfig:    tlsConfig,
		ErrorLog:     slog.NewLogLogger(logs, slog.LevelWarn), // TLS handshake failures and the like, in the log's format
		DrainTimeout: f.drainTimeout,
		Draining: func(cause error) {
			drained = true
			dropToken()
			reason := "stopping"
			if cause != nil && cause != context.Canceled { // a signal's cause matches context.Canceled too, and says which signal
				reason = cause.Error()
			}
			fmt.Fprintf(e.stderr, "%s: draining (new requests get 503; streams end; requests in flight finish, for up to %v)\n", reason, f.drainTimeout)
		},
	})
	if !drained { // it stopped on its own: the listener failed
		return false, fmt.Errorf("serve: %w", err)
	}
	return true, err
}

// listenError is the error of serve, which could not listen on addr, --addr, for err: a
// usage error when addr is no address to listen on (a port out of range), else the failure
// to listen there (the port taken, a host that does not resolve). Either names --addr.
func listenError(addr string, err error) error {
	_, usage := errors.AsType[*net.AddrError](err)
	if !quotable.Text(addr) { // net's error quotes the address too
		if usage {
			return usageErrorf("serve --addr (%s): it is no address to listen on", quotable.NotQuoted)
		}
		return fmt.Errorf("serve --addr (%s): cannot listen there", quotable.NotQuoted)
	}
	if usage {
		return usageErrorf("serve --addr %s: %v", addr, err)
	}
	return fmt.Errorf("serve --addr %s: %w", addr, err)
}

// check refuses flags serve cannot run with, as usage errors, before anything is opened:
// among them a plain-HTTP address beyond loopback (server.CheckAddr).
func (f serveFlags) check() error {
	switch {
	case (f.tlsCert == "") != (f.tlsKey == ""):
		return usageErrorf("serve: --tls-cert and --tls-key go together")
	case f.tlsCert != "" && f.insecureHTTP:
		return usageErrorf("serve: --insecure-http and --tls-cert: choose one")
	case math.IsNaN(float64(f.opts.Rate)) || f.opts.Rate <= 0:
		return usageErrorf("serve: --rate must be above 0 (inf for no limit)")
	case f.opts.Burst < 1:
		return usageErrorf("serve: --burst must be at least 1")
	case f.opts.MaxStreams < 1:
		return usageErrorf("serve: --max-streams must be at least 1")
	case f.opts.MaxTotalStreams < 0:
		return usageErrorf("serve: --max-total-streams must be at least 1, or 0 for the default")
	case f.opts.MaxAnswerBytes < 1:
		return usageErrorf("serve: --max-answer-bytes must be at least 1")
	case f.drainTimeout <= 0:
		return usageErrorf("serve: --drain-timeout must be above 0")
	}
	if err := cliflag.OneOf("serve: --log-format", f.logFormat, "text", "json"); err != nil {
		return err
	}
	if _, err := f.digester.Digester(); err != nil {
		return err
	}
	if !quotable.Text(f.addr) { // a host name would be sent to the resolver
		return usageErrorf("serve --addr (%s): want HOST:PORT, such as %s", quotable.NotQuoted, server.DefaultAddr)
	}
	var bad *server.AddrError
	if err := server.CheckAddr(f.addr, f.tlsCert != "", f.insecureHTTP); errors.As(err, &bad) {
		if !quotable.Text(bad.Addr) {
			return usageErrorf("serve --addr (%s): it %s", quotable.NotQuoted, bad.Reason)
		}
		return usageErrorf("serve --addr %s: it %s", bad.Addr, bad.Reason)
	} else if err != nil {
		return usageErrorf("serve --addr: %v", err)
	}
	return nil
}

// options are the server's options for f, with logs as their log.
func (f serveFlags) options(logs slog.Handler) server.Options {
	o := f.opts
	o.Logger = slog.New(logs)
	o.DigestTimeout = f.digester.Timeout
	return o
}

// newDigester is the digester of --digester, nil for none; and nil, said once on standard
// error, when st's logs keep no digests.
func (f serveFlags) newDigester(e *env, st store) (digest.Digester, error) {
	d, err := f.digester.Digester()
	if d == nil || err != nil {
		return nil, err
	}
	if _, ok := st.Log("").(digest.Store); !ok {
		fmt.Fprintln(e.stderr, "serve: the database keeps no digests: none is folded")
		return nil, nil
	}
	return d, nil
}

// logHandler is the request log's handler: text or JSON lines on standard error.
func (f serveFlags) logHandler(e *env) slog.Handler {
	if f.logFormat == "json" {
		return slog.NewJSONHandler(e.stderr, nil)
	}
	return slog.NewTextHandler(e.stderr, nil)
}
