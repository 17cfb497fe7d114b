package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
)

// notUTF8 are text a JSON string may hold that is no Unicode text: the probe's byte
// sequences, raw, and escaped lone surrogates (each a U+FFFD to Go's encoding/json).
var notUTF8 = []struct{ name, text string }{
	{"FF", "\xff"},
	{"FE", "\xfe"},
	{"FF FE", "\xff\xfe"},
	{"overlong NUL", "\xc0\x80"},
	{"an encoded surrogate", "\xed\xa0\x80"},
	{"beyond U+10FFFF", "\xf4\x90\x80\x80"},
	{"truncated", "\xe2\x82"},
	{"among text", "ok \xff ok"},
	{"an escaped lone high surrogate", `\ud800`},
	{"an escaped lone low surrogate", `\udfff`},
	{"an escaped high surrogate before a letter", `\ud800\u0041`},
}

// head is the desk's newest row.
func head(t *testing.T, st server.Store) transcript.Sequence {
	t.Helper()
	page, err := st.Log("eng").ReadBefore(t.Context(), 0, 1)
	if err != nil || len(page.Messages) != 1 {
		t.Fatalf("the desk's newest row: %+v, %v", page.Messages, err)
	}
	return page.Messages[0].Seq
}

// TestInvalidUTF8Refused: a body whose text is not valid UTF-8, in any field, is a 400 and
// stores nothing: it is never made valid by replacing what is wrong with U+FFFD, which
// would store other text than was sent and make two different keys one (a post with key FF
// would replay the row of key FE, or of a key that is U+FFFD itself).
func TestInvalidUTF8Refused(t *testing.T) {
	eachStore(t, func(t *testing.T, st server.Store) {
		f := newFixture(t, st, server.Options{Rate: rate.Inf})
		replacement := f.post(f.coder, map[string]any{"content": "kept", "key": "\ufffd"})
		before := head(t, st)
		state := func(desk string) string {
			return `{"state":{"conversation":{"desk":"` + desk + `"},"watermark":1}}`
		}
		for _, bad := range notUTF8 {
			for _, tt := range []struct{ field, path, body string }{
				{"content", "/v1/desks/eng/messages", `{"content":"` + bad.text + `"}`},
				{"key", "/v1/desks/eng/messages", `{"content":"kept","key":"` + bad.text + `"}`},
				{"an audience entry", "/v1/desks/eng/messages", `{"content":"x","audience":["agent:` + bad.text + `"]}`},
				{"an audience object's id", "/v1/desks/eng/messages", `{"content":"x","audience":[{"type":"agent","id":"` + bad.text + `"}]}`},
				{"a member name", "/v1/desks/eng/messages", `{"content":"x","` + bad.text + `":1}`},
				{"a delta's state's desk", "/v1/desks/eng/delta", state(bad.text)},
				{"a delta's conversation's desk", "/v1/desks/eng/delta", `{"state":{"conversation":{"desk":"eng"},"watermark":1},"conversation":{"desk":"` + bad.text + `"}}`},
			} {
				r := f.do("POST", tt.path, f.coder, tt.body)
				if r.status != http.StatusBadRequest {
					t.Errorf("%s in %s: %d %s; want 400", bad.name, tt.field, r.status, r.body)
					continue
				}
				wantProblem(t, r, http.StatusBadRequest, "invalid-request")
			}
		}
		if got := head(t, st); got != before {
			t.Errorf("the desk's head is #%d, want #%d: a refused body was stored", got, before)
		}

		// Two keys that differ only in their invalid bytes are never one: neither replays
		// the other, nor the row whose key is U+FFFD.
		for _, key := range []string{"\xff", "\xfe", "\xff"} {
			r := f.do("POST", "/v1/desks/eng/messages", f.coder, `{"content":"kept","key":"`+key+`"}`)
			if r.status != http.StatusBadRequest || strings.Contains(string(r.body), `"seq"`) {
				t.Errorf("key %q: %d %s; want 400 and no row (row #%d has key U+FFFD)", key, r.status, r.body, replacement.Seq)
			}
		}
	})
}

// TestMCPInvalidUTF8Refused: post_message over /mcp refuses arguments whose text is not
// valid UTF-8 as the HTTP route does (a tool error, nothing stored), though the SDK hands
// the tool the arguments' bytes as they came; keys FF and FE never replay one another.
func TestMCPInvalidUTF8Refused(t *testing.T) {
	st := sqliteStore(t)
	f := newFixture(t, st, server.Options{Rate: rate.Inf})
	call := func(args string) (refused bool, text string) {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"post_message","arguments":` + args + `}}`
		r := f.do("POST", "/mcp", f.coder, body, "Accept", "application/json, text/event-stream")
		var res struct {
			Result *struct {
				Content []struct{ Text string }
				IsError bool
			}
			Error *struct{ Message string }
		}
		if err := json.Unmarshal(r.body, &res); err != nil || r.status != http.StatusOK {
			t.Fatalf("%s: %d %s (%v)", args, r.status, r.body, err)
		}
		if res.Error != nil {
			return true, res.Error.Message
		}
		if len(res.Result.Content) > 0 {
			text = res.Result.Content[0].Text
		}
		return res.Result.IsError, text
	}
	if refused, text := call(`{"content":"kept","key":"\ufffd"}`); refused {
		t.Fatalf("a post with key U+FFFD: %s", text)
	}
	before := head(t, st)
	for _, bad := range notUTF8 {
		for _, tt := range []struct{ field, args string }{
			{"content", `{"content":"` + bad.text + `"}`},
			{"key", `{"content":"kept","key":"` + bad.text + `"}`},
			{"an audience entry", `{"content":"x","audience":["agent:` + bad.text + `"]}`},
		} {
			if refused, text := call(tt.args); !refused || !strings.Contains(text, "UTF-8") {
				t.Errorf("%s in %s: refused %v, %q; want a tool error saying UTF-8", bad.name, tt.field, refused, text)
			}
		}
	}
	for _, key := range []string{"\xff", "\xfe"} {
		if refused, text := call(`{"content":"kept","key":"` + key + `"}`); !refused {
			t.Errorf("key %q: %s; want a tool error, not a replay", key, text)
		}
	}
	if got := head(t, st); got != before {
		t.Errorf("the desk's head is #%d, want #%d: refused arguments were stored", got, before)
	}
}
