package server_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/token"
)

// fuzzServer is a desk with an aside to triage, served in process, and coder's secret.
type fuzzServer struct {
	srv    *server.Server
	secret string
}

func newFuzzServer(f *testing.F) *fuzzServer {
	f.Helper()
	st := openSQLite(f, f.TempDir())
	srv, err := server.New(st, server.Options{Rate: rate.Inf, MaxContent: 4 << 10})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { srv.Shutdown(context.Background()) })
	add := func(p transcript.Author) string {
		secret, tok, err := token.New("eng", p, time.Now())
		if err != nil {
			f.Fatal(err)
		}
		if err := st.AddToken(context.Background(), tok); err != nil {
			f.Fatal(err)
		}
		return secret
	}
	fs := &fuzzServer{srv: srv, secret: add(coder)}
	op := add(operator)
	for _, body := range []string{`{"content":"root"}`, `{"content":"` + asideText + `","audience":["agent:triage"]}`} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/v1/desks/eng/messages", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+op)
		srv.ServeHTTP(rec, req)
		if rec.Code != 201 {
			f.Fatalf("setup: %d %s", rec.Code, rec.Body)
		}
	}
	return fs
}

// serve sends a request in process and checks what every answer must be: no 5xx, no
// secret, no content of the aside (unless the request itself holds it), and a problem
// with a type for every error.
func (fs *fuzzServer) serve(t *testing.T, method, target string, body []byte, hdr ...string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, "http://127.0.0.1"+target, bytes.NewReader(body))
	if err != nil {
		return // not a request a client could send
	}
	req.Header.Set("Authorization", "Bearer "+fs.secret)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	fs.srv.ServeHTTP(rec, req)
	out := rec.Body.String()
	in := string(body) + target + strings.Join(hdr, "")
	if rec.Code >= 500 {
		t.Fatalf("%s %s %q: %d %s", method, target, body, rec.Code, out)
	}
	if strings.Contains(out, strings.TrimPrefix(fs.secret, token.SecretPrefix)) {
		t.Fatalf("the answer holds the secret: %s", out)
	}
	if !strings.Contains(in, "ASIDE") && strings.Contains(out, "ASIDE") {
		t.Fatalf("the answer holds the aside: %s", out)
	}
	if rec.Code >= 400 && (rec.Header().Get("Content-Type") != "application/problem+json" || !strings.Contains(out, server.ProblemTypeBase)) {
		t.Fatalf("%d without a problem type: %q %s", rec.Code, rec.Header().Get("Content-Type"), out)
	}
}

func FuzzAppendBody(f *testing.F) {
	fs := newFuzzServer(f)
	for _, seed := range []string{
		`{"content":"hi"}`,
		`{"content":"hi","parent":1,"key":"k"}`,
		`{"content":"hi","parent":2}`,
		`{"content":"hi","audience":["agent:triage","operator"]}`,
		`{"content":"hi","author":{"type":"operator"}}`,
		`{"content":"` + strings.Repeat("x", 5000) + `"}`,
		`{"content":"hi","audience":["agent:coder"]}`,
		`{"content":"hi","key":"\u0007"}`,
		`{"content":"trs_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}`,
		`{"trs_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA":1,"content":"x"}`,
		`{"content":5}`, `[]`, `null`, ``, `{"content":"\u0000"}`, `{"content":"x","parent":18446744073709551615}`,
		`{"content":"x","parent":9223372036854775808}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		fs.serve(t, "POST", "/v1/desks/eng/messages", body)
	})
}

func FuzzDeltaBody(f *testing.F) {
	fs := newFuzzServer(f)
	for _, seed := range []string{
		`{"state":{"conversation":{"desk":"eng"},"watermark":0}}`,
		`{"state":{"conversation":{"desk":"eng"},"watermark":1,"present":[2]},"before":3}`,
		`{"state":{"conversation":{"desk":"eng","thread":2},"watermark":0},"conversation":{"thread":2}}`,
		`{"state":{"conversation":{"desk":"eng"},"watermark":5,"present":[3]}}`,
		`{"state":{"conversation":{"desk":"eng"},"watermark":5},"before":2}`,
		`{"state":{"conversation":{"desk":"x"},"watermark":0},"conversation":{"desk":"x"}}`,
		`{"state":{}}`, `{}`, `{"state":null}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		fs.serve(t, "POST", "/v1/desks/eng/delta", body)
	})
}

func FuzzQuery(f *testing.F) {
	fs := newFuzzServer(f)
	for _, seed := range []struct {
		route uint8
		query string
		id    string
	}{
		{0, "thread=1&window=3", ""}, {0, "as=agent:triage", ""}, {0, "thread=2", ""}, {0, "window=-1", ""},
		{1, "limit=5&before=2", ""}, {1, "limit=x", ""}, {2, "after=1", "1"}, {2, "thread=2", "x"},
		{0, "before=18446744073709551616", ""}, {0, "trs_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=1", ""},
	} {
		f.Add(seed.route, seed.query, seed.id)
	}
	f.Fuzz(func(t *testing.T, route uint8, query, lastEventID string) {
		switch route % 3 {
		case 0:
			fs.serve(t, "GET", "/v1/desks/eng/view?"+query, nil)
		case 1:
			fs.serve(t, "GET", "/v1/desks/eng/threads?"+query, nil)
		case 2: // a thread that does not exist, first: the request never becomes a stream
			if strings.Contains(query, "thread") {
				return
			}
			fs.serve(t, "GET", "/v1/desks/eng/events?thread=999999&"+query, nil, "Last-Event-ID", lastEventID)
		}
	})
}
