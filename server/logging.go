package server

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// record is what a request's log line says besides what net/http knows: filled in by the
// middleware and handlers that learn it, through the request's context.
type record struct {
	tokenID string // the token's public ID (token.IDOf), never its secret
	desk    string // the token's desk
	refusal string // why authentication refused the request: missing, not-bearer, malformed, unknown, revoked
	err     error  // the server's own failure, for a 5xx: an error of the store or the library, which quote no content
}

type recordKey struct{}

// recordOf returns the record of ctx's request, or a record nobody reads.
func recordOf(ctx context.Context) *record {
	if r, ok := ctx.Value(recordKey{}).(*record); ok {
		return r
	}
	return new(record)
}

// noteError records err as the reason of the request's 5xx.
func noteError(ctx context.Context, err error) { recordOf(ctx).err = err }

// logRequests writes one log line per request, once it is served: method, route pattern
// (never the URL, whose query a client could fill with anything), status, duration, bytes
// written, the token's ID and desk. It never logs a header, a body or content. It counts
// the request for the metrics, and sets the response's write deadline.
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := new(record)
		r = r.WithContext(context.WithValue(r.Context(), recordKey{}, rec))
		sw := &statusWriter{ResponseWriter: w}
		http.NewResponseController(w).SetWriteDeadline(start.Add(s.opts.WriteTimeout))
		next.ServeHTTP(sw, r)

		route := r.Pattern
		if route == "" || route == "/" {
			route = "unmatched"
		}
		status := sw.status
		if status == 0 {
			status = http.StatusOK
		}
		method := knownMethod(r.Method)
		s.metrics.countRequest(route, method, status)
		attrs := []slog.Attr{
			slog.String("method", method),
			slog.String("route", route),
			slog.Int("status", status),
			slog.Duration("duration", time.Since(start)),
			slog.Int64("bytes", sw.bytes),
		}
		if rec.tokenID != "" {
			attrs = append(attrs, slog.String("token", rec.tokenID), slog.String("desk", rec.desk))
		}
		if rec.refusal != "" {
			attrs = append(attrs, slog.String("refused", rec.refusal))
		}
		level := slog.LevelInfo
		if rec.err != nil && status >= 500 {
			level = slog.LevelError
			attrs = append(attrs, slog.String("error", rec.err.Error()))
		}
		s.opts.Logger.LogAttrs(r.Context(), level, "request", attrs...)
	})
}

// statusWriter remembers a response's status and size. It unwraps, so that
// http.ResponseController reaches the connection's Flush and deadlines.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

// WriteHeader sends the response's status once. A later call changes nothing the client
// receives, and is dropped rather than handed to net/http, which would log it: huma makes
// one (499) when a client goes away while its answer is written.
func (w *statusWriter) WriteHeader(code int) {
	if w.status != 0 {
		return
	}
	if code >= 200 { // informational statuses (1xx) come before the one that counts
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

// Flush sends what is buffered (huma and the event stream look for http.Flusher).
func (w *statusWriter) Flush() { http.NewResponseController(w.ResponseWriter).Flush() }

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// knownMethod returns method when it is one of HTTP's registered methods, else "other": a
// log line or a metric's label never carries what a client made up, and the metrics of an
// unmatched route cannot grow without bound.
func knownMethod(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return method
	}
	return "other"
}
