package fanout

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/token"
)

// Store is what the fan-out reads of the service's store: a desk's log and its tokens. The
// optional capabilities it looks for are the service's (server.Watcher, server.HeadWatcher,
// server.HeadReader, server.DigestWatcher), whose doc comments state their contracts.
type Store interface {
	Log(desk string) transcript.Log
	token.Store
}

// watcher is server.Watcher.
type watcher interface {
	Watch(ctx context.Context) (<-chan string, error)
}

// headWatcher is server.HeadWatcher.
type headWatcher interface {
	WatchHeads(ctx context.Context) (<-chan map[string]transcript.Sequence, error)
}

// digestWatcher is server.DigestWatcher.
type digestWatcher interface {
	WatchDigests(ctx context.Context) (<-chan transcript.Conversation, error)
}

// headReader is server.HeadReader.
type headReader interface {
	Head(ctx context.Context, desk string) (transcript.Sequence, error)
}

// Options are the service's options the fan-out takes (server.Options says what each
// means), with the service's defaults in.
type Options struct {
	TailRows     int
	TailBytes    int
	PollInterval time.Duration
	WriteTimeout time.Duration
	Logger       *slog.Logger
}

// Metrics are the fan-out's counters, which the service's GET /metrics reports.
type Metrics struct {
	TailsOpen    atomic.Int64
	Wakeups      atomic.Uint64 // tail refreshes
	LateWakeups  atomic.Uint64 // tails woken for an append the store's Watcher did not report
	TailReads    atomic.Uint64 // store reads by the tails: loads and refreshes
	TailFallback atomic.Uint64 // reads a tail's Log passed on to the store (the range was not held)
}
