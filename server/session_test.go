package server_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
)

// clock is a settable Options.Now.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// signedIn is a session of the page: its cookie and CSRF token.
type signedIn struct {
	cookie *http.Cookie
	info   server.SessionInfo
}

// signIn exchanges secret for a session, wanting 201.
func (e *env) signIn(secret string) signedIn {
	e.t.Helper()
	r := e.do("POST", "/v1/session", secret, nil)
	info := decode[server.SessionInfo](e.t, r, http.StatusCreated)
	cookies, err := http.ParseSetCookie(r.header.Get("Set-Cookie"))
	if err != nil || cookies.Name != server.SessionCookie {
		e.t.Fatalf("sign-in's Set-Cookie %q: %v", r.header.Get("Set-Cookie"), err)
	}
	return signedIn{cookie: cookies, info: info}
}

// withCookie sends a request with the session's cookie and, when csrf is set, its CSRF token.
func (e *env) withCookie(method, path string, s signedIn, csrf bool, body any) response {
	e.t.Helper()
	hdr := []string{"Cookie", server.SessionCookie + "=" + s.cookie.Value}
	if csrf {
		hdr = append(hdr, server.CSRFHeader, s.info.CSRF)
	}
	return e.do(method, path, "", body, hdr...)
}

// TestSessionCookie: an operator token signs in for a cookie that is HttpOnly,
// SameSite=Strict, Path=/, lasts the session's TTL, and is Secure only over TLS; the cookie
// then authenticates as the token does, to the same participant.
func TestSessionCookie(t *testing.T) {
	f := newFixture(t, sqliteStore(t), server.Options{Rate: rate.Inf, SessionTTL: time.Hour})
	s := f.signIn(f.op)
	c := s.cookie
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.Secure {
		t.Errorf("cookie over plain HTTP: HttpOnly %v, SameSite %v, Path %q, Secure %v; want HttpOnly, Strict, /, not Secure",
			c.HttpOnly, c.SameSite, c.Path, c.Secure)
	}
	if c.MaxAge < 3590 || c.MaxAge > 3600 || len(c.Value) < 40 {
		t.Errorf("cookie Max-Age %d and a value of %d characters, want about the TTL of 3600 s and 256 random bits", c.MaxAge, len(c.Value))
	}
	if s.info.Desk != "eng" || !s.info.As.Same(operator) || len(s.info.CSRF) < 40 || s.info.CSRF == c.Value {
		t.Errorf("sign-in answered %+v", s.info)
	}
	r := f.do("POST", "/v1/session", f.op, nil)
	if r.header.Get("Cache-Control") != "no-store" {
		t.Errorf("sign-in's Cache-Control %q, want no-store: it holds the CSRF token", r.header.Get("Cache-Control"))
	}

	// The cookie is the same participant as the token.
	got := decode[server.DeskList](t, f.withCookie("GET", "/v1/desks", s, false, nil), http.StatusOK)
	if len(got.Desks) != 1 || !got.Desks[0].As.Same(operator) || got.Desks[0].Name != "eng" {
		t.Errorf("GET /v1/desks with the cookie: %+v, want the operator on eng", got)
	}
	asCoder := f.withCookie("GET", "/v1/desks/eng/view?as=agent:coder", s, false, nil)
	if strings.Contains(string(asCoder.body), asideText) {
		t.Errorf("the cookie's view as coder holds the aside's content: %s", asCoder.body)
	}
	p := decode[transcript.Projection](t, asCoder, http.StatusOK)
	if len(p.Elided) != 1 {
		t.Errorf("the cookie's view as coder: %+v, want the aside elided", p)
	}
	m := decode[transcript.Message](t, f.withCookie("POST", "/v1/desks/eng/messages", s, true, map[string]any{"content": "from the page"}), http.StatusCreated)
	if !m.Author.Same(operator) {
		t.Errorf("a post with the cookie is by %v, want the operator", m.Author)
	}
	// A bearer token goes on working, and wins over a cookie.
	d := decode[server.DeskList](t, f.do("GET", "/v1/desks", f.coder, nil, "Cookie", server.SessionCookie+"="+c.Value), http.StatusOK)
	if !d.Desks[0].As.Same(coder) {
		t.Errorf("a bearer token with a cookie is %v, want the token's coder", d.Desks[0].As)
	}

	// Over TLS the cookie is Secure.
	srv, err := server.New(f.st, server.Options{Rate: rate.Inf})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewTLSServer(srv)
	defer ts.Close()
	req, _ := http.NewRequest("POST", ts.URL+"/v1/session", nil)
	req.Header.Set("Authorization", "Bearer "+f.op)
	res, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	tc, err := http.ParseSetCookie(res.Header.Get("Set-Cookie"))
	if err != nil || res.StatusCode != http.StatusCreated || !tc.Secure || !tc.HttpOnly || tc.SameSite != http.SameSiteStrictMode {
		t.Errorf("sign-in over TLS: %d, cookie %+v (%v); want 201 and a Secure, HttpOnly, Strict cookie", res.StatusCode, tc, err)
	}
}

// TestSecureCookie: with Options.SecureCookie, for a server behind a proxy that terminates
// TLS, the cookie is Secure over plain HTTP too, signing in and signing out.
func TestSecureCookie(t *testing.T) {
	f := newFixture(t, sqliteStore(t), server.Options{Rate: rate.Inf, SecureCookie: true})
	s := f.signIn(f.op)
	if !s.cookie.Secure || !s.cookie.HttpOnly || s.cookie.SameSite != http.SameSiteStrictMode {
		t.Errorf("sign-in over plain HTTP with SecureCookie: %+v, want a Secure, HttpOnly, Strict cookie", s.cookie)
	}
	r := f.withCookie("DELETE", "/v1/session", s, true, nil)
	out, err := http.ParseSetCookie(r.header.Get("Set-Cookie"))
	if err != nil || !out.Secure || out.MaxAge >= 0 {
		t.Errorf("sign-out with SecureCookie: %d, cookie %+v (%v); want a Secure cookie that clears it", r.status, out, err)
	}
}

// TestSessionCSRF: a request that the cookie authenticates and that changes anything needs
// the session's CSRF token; GETs do not.
func TestSessionCSRF(t *testing.T) {
	f := newFixture(t, sqliteStore(t), server.Options{Rate: rate.Inf})
	s := f.signIn(f.op)
	before := decode[server.DeskList](t, f.withCookie("GET", "/v1/desks", s, false, nil), http.StatusOK).Desks[0].Head
	for _, tt := range []struct {
		name, method, path string
		body               any
		csrf               string
	}{
		{"a post without the token", "POST", "/v1/desks/eng/messages", map[string]any{"content": "forged"}, ""},
		{"a post with another token", "POST", "/v1/desks/eng/messages", map[string]any{"content": "forged"}, "not-the-token"},
		{"a post with the cookie's value", "POST", "/v1/desks/eng/messages", map[string]any{"content": "forged"}, s.cookie.Value},
		{"a delta without the token", "POST", "/v1/desks/eng/delta", map[string]any{"state": map[string]any{"conversation": map[string]any{"desk": "eng"}, "watermark": 0}}, ""},
		{"a sign-out without the token", "DELETE", "/v1/session", nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hdr := []string{"Cookie", server.SessionCookie + "=" + s.cookie.Value}
			if tt.csrf != "" {
				hdr = append(hdr, server.CSRFHeader, tt.csrf)
			}
			r := f.do(tt.method, tt.path, "", tt.body, hdr...)
			if r.status != http.StatusForbidden || r.problem(t).kind() != "forbidden" {
				t.Errorf("%s %s: %d %s, want 403 forbidden", tt.method, tt.path, r.status, r.body)
			}
		})
	}
	after := decode[server.DeskList](t, f.withCookie("GET", "/v1/desks", s, false, nil), http.StatusOK).Desks[0].Head
	if after != before {
		t.Errorf("the desk's head moved from %d to %d: a refused post was stored", before, after)
	}
	// The session outlived the refusals.
	if r := f.withCookie("POST", "/v1/desks/eng/messages", s, true, map[string]any{"content": "with the token"}); r.status != http.StatusCreated {
		t.Errorf("a post with the CSRF token: %d %s", r.status, r.body)
	}
}

// TestSessionEnds: a signed-out, expired or revoked session gets 401, and a stream the
// session opened ends with it; who may sign in at all.
func TestSessionEnds(t *testing.T) {
	clk := &clock{now: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	f := newFixture(t, sqliteStore(t), server.Options{Rate: rate.Inf, SessionTTL: time.Hour, Now: clk.Now, Heartbeat: 20 * time.Millisecond})

	t.Run("signed out", func(t *testing.T) {
		s := f.signIn(f.op)
		r := f.withCookie("DELETE", "/v1/session", s, true, nil)
		if r.status != http.StatusNoContent {
			t.Fatalf("sign-out: %d %s", r.status, r.body)
		}
		cleared, err := http.ParseSetCookie(r.header.Get("Set-Cookie"))
		if err != nil || cleared.Name != server.SessionCookie || cleared.Value != "" || cleared.MaxAge >= 0 {
			t.Errorf("sign-out's Set-Cookie %q, want the cookie cleared", r.header.Get("Set-Cookie"))
		}
		wantUnauthorized(t, f.withCookie("GET", "/v1/desks", s, false, nil))
		wantUnauthorized(t, f.withCookie("POST", "/v1/desks/eng/messages", s, true, map[string]any{"content": "after"}))
	})
	t.Run("expired", func(t *testing.T) {
		s := f.signIn(f.op)
		clk.advance(59 * time.Minute)
		if r := f.withCookie("GET", "/v1/desks", s, false, nil); r.status != http.StatusOK {
			t.Fatalf("a minute before it expires: %d", r.status)
		}
		clk.advance(time.Minute)
		wantUnauthorized(t, f.withCookie("GET", "/v1/desks", s, false, nil))
	})
	t.Run("a stream ends with its session", func(t *testing.T) {
		s := f.signIn(f.op)
		st := f.openWith("/v1/desks/eng/events?as=agent:coder", "Cookie", server.SessionCookie+"="+s.cookie.Value)
		f.withCookie("DELETE", "/v1/session", s, true, nil)
		deadline := time.After(10 * time.Second)
		for {
			select {
			case _, ok := <-st.events:
				if !ok {
					return
				}
			case <-deadline:
				t.Fatal("the stream goes on 10 s after its session was signed out")
			}
		}
	})
	t.Run("revoked", func(t *testing.T) {
		secret := f.token("eng", operator)
		s := f.signIn(secret)
		toks, err := f.st.Tokens(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if err := f.st.RevokeToken(t.Context(), toks[len(toks)-1].ID, clk.Now()); err != nil {
			t.Fatal(err)
		}
		wantUnauthorized(t, f.withCookie("GET", "/v1/desks", s, false, nil))
	})
	t.Run("who may sign in", func(t *testing.T) {
		for _, secret := range []string{f.triage, f.coder, f.token("eng", ana)} {
			if r := f.do("POST", "/v1/session", secret, nil); r.status != http.StatusForbidden || r.header.Get("Set-Cookie") != "" {
				t.Errorf("a participant's sign-in: %d, Set-Cookie %q; want 403 and no cookie", r.status, r.header.Get("Set-Cookie"))
			}
		}
		wantUnauthorized(t, f.do("POST", "/v1/session", "", nil))
		wantUnauthorized(t, f.do("POST", "/v1/session", "trs_"+strings.Repeat("A", 43), nil))
		s := f.signIn(f.op)
		if r := f.withCookie("POST", "/v1/session", s, true, nil); r.status != http.StatusBadRequest || r.header.Get("Set-Cookie") != "" {
			t.Errorf("a sign-in with a session: %d, want 400: a session does not make sessions", r.status)
		}
		wantUnauthorized(t, f.do("GET", "/v1/desks", "", nil, "Cookie", server.SessionCookie+"=made-up"))
	})

	// Nothing secret in the log: no token, no cookie, no CSRF token.
	s := f.signIn(f.op)
	f.withCookie("GET", "/v1/desks", s, false, nil)
	log := f.log.String()
	for _, secret := range []string{f.op, strings.TrimPrefix(f.op, "trs_"), s.cookie.Value, s.info.CSRF} {
		if strings.Contains(log, secret) {
			t.Errorf("the log holds a secret: %q", secret)
		}
	}
}

func wantUnauthorized(t *testing.T, r response) {
	t.Helper()
	if r.status != http.StatusUnauthorized || r.problem(t).kind() != "unauthorized" || r.header.Get("WWW-Authenticate") == "" {
		t.Errorf("status %d (%s), want 401 unauthorized with WWW-Authenticate", r.status, r.body)
	}
}

// openWith opens a stream with the given headers and no bearer token.
func (e *env) openWith(path string, hdr ...string) *stream {
	e.t.Helper()
	return e.open(path, "", hdr...)
}

// TestSignInFormCarriesNoToken: the sign-in form posts and its token field has no name, so
// a form the browser submits itself (Enter before the script ran, no script, a password
// manager) sends no token, and never in the URL, as a form's default GET would.
func TestSignInFormCarriesNoToken(t *testing.T) {
	f := newFixture(t, sqliteStore(t), server.Options{Rate: rate.Inf})
	r := f.do("GET", "/", "", nil)
	form := regexp.MustCompile(`(?s)<form id="sign-in"[^>]*>.*?</form>`).FindString(string(r.body))
	if form == "" {
		t.Fatalf("no sign-in form on the page:\n%s", r.body)
	}
	if open := form[:strings.Index(form, ">")+1]; !strings.Contains(open, `method="post"`) {
		t.Errorf("the sign-in form %s submits by GET: its fields would ride in the URL", open)
	}
	for _, input := range regexp.MustCompile(`<input[^>]*>`).FindAllString(form, -1) {
		if strings.Contains(input, " name=") {
			t.Errorf("the sign-in form's field %s has a name: the browser's own submission would send it", input)
		}
	}
}

// TestSessionsOfOneTokenEndNoOther: an operator who signs in again and again ends only its
// own oldest sessions, never another desk's operator's, however often it signs in.
func TestSessionsOfOneTokenEndNoOther(t *testing.T) {
	f := newFixture(t, sqliteStore(t), server.Options{Rate: rate.Inf, AuthFailureRate: rate.Inf})
	eng := f.signIn(f.op)
	other := f.token("ops", transcript.Operator())
	first := f.signIn(other)
	for range 1100 {
		if r := f.do("POST", "/v1/session", other, nil); r.status != http.StatusCreated {
			t.Fatalf("ops's sign-in: %d %s", r.status, r.body)
		}
	}
	if r := f.withCookie("GET", "/v1/desks/eng/view", eng, false, nil); r.status != http.StatusOK {
		t.Errorf("eng's session after ops's operator signed in 1,100 times: %d, want 200", r.status)
	}
	if r := f.withCookie("GET", "/v1/desks/ops/view", first, false, nil); r.status != http.StatusUnauthorized {
		t.Errorf("ops's first session after 1,100 more of its sign-ins: %d, want 401 (its oldest ends)", r.status)
	}
}
