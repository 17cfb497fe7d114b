package server

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/server/internal/fanout"
)

// Defaults of Options: what New uses for a field left zero.
const (
	DefaultRate               = 20 // requests a second per token, sustained
	DefaultBurst              = 40 // requests per token at once
	DefaultMaxStreams         = 8  // open event streams per token
	DefaultAuthFailureRate    = 1  // failed authentications a second per client address, sustained
	DefaultAuthFailureBurst   = 20 // failed authentications per client address at once
	DefaultHeartbeat          = 15 * time.Second
	DefaultPollInterval       = 500 * time.Millisecond
	DefaultWriteTimeout       = 30 * time.Second
	DefaultBodyReadTimeout    = 10 * time.Second
	DefaultAppendTimeout      = 30 * time.Second
	DefaultTailBytes          = 32 << 20
	DefaultStreamRetryAfter   = 5 * time.Second
	DefaultMaxAnswerBytes     = 8 << 20  // message content per answer
	envelopeAllowance         = 64 << 10 // what a message body holds besides its content: audience, key, JSON
	maxStreamRetryAfterSecond = 3600
)

// Options configure a Server. The zero value of every field means its default.
type Options struct {
	// Logger receives one line per request (method, route pattern, status, duration, the
	// token's public ID and desk: never a secret, never content) and the server's own
	// failures. Nil discards them.
	Logger *slog.Logger

	// MaxBody bounds a request body in bytes (413 past it). Default 2×transcript.MaxContent
	// (the content limit of every store; content over the store's is 413 too) + 64 KiB:
	// room for content whose JSON escaping doubles it, and for the envelope.
	MaxBody int64

	// MaxAnswerBytes bounds the message content of one answer: a view drops its oldest
	// messages past it (never a pinned thread root) and says how many (dropped); a delta, an
	// event stream and an MCP read deliver their oldest messages within it, with a next
	// state that commits exactly those, and the rest on the next read. An answer always
	// holds at least one message (and a view its pinned root), so one message over the
	// budget still goes through. Default DefaultMaxAnswerBytes.
	MaxAnswerBytes int

	// Rate is how many requests a second one token may make, sustained, and Burst how many
	// at once; past that the server answers 429 with Retry-After. Defaults DefaultRate and
	// DefaultBurst; rate.Inf turns the limit off.
	Rate  rate.Limit
	Burst int
	// AuthFailureRate is how many failed authentications (401s) a second one client address
	// may make, sustained, and AuthFailureBurst how many at once; past that a failure is
	// answered 429 with Retry-After in place of 401, while a valid token from the address
	// is served as ever. The address is the connection's (behind a proxy, the proxy's),
	// an IPv6 one's /64. Defaults DefaultAuthFailureRate and DefaultAuthFailureBurst;
	// rate.Inf turns the limit off.
	AuthFailureRate  rate.Limit
	AuthFailureBurst int

	// MaxStreams is how many event streams one token may hold open at once; one more is
	// answered 429 (type too-many-streams) with Retry-After StreamRetryAfter. Default
	// DefaultMaxStreams.
	MaxStreams int
	// MaxTotalStreams is how many event streams all tokens together may hold open at once,
	// so that streams never take the descriptors ordinary requests (and /healthz) need;
	// one more is answered 503 (type streams-full) with Retry-After StreamRetryAfter.
	// Default DefaultMaxTotalStreams(), from the process's descriptor limit.
	MaxTotalStreams  int
	StreamRetryAfter time.Duration

	// Heartbeat is the interval of a stream's comment lines (default 15 s).
	Heartbeat time.Duration
	// PollInterval is how often the server asks the store for new rows of the desks that
	// have open streams, when the store is no Watcher or its watch is lost (default 500 ms,
	// so that a row another process appends reaches the streams within a second).
	PollInterval time.Duration

	// WriteTimeout bounds the writing of one response, and of each event of a stream: a
	// client that reads nothing for that long is disconnected (default 30 s).
	WriteTimeout time.Duration
	// BodyReadTimeout bounds the reading of a request body (default 10 s; 408 past it).
	BodyReadTimeout time.Duration
	// AppendTimeout bounds one append in the store. An append, once begun, is not cancelled
	// by the client going away or by Shutdown: it finishes or times out (default 30 s).
	AppendTimeout time.Duration

	// TailRows and TailBytes bound what the fan-out keeps in memory of each desk that has
	// open streams: the newest TailRows rows (default and most transcript.ScanLimit, all a
	// stream's delta can read: a larger value counts as that) and no more than TailBytes
	// of their content (default 32 MiB); reads below that go to the store.
	TailRows  int
	TailBytes int

	// SessionTTL is how long a sign-in of the inspector page lasts (default
	// DefaultSessionTTL); past it the session's cookie gets 401 and the page asks for the
	// token again.
	SessionTTL time.Duration
	// SecureCookie marks the session cookie Secure whatever the connection: for a server
	// behind a proxy that terminates TLS, where the browser speaks HTTPS and the server
	// sees plain HTTP. Without it the cookie is Secure when the sign-in came over TLS.
	SecureCookie bool

	// Digester folds the desks' digests: in the background after appends (a fold of the
	// desk's channel, and of the thread of an appended reply, never before the append's
	// answer), and at POST /v1/desks/{desk}/digest; one fold of a conversation at a time,
	// the background's and the route's together. Nil: the server folds none, and that
	// route answers 501. It folds only on a store whose logs are digest.Stores.
	// DigestPolicy is the folds' policy (zero fields: its defaults); New refuses one that
	// digest.Policy.Validate refuses. DigestTimeout is the most one call of the Digester
	// may take (default digest.DefaultTimeout): past it the call's context ends, and a
	// Digester, which honours it, fails; the held digest stays.
	Digester      digest.Digester
	DigestPolicy  digest.Policy
	DigestTimeout time.Duration

	// Now is the clock of the rate limits and of the sessions' expiry; nil means time.Now.
	Now func() time.Time
}

// errNegativeOption is New's error for an Options field below zero.
var errNegativeOption = errors.New("server: an option is negative")

// withDefaults returns o with every zero field set to its default, or an error for a
// negative one.
func (o Options) withDefaults() (Options, error) {
	switch {
	case o.MaxBody < 0, o.MaxAnswerBytes < 0, o.Rate < 0, o.Burst < 0, o.AuthFailureRate < 0, o.AuthFailureBurst < 0, o.MaxStreams < 0, o.MaxTotalStreams < 0,
		o.StreamRetryAfter < 0, o.Heartbeat < 0, o.PollInterval < 0, o.WriteTimeout < 0,
		o.BodyReadTimeout < 0, o.AppendTimeout < 0, o.TailRows < 0, o.TailBytes < 0, o.SessionTTL < 0, o.DigestTimeout < 0:
		return o, errNegativeOption
	}
	if err := o.DigestPolicy.Validate(); err != nil {
		return o, fmt.Errorf("server: DigestPolicy: %w", err)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.MaxBody = cmp.Or(o.MaxBody, 2*int64(transcript.MaxContent)+envelopeAllowance)
	o.MaxAnswerBytes = cmp.Or(o.MaxAnswerBytes, DefaultMaxAnswerBytes)
	o.Rate = cmp.Or(o.Rate, DefaultRate)
	o.Burst = cmp.Or(o.Burst, DefaultBurst)
	o.AuthFailureRate = cmp.Or(o.AuthFailureRate, DefaultAuthFailureRate)
	o.AuthFailureBurst = cmp.Or(o.AuthFailureBurst, DefaultAuthFailureBurst)
	o.MaxStreams = cmp.Or(o.MaxStreams, DefaultMaxStreams)
	if o.MaxTotalStreams == 0 {
		o.MaxTotalStreams = DefaultMaxTotalStreams()
	}
	o.StreamRetryAfter = cmp.Or(o.StreamRetryAfter, DefaultStreamRetryAfter)
	o.Heartbeat = cmp.Or(o.Heartbeat, DefaultHeartbeat)
	o.PollInterval = cmp.Or(o.PollInterval, DefaultPollInterval)
	o.WriteTimeout = cmp.Or(o.WriteTimeout, DefaultWriteTimeout)
	o.BodyReadTimeout = cmp.Or(o.BodyReadTimeout, DefaultBodyReadTimeout)
	o.AppendTimeout = cmp.Or(o.AppendTimeout, DefaultAppendTimeout)
	o.TailRows = min(cmp.Or(o.TailRows, transcript.ScanLimit), transcript.ScanLimit) // a delta reads no more
	o.TailBytes = cmp.Or(o.TailBytes, DefaultTailBytes)
	o.SessionTTL = cmp.Or(o.SessionTTL, DefaultSessionTTL)
	o.DigestTimeout = cmp.Or(o.DigestTimeout, digest.DefaultTimeout)
	if o.Now == nil {
		o.Now = time.Now
	}
	return o, nil
}

// fanout is what the fan-out takes of o, which holds its defaults.
func (o Options) fanout() fanout.Options {
	return fanout.Options{TailRows: o.TailRows, TailBytes: o.TailBytes, PollInterval: o.PollInterval, WriteTimeout: o.WriteTimeout, Logger: o.Logger}
}
