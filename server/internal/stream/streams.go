// Package stream is the service's event streams: GET events, a view's delta live, and GET
// rows/events, the desk's rows live for the operator, with a note of each digest stored, by
// the server or another process on its store (fanout.DigestNotes: the conversation, never
// the text). A stream's state is a watermark and nothing else: each one reads what is new
// from its desk's shared tail (fanout.Tail) each time the tail's head moves, and writes it
// through the tail, part by part.
package stream

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server/internal/fanout"
	"github.com/sharedesk/transcript/server/internal/op"
	"github.com/sharedesk/transcript/server/internal/page"
)

// Streams opens the service's event streams. Make it with its fields set (server.Options
// says what each option means); it is safe for concurrent use.
type Streams struct {
	op.Service
	Hub      *fanout.Hub
	Sessions *page.Sessions // a stream opened with a session ends with it
	Metrics  *Metrics
	// Admit counts one more open stream of ctx's token, or answers the problem that refuses
	// it (too many of the token's, or of the server's). The stream calls closeStream once
	// it ends.
	Admit func(ctx context.Context) (closeStream func(), err error)
	// Viewer is whose view a stream of ctx's request is: the token's participant, or as's
	// for an operator token. Its errors are problems.
	Viewer func(ctx context.Context, as string) (transcript.Author, error)
	// CheckThread answers 404 for a thread of desk v may not read or that does not exist.
	CheckThread func(ctx context.Context, desk string, thread transcript.Sequence, v transcript.Author) error
	// Drain is closed when the service drains: every stream ends after the event it writes.
	Drain <-chan struct{}

	Heartbeat      time.Duration
	WriteTimeout   time.Duration
	MaxAnswerBytes int
	Logger         *slog.Logger
}

// EventKind is a kind of event a stream sends, for the Metrics' count of events.
type EventKind int

// The event kinds.
const (
	EventMessage EventKind = iota
	EventElided
	EventReinitialize
	EventCorrection
	EventDigest
)

// EventNames names each EventKind, as the metrics show it.
var EventNames = [...]string{EventMessage: "message", EventElided: "elided", EventReinitialize: "reinitialize", EventCorrection: "correction", EventDigest: "digest"}

// Metrics are the streams' counters, which the service's GET /metrics reports.
type Metrics struct {
	Open       atomic.Int64
	Events     [len(EventNames)]atomic.Uint64 // by EventKind
	Heartbeats atomic.Uint64
}
