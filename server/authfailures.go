package server

import (
	"net/http"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// maxFailureAddrs is how many client addresses failLimits holds a bucket for: about
// 150 bytes each.
const maxFailureAddrs = 10_000

// failLimits rate-limits failed authentications by client address (clientAddr): each
// failure takes one from its address's bucket, and a failure that finds it empty is
// answered 429 in place of 401. Only failures take from it and only failures are refused:
// a valid token is served whatever its address's bucket holds, since only the store's
// answer tells a valid token from a near miss.
//
// Its memory is bounded: a bucket that is full again is forgotten at the next sweep, and
// once maxAddrs addresses hold a bucket the addresses beyond them share one.
type failLimits struct {
	rate     rate.Limit
	burst    int
	maxAddrs int
	now      func() time.Time

	mu        sync.Mutex
	byAddr    map[netip.Prefix]*rate.Limiter
	overflow  *rate.Limiter // the bucket of every address beyond maxAddrs
	lastSweep time.Time
}

// fullSweepEvery is how often a failLimits that holds maxAddrs addresses sweeps again.
const fullSweepEvery = time.Second

func newFailLimits(r rate.Limit, burst, maxAddrs int, now func() time.Time) *failLimits {
	return &failLimits{rate: r, burst: burst, maxAddrs: maxAddrs, now: now,
		byAddr: make(map[netip.Prefix]*rate.Limiter), overflow: rate.NewLimiter(r, burst)}
}

// fail counts one failed authentication from addr. When addr's bucket is empty it takes
// nothing and returns how long until it holds one again.
func (l *failLimits) fail(addr netip.Prefix) (time.Duration, bool) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	return take(l.bucket(addr, now), now)
}

// bucket returns addr's bucket, made when missing; l.mu is held.
func (l *failLimits) bucket(addr netip.Prefix, now time.Time) *rate.Limiter {
	if b, ok := l.byAddr[addr]; ok {
		return b
	}
	if since := now.Sub(l.lastSweep); since >= sweepEvery || len(l.byAddr) >= l.maxAddrs && since >= fullSweepEvery {
		l.lastSweep = now
		for k, b := range l.byAddr {
			if b.TokensAt(now) >= float64(l.burst) {
				delete(l.byAddr, k)
			}
		}
	}
	if len(l.byAddr) >= l.maxAddrs {
		return l.overflow
	}
	b := rate.NewLimiter(l.rate, l.burst)
	l.byAddr[addr] = b
	return b
}

// take takes one from b at now. When b is empty it takes nothing and returns how long
// until b holds one again.
func take(b *rate.Limiter, now time.Time) (time.Duration, bool) {
	r := b.ReserveN(now, 1)
	if !r.OK() {
		return time.Second, false
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return d, false
	}
	return 0, true
}

// clientAddr is the address a request's failures are counted by: the connection's IPv4
// address, or the /64 its IPv6 address is in (one host commonly holds a whole /64). It is
// the peer's address, never a header's (X-Forwarded-For is the client's to write): behind
// a proxy every client shares the proxy's. An address that does not parse is the zero
// Prefix, which all such requests share.
func clientAddr(r *http.Request) netip.Prefix {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Prefix{}
	}
	a := ap.Addr().Unmap()
	bits := 32
	if a.Is6() {
		bits = 64
	}
	p, _ := a.WithZone("").Prefix(bits)
	return p
}
