package server

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"log"
	"net"
	"net/http"
	"time"
)

// DefaultDrainTimeout is how long Serve's drain waits for requests in flight by default.
const DefaultDrainTimeout = 10 * time.Second

// ServeOptions are how Serve serves and drains; the zero value serves plain HTTP.
type ServeOptions struct {
	// TLSConfig, when not nil, serves HTTPS with its certificates (see CheckAddr).
	TLSConfig *tls.Config
	// ErrorLog receives what goes wrong with connections (TLS handshakes and the like);
	// nil: the log package's standard logger.
	ErrorLog *log.Logger
	// DrainTimeout bounds the drain once ctx is done; 0: DefaultDrainTimeout.
	DrainTimeout time.Duration
	// Draining, when not nil, is called once ctx is done and before the drain begins, with
	// ctx's cause (context.Cause).
	Draining func(cause error)
}

// Serve serves s on ln, with the http.Server HTTPServer makes, until ctx is done, and then
// drains: the listener closes and new requests get 503, every open stream ends after the
// event it is writing, and Serve waits, within opts.DrainTimeout, for the connections to go
// idle and for every request in flight to finish, appends among them. It returns nil once
// they did; past the timeout it closes the connections left and returns an error matching
// context.DeadlineExceeded. When serving stops on its own (ln fails), Serve begins the
// drain, closes every connection at once and returns ln's error. Serve closes ln; the
// store is the caller's to close once Serve returns.
func (s *Server) Serve(ctx context.Context, ln net.Listener, opts ServeOptions) error {
	hs := s.HTTPServer(ln.Addr().String())
	ln = problemListener(ln) // net/http's own errors, a 431 among them, as problems
	hs.TLSConfig = opts.TLSConfig
	hs.ErrorLog = opts.ErrorLog
	served := make(chan error, 1)
	go func() {
		if hs.TLSConfig != nil {
			served <- hs.ServeTLS(ln, "", "") // the certificates are in hs.TLSConfig
		} else {
			served <- hs.Serve(ln)
		}
	}()
	select {
	case err := <-served: // it stopped on its own: the listener failed
		s.BeginDrain()
		hs.Close()
		return err
	case <-ctx.Done():
	}
	if opts.Draining != nil {
		opts.Draining(context.Cause(ctx))
	}
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cmp.Or(opts.DrainTimeout, DefaultDrainTimeout))
	defer cancel()
	// http.Server.Shutdown closes the listener, runs BeginDrain (HTTPServer registers it),
	// so that streams end and the connections can go idle, and waits for them; s.Shutdown
	// then waits for the requests a connection's Shutdown does not wait for.
	err := hs.Shutdown(dctx)
	if err == nil {
		err = s.Shutdown(dctx)
	}
	if err != nil {
		hs.Close()
	}
	if serveErr := <-served; !errors.Is(serveErr, http.ErrServerClosed) {
		err = errors.Join(err, serveErr)
	}
	return err
}
