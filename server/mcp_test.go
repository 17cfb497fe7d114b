package server_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/deskmcp"
	"github.com/sharedesk/transcript/internal/mcptest"
	"github.com/sharedesk/transcript/render"
	"github.com/sharedesk/transcript/server"
)

// mcpAgent connects the SDK's client to /mcp with a token.
func (e *env) mcpAgent(secret string) *mcptest.Agent {
	e.t.Helper()
	return mcptest.ConnectHTTP(e.t, e.ts.URL+"/mcp", http.Header{"Authorization": {"Bearer " + secret}})
}

var sameMessage = cmp.Options{cmpopts.IgnoreFields(transcript.Message{}, "At"), cmpopts.EquateEmpty()}

// TestMCPOverHTTP: /mcp serves the tools for the token's participant, with the SDK's own
// client over streamable HTTP. Two agents and a person: A reads, B posts, and A's next read
// holds exactly B's post, authored by B's token; A moves between a thread and the channel
// without starting over; an aside to A never reaches B; a token names its desk.
func TestMCPOverHTTP(t *testing.T) {
	eachStore(t, func(t *testing.T, st server.Store) {
		f := newFixture(t, st, server.Options{})
		e := f.env
		a, b := e.mcpAgent(f.triage), e.mcpAgent(f.coder)
		for _, th := range []transcript.Sequence{0, f.root.Seq} {
			if r, _ := a.Read(deskmcp.ReadDeskArgs{Thread: th}); r.Reinitialized != "first_read" {
				t.Fatalf("triage's first read of %d: %+v", th, r)
			}
		}
		r, text := b.Read(deskmcp.ReadDeskArgs{})
		if len(r.Elided) != 1 || strings.Contains(text, asideText) || strings.Contains(fmt.Sprint(r), asideText) {
			t.Errorf("coder's first read shows the aside, or no elision of it: %+v", r)
		}

		fromB := b.Post(deskmcp.PostMessageArgs{Content: "patch is up", Parent: f.root.Seq})
		if !fromB.Author.Same(coder) || fromB.Author.Label != coder.Label {
			t.Errorf("coder's post is by %v, want the token's participant %v", fromB.Author, coder)
		}
		r, text = a.Read(deskmcp.ReadDeskArgs{Thread: f.root.Seq})
		if diff := cmp.Diff([]transcript.Message{fromB}, r.Messages, sameMessage); diff != "" || r.Reinitialized != "" {
			t.Fatalf("triage's read of the thread (-want +got):\n%s", diff)
		}
		if !strings.Contains(text, render.Envelope(fromB)) {
			t.Errorf("triage's read lacks coder's post in its envelope:\n%s", text)
		}
		fromOp := e.post(f.op, map[string]any{"content": "ship it"})
		if r, _ := a.Read(deskmcp.ReadDeskArgs{}); r.Reinitialized != "" || !slices.Equal(mcptest.Seqs(r.Messages), []transcript.Sequence{fromOp.Seq}) {
			t.Errorf("triage's read of the channel = %+v, want the operator's post %d", r, fromOp.Seq)
		}

		// The aside: triage reads it, coder never does.
		if p, text := a.View(deskmcp.ViewArgs{}); !strings.Contains(text, asideText) || len(p.Elided) != 0 {
			t.Errorf("triage's view lacks the aside meant for it: %+v", p)
		}
		p, text := b.View(deskmcp.ViewArgs{})
		threads, threadsText := b.Threads(deskmcp.ListThreadsArgs{})
		var ignored any
		refused, err := b.Call("post_message", deskmcp.PostMessageArgs{Content: "me too", Parent: f.aside.Seq}, &ignored)
		if err == nil || !strings.Contains(refused, "no such parent") {
			t.Errorf("coder's reply to the aside = %q, %v; want no such parent", refused, err)
		}
		for _, out := range []string{text, fmt.Sprint(p), threadsText, fmt.Sprint(threads), refused} {
			if strings.Contains(out, asideText) {
				t.Errorf("coder received the aside:\n%s", out)
			}
		}

		// A token for another desk sees that desk.
		other := e.mcpAgent(e.token("ops", coder))
		if r, _ := other.Read(deskmcp.ReadDeskArgs{}); len(r.Messages) != 0 || r.Head != 0 {
			t.Errorf("a token for desk ops reads %+v, want that desk's empty channel", r)
		}
	})
}

// TestMCPNeedsToken: /mcp without a valid token is refused as every /v1/ route is: 401,
// a problem, WWW-Authenticate; and the refusal is logged without the secret.
func TestMCPNeedsToken(t *testing.T) {
	e := newEnv(t, sqliteStore(t), server.Options{})
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, secret := range []string{"", "trs_not-a-real-token", e.token("eng", coder) + "x"} {
		res := e.do("POST", "/mcp", secret, initialize, "Accept", "application/json, text/event-stream")
		wantProblem(t, res, http.StatusUnauthorized, "unauthorized")
		if !strings.HasPrefix(res.header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("401 without a Bearer challenge: %v", res.header)
		}
	}
	res := e.do("POST", "/mcp", e.token("eng", coder), initialize, "Accept", "application/json, text/event-stream")
	if res.status != http.StatusOK || !strings.Contains(string(res.body), `"serverInfo"`) || res.header.Get("Mcp-Session-Id") != "" {
		t.Errorf("initialize with a token: %d %v %s; want 200, a serverInfo and no session", res.status, res.header, res.body)
	}
	if strings.Contains(e.log.String(), "trs_not-a-real-token") {
		t.Error("the log holds a secret")
	}
}

// TestMCPPostWakesStreams: a post through /mcp reaches an open event stream at once, as
// a post through /v1/ does, even on a store the server polls only every hour.
func TestMCPPostWakesStreams(t *testing.T) {
	e := newEnv(t, unwatched{sqliteStore(t)}, server.Options{PollInterval: time.Hour})
	op, b := e.token("eng", operator), e.mcpAgent(e.token("eng", coder))
	s := e.open("/v1/desks/eng/events", op)
	defer s.close()
	m := b.Post(deskmcp.PostMessageArgs{Content: "hello from MCP"})
	for {
		ev, ok := s.next(5 * time.Second)
		if !ok {
			t.Fatal("the stream got nothing within 5 s of the post")
		}
		if ev.event == "message" {
			if got := ev.message(t); got.Seq != m.Seq {
				t.Errorf("the stream got %d, want the MCP post %d", got.Seq, m.Seq)
			}
			return
		}
	}
}
