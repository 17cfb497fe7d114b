package server_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	strictjson "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/token"
)

// fuzzServer is a desk with an aside to triage, served in process, its store, and coder's
// secret.
type fuzzServer struct {
	srv    *server.Server
	st     server.Store
	secret string
}

func newFuzzServer(f *testing.F) *fuzzServer {
	f.Helper()
	st := searching(openSQLite(f, f.TempDir()))
	srv, err := server.New(st, server.Options{Rate: rate.Inf, MaxBody: 2*(4<<10) + 64<<10})
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
	fs := &fuzzServer{srv: srv, st: st, secret: add(coder)}
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
// with a type for every error. It returns the answer.
func (fs *fuzzServer) serve(t *testing.T, method, target string, body []byte, hdr ...string) *httptest.ResponseRecorder {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, "http://127.0.0.1"+target, bytes.NewReader(body))
	if err != nil {
		return nil // not a request a client could send
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
	return rec
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
		"{\"content\":\"\xff\xfe\"}", "{\"content\":\"x\",\"key\":\"\xff\"}", `{"content":"\ud800"}`,
		`{"content":"x","audience":["agent:triage:Triage",{"type":"person","id":"ana","label":"Ana"}]}`,
		`{"content":"x","Audience":null}`, `{"content":"x","content":"y"}`, `{"content":"x","parent":1e0}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		before := head(t, fs.st)
		rec := fs.serve(t, "POST", "/v1/desks/eng/messages", body)
		switch {
		case rec.Code == http.StatusCreated || rec.Code == http.StatusOK: // stored, or a replay
			var answer transcript.Message
			if err := json.Unmarshal(rec.Body.Bytes(), &answer); err != nil {
				t.Fatalf("%d %s: %v", rec.Code, rec.Body, err)
			}
			fs.wantStoredAsSent(t, body, answer.Seq)
		case rec.Code >= 400 && rec.Code < 500:
			if after := head(t, fs.st); after != before {
				t.Fatalf("%q: %d, and the desk's head moved from #%d to #%d", body, rec.Code, before, after)
			}
		default:
			t.Fatalf("%q: %d %s", body, rec.Code, rec.Body)
		}
	})
}

// row is the desk's row seq, as the store holds it.
func (fs *fuzzServer) row(t *testing.T, seq transcript.Sequence) transcript.Message {
	page, err := fs.st.Log("eng").ReadBefore(context.Background(), seq+1, 1)
	if err != nil || len(page.Messages) != 1 || page.Messages[0].Seq != seq {
		t.Fatalf("row #%d: %+v, %v", seq, page.Messages, err)
	}
	return page.Messages[0]
}

// wantStoredAsSent fails t unless the store's row seq is exactly what body sent: body is
// JSON as RFC 8259 and 7493 have it (UTF-8, no escaped lone surrogate, no name twice), an
// object of the fields content, parent, audience and key as the schema spells them, and the
// row holds their values byte for byte: its audience is the entries sent (in the store's
// order), or, for a reply that sent none, its parent's.
func (fs *fuzzServer) wantStoredAsSent(t *testing.T, body []byte, seq transcript.Sequence) {
	if !utf8.Valid(body) || !jsontext.Value(body).IsValid() {
		t.Fatalf("%q was accepted: it is not JSON in UTF-8 with each name once", body)
	}
	var sent transcript.Message
	sentAudience := false
	dec := jsontext.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		t.Fatalf("%q was accepted: not an object", body)
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			t.Fatal(err)
		}
		name := tok.String() // before the next read voids tok
		raw, err := dec.ReadValue()
		if err != nil {
			t.Fatal(err)
		}
		switch name {
		case "content":
			sent.Content = unquote(t, raw)
		case "key":
			sent.Key = unquote(t, raw)
		case "parent":
			if err := strictjson.Unmarshal(raw, &sent.Parent); err != nil {
				t.Fatalf("%q was accepted with parent %s: %v", body, raw, err)
			}
		case "audience":
			sentAudience = true
			var entries []jsontext.Value
			if err := strictjson.Unmarshal(raw, &entries); err != nil {
				t.Fatalf("%q was accepted with audience %s: %v", body, raw, err)
			}
			for _, e := range entries {
				var a transcript.Author
				var err error
				if e.Kind() == '"' {
					a, err = transcript.ParseAuthor(unquote(t, e))
				} else {
					err = a.UnmarshalJSON(e)
				}
				if err != nil {
					t.Fatalf("%q was accepted with audience entry %s: %v", body, e, err)
				}
				sent.Audience = append(sent.Audience, a)
			}
		default:
			t.Fatalf("%q was accepted with a member %q", body, name)
		}
	}
	if !sentAudience && sent.Parent != 0 {
		sent.Audience = fs.row(t, sent.Parent).Audience
	}
	got := fs.row(t, seq)
	byParticipant := func(a, b transcript.Author) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), strings.Compare(a.ID, b.ID))
	}
	slices.SortFunc(sent.Audience, byParticipant)
	if got.Content != sent.Content || got.Key != sent.Key || got.Parent != sent.Parent ||
		!slices.Equal(got.Audience, sent.Audience) || !got.Author.Same(coder) {
		t.Fatalf("%q: stored row #%d is content %q, key %q, parent %d, audience %+v by %v; sent content %q, key %q, parent %d, audience %+v",
			body, seq, got.Content, got.Key, got.Parent, got.Audience, got.Author, sent.Content, sent.Key, sent.Parent, sent.Audience)
	}
}

// unquote is the text of a JSON string.
func unquote(t *testing.T, raw jsontext.Value) string {
	s, err := jsontext.AppendUnquote(nil, raw)
	if err != nil {
		t.Fatalf("a string %q accepted: %v", raw, err)
	}
	return string(s)
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
		{3, "q=launch", ""}, {3, "q=root&thread=1&limit=1", ""}, {3, "q=launch+code&as=agent:triage", ""},
		{3, "q=launch&thread=2", ""}, {3, "q=" + strings.Repeat("x", 65), ""}, {3, "q=%FF", ""}, {3, "q=root&before=2&limit=-5", ""},
	} {
		f.Add(seed.route, seed.query, seed.id)
	}
	f.Fuzz(func(t *testing.T, route uint8, query, lastEventID string) {
		switch route % 4 {
		case 0:
			fs.serve(t, "GET", "/v1/desks/eng/view?"+query, nil)
		case 1:
			fs.serve(t, "GET", "/v1/desks/eng/threads?"+query, nil)
		case 2: // a thread that does not exist, first: the request never becomes a stream
			if strings.Contains(query, "thread") {
				return
			}
			fs.serve(t, "GET", "/v1/desks/eng/events?thread=999999&"+query, nil, "Last-Event-ID", lastEventID)
		case 3:
			fs.serve(t, "GET", "/v1/desks/eng/search?"+query, nil)
		}
	})
}
