package server

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// limits holds each token's rate limiter and count of open streams, by token ID. An entry
// whose bucket is full again and that holds no stream is forgotten at the next sweep, so
// the map holds the tokens active lately, not every token ever seen.
type limits struct {
	rate       rate.Limit
	burst      int
	maxStreams int
	now        func() time.Time

	mu        sync.Mutex
	byToken   map[string]*tokenLimits
	lastSweep time.Time
}

type tokenLimits struct {
	limiter *rate.Limiter
	streams int
}

// sweepEvery is how often allow forgets idle entries.
const sweepEvery = time.Minute

func newLimits(r rate.Limit, burst, maxStreams int, now func() time.Time) *limits {
	return &limits{rate: r, burst: burst, maxStreams: maxStreams, now: now, byToken: make(map[string]*tokenLimits)}
}

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
	r := l.entry(id, now).limiter.ReserveN(now, 1)
	if !r.OK() {
		return time.Second, false
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return d, false
	}
	return 0, true
}

// openStream counts one more open stream of token id, unless it holds the most already.
// The caller calls the returned func once the stream is closed.
func (l *limits) openStream(id string) (closeStream func(), ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.entry(id, l.now())
	if e.streams >= l.maxStreams {
		return nil, false
	}
	e.streams++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			e.streams--
			l.mu.Unlock()
		})
	}, true
}
