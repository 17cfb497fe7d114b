package server

import (
	"errors"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// limits holds each token's rate limiter and count of open streams, by token ID, and the
// count of every token's open streams. An entry
// whose bucket is full again and that holds no stream is forgotten at the next sweep, so
// the map holds the tokens active lately, not every token ever seen.
type limits struct {
	rate       rate.Limit
	burst      int
	maxStreams int
	maxTotal   int // open streams of all tokens together
	now        func() time.Time

	mu        sync.Mutex
	byToken   map[string]*tokenLimits
	streams   int // open streams of all tokens together
	lastSweep time.Time
}

type tokenLimits struct {
	limiter *rate.Limiter
	streams int
}

// sweepEvery is how often allow forgets idle entries.
const sweepEvery = time.Minute

func newLimits(o Options) *limits {
	return &limits{rate: o.Rate, burst: o.Burst, maxStreams: o.MaxStreams, maxTotal: o.MaxTotalStreams, now: o.Now,
		byToken: make(map[string]*tokenLimits)}
}

// openStream's refusals: the token's cap (Options.MaxStreams) and the server's
// (Options.MaxTotalStreams).
var (
	errTokenStreams  = errors.New("server: the token holds the most open streams it may")
	errServerStreams = errors.New("server: the server holds the most open streams it may")
)

// entry returns id's entry, made when missing; l.mu is held.
func (l *limits) entry(id string, now time.Time) *tokenLimits {
	if now.Sub(l.lastSweep) >= sweepEvery {
		l.lastSweep = now
		for k, e := range l.byToken {
			if e.streams == 0 && e.limiter.TokensAt(now) >= float64(l.burst) {
				delete(l.byToken, k)
			}
		}
	}
	e, ok := l.byToken[id]
	if !ok {
		e = &tokenLimits{limiter: rate.NewLimiter(l.rate, l.burst)}
		l.byToken[id] = e
	}
	return e
}

// allow takes one request from token id's budget. When none is left it takes nothing and
// returns how long until one is.
func (l *limits) allow(id string) (time.Duration, bool) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	return take(l.entry(id, now).limiter, now)
}

// openStream counts one more open stream of token id, unless the token holds the most it
// may already (errTokenStreams) or all tokens together do (errServerStreams). The caller
// calls the returned func once the stream is closed; calls after the first do nothing.
func (l *limits) openStream(id string) (closeStream func(), err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.entry(id, l.now())
	switch {
	case e.streams >= l.maxStreams:
		return nil, errTokenStreams
	case l.streams >= l.maxTotal:
		return nil, errServerStreams
	}
	e.streams++
	l.streams++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			e.streams--
			l.streams--
			l.mu.Unlock()
		})
	}, nil
}
