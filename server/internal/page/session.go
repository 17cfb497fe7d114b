package page

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// The inspector page's session: EventSource cannot send an Authorization header,
// so the page exchanges an operator token for a cookie.
const (
	// SessionCookie names the page's session cookie: HttpOnly, SameSite=Strict, Path=/,
	// Secure when the sign-in came over TLS.
	SessionCookie = "transcript_session"
	// CSRFHeader is the header a request authenticated by the session cookie carries,
	// unless it is a GET or HEAD: the session's CSRF token, which the page learns from its
	// sign-in answer or the page itself, and a page on another site cannot read.
	CSRFHeader = "X-CSRF-Token"
)

// DefaultSessionTTL is how long a session lasts from its sign-in (Options.SessionTTL).
const DefaultSessionTTL = 8 * time.Hour

// maxSessions bounds the sessions held at once, and maxTokenSessions those of one token:
// signing in past a token's bound ends that token's oldest session, so that one desk's
// operator, signing in again and again, ends no other token's; past maxSessions, which
// takes 64 tokens at their bound, the oldest of all ends.
const (
	maxSessions      = 1024
	maxTokenSessions = 16
)

// Session is one sign-in of the page. It keeps the Authorization header the sign-in came
// with, so that every request the cookie authenticates goes through token.Authenticate
// again, exactly as a bearer request does: a token revoked since the sign-in ends its
// sessions at their next request. The header is held in memory only, and neither it, the
// cookie's value nor the CSRF token is ever logged or answered but to the page that signed
// in.
type Session struct {
	key           [32]byte // SHA-256 of the cookie's value: the map is keyed by it, never by the value
	Authorization string   // "Bearer trs_...": what token.Authenticate checks on every request
	CSRF          string
	Expires       time.Time
}

// LogValue is a session as a log line may show it: when it expires, never its
// Authorization header or CSRF token.
func (s *Session) LogValue() slog.Value {
	return slog.GroupValue(slog.Time("expires", s.Expires))
}

// Sessions holds the page's sessions, by the hash of their cookie. It is safe for
// concurrent use.
type Sessions struct {
	ttl time.Duration
	now func() time.Time

	mu    sync.Mutex
	byKey map[[32]byte]*Session
}

// NewSessions returns an empty store of sessions that last ttl from their sign-in, by the
// clock now.
func NewSessions(ttl time.Duration, now func() time.Time) *Sessions {
	return &Sessions{ttl: ttl, now: now, byKey: make(map[[32]byte]*Session)}
}

// randomText is 32 bytes from crypto/rand in unpadded base64url.
func randomText() string {
	var b [32]byte
	rand.Read(b[:]) // never fails (crypto/rand, Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// Start begins a session for a request authenticated by authorization and returns the
// cookie's value (given to the client once, kept here only as a hash) and the session.
// Expired sessions are dropped; past maxTokenSessions of the same authorization, its session
// that expires first; and past maxSessions, the one of all that expires first.
func (ss *Sessions) Start(authorization string) (string, *Session) {
	value := randomText()
	s := &Session{
		key:           sha256.Sum256([]byte(value)),
		Authorization: authorization,
		CSRF:          randomText(),
		Expires:       ss.now().Add(ss.ttl),
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	now := ss.now()
	var first, firstOwn *Session
	own := 0
	for k, o := range ss.byKey {
		switch {
		case !now.Before(o.Expires):
			delete(ss.byKey, k)
			continue
		case first == nil || o.Expires.Before(first.Expires):
			first = o
		}
		if o.Authorization == authorization {
			own++
			if firstOwn == nil || o.Expires.Before(firstOwn.Expires) {
				firstOwn = o
			}
		}
	}
	switch {
	case own >= maxTokenSessions:
		delete(ss.byKey, firstOwn.key)
	case len(ss.byKey) >= maxSessions && first != nil:
		delete(ss.byKey, first.key)
	}
	ss.byKey[s.key] = s
	return value, s
}

// Lookup returns the live session whose cookie value is value; an expired one is dropped.
func (ss *Sessions) Lookup(value string) (*Session, bool) {
	key := sha256.Sum256([]byte(value))
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s, ok := ss.byKey[key]
	if !ok {
		return nil, false
	}
	if !ss.now().Before(s.Expires) {
		delete(ss.byKey, key)
		return nil, false
	}
	return s, true
}

// Live reports whether s is still a session: not ended, not expired. A nil s (a request
// with a bearer token) is always live.
func (ss *Sessions) Live(s *Session) bool {
	if s == nil {
		return true
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.byKey[s.key] == s && ss.now().Before(s.Expires)
}

// End ends s (signing out). Ending a session twice is harmless.
func (ss *Sessions) End(s *Session) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.byKey[s.key] == s {
		delete(ss.byKey, s.key)
	}
}

// CheckCSRF reports whether header is s's CSRF token, in constant time.
func (s *Session) CheckCSRF(header string) bool {
	return header != "" && subtle.ConstantTimeCompare([]byte(header), []byte(s.CSRF)) == 1
}

// Cookie is the cookie that carries value for the session s; secure for a sign-in
// over TLS. A nil s clears the cookie.
func (ss *Sessions) Cookie(value string, s *Session, secure bool) http.Cookie {
	c := http.Cookie{
		Name:     SessionCookie,
		Value:    value,
		Path:     "/",
		HttpOnly: true,
		Secure:   secure,
		SameSite: http.SameSiteStrictMode,
	}
	if s == nil {
		c.Value, c.MaxAge = "", -1
		return c
	}
	c.Expires = s.Expires.UTC().Truncate(time.Second)
	c.MaxAge = max(int(s.Expires.Sub(ss.now()).Seconds()), 1)
	return c
}

// SafeMethod reports whether method changes nothing, so that a request authenticated by
// the cookie needs no CSRF token for it.
func SafeMethod(method string) bool {
	return method == http.MethodGet || method == http.MethodHead
}

// sessionKey is the context key under which the service puts the session that
// authenticated a request.
type sessionKey struct{}

// WithSession returns ctx carrying s, the session that authenticated the request (nil for
// a request with a bearer token).
func WithSession(ctx context.Context, s *Session) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}

// SessionOf returns the session that authenticated ctx's request (WithSession), or nil.
func SessionOf(ctx context.Context) *Session {
	s, _ := ctx.Value(sessionKey{}).(*Session)
	return s
}
