package server

import (
	"context"
	"errors"

	"github.com/sharedesk/transcript/server/internal/op"
	"github.com/sharedesk/transcript/server/internal/stream"
)

// ReinitializeEvent is the data of an event: reinitialize, after which the stream closes:
// the client reloads a view and streams again from its head.
type ReinitializeEvent = stream.ReinitializeEvent

// DigestEvent is the data of an event: digest, on a desk's rows stream (GET rows/events): a
// new digest of the conversation was stored, by the server or, over a DigestWatcher, another
// process; the event does not hold its text.
type DigestEvent = stream.DigestEvent

// opService is what the operations of the internal packages (page, stream) take from the
// server: its store, how it describes an operation and its problems.
func (s *Server) opService() op.Service {
	return op.Service{
		Store:     s.st,
		Operation: s.operation,
		Internal:  s.internal,
		Invalid:   func(detail string) error { return kindInvalidRequest.problem(detail) },
		Forbidden: func(detail string) error { return kindForbidden.problem(detail) },
	}
}

// streams is the server's event streams, over its fan-out (internal/stream).
func (s *Server) streams() *stream.Streams {
	return &stream.Streams{
		Service:        s.opService(),
		Hub:            s.hub,
		Sessions:       s.sess,
		Metrics:        &s.metrics.streams,
		Admit:          s.admitStream,
		Viewer:         viewer,
		CheckThread:    s.checkThread,
		Drain:          s.drain,
		Heartbeat:      s.opts.Heartbeat,
		WriteTimeout:   s.opts.WriteTimeout,
		MaxAnswerBytes: s.opts.MaxAnswerBytes,
		Logger:         s.opts.Logger,
	}
}

// admitStream counts one more open stream of ctx's token, or answers 429 past the token's
// cap on open streams and 503 past the server's, both with Retry-After.
func (s *Server) admitStream(ctx context.Context) (func(), error) {
	closeStream, err := s.limits.openStream(identity(ctx).ID)
	if err != nil {
		p := kindTooManyStreams.problem("the token holds the most open streams it may")
		if errors.Is(err, errServerStreams) {
			p = kindStreamsFull.problem("the server holds the most open streams it may: try again later")
		}
		return nil, withHeaders(p, "Retry-After", retryAfter(s.opts.StreamRetryAfter))
	}
	return closeStream, nil
}
