package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/deskmcp"
	"github.com/sharedesk/transcript/internal/mcptest"
)

// mcpClientConfig is an MCP client's configuration, as the README shows it.
type mcpClientConfig struct {
	MCPServers map[string]struct {
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Type    string            `json:"type"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	} `json:"mcpServers"`
}

// readmeMCPConfigs returns the README's MCP client configurations: its JSON blocks that
// hold mcpServers.
func readmeMCPConfigs(t *testing.T) []mcpClientConfig {
	t.Helper()
	var out []mcpClientConfig
	for _, block := range readmeBlocks(t, "json") {
		if !strings.Contains(block, "mcpServers") {
			continue
		}
		var c mcpClientConfig
		if err := json.Unmarshal([]byte(block), &c); err != nil {
			t.Fatalf("the README's MCP configuration does not parse: %v\n%s", err, block)
		}
		out = append(out, c)
	}
	return out
}

// TestREADMEMCPConfigs runs the README's two MCP client configurations as a client would:
// the stdio one starts the built command with its arguments (on a test database), the
// HTTP one reaches serve's /mcp with its URL's path and its Authorization header (with a
// real token); through each, the agent the configuration names reads the desk, posts and
// searches, and every tool it is given is named in the README.
func TestREADMEMCPConfigs(t *testing.T) {
	t.Parallel()
	configs := readmeMCPConfigs(t)
	if len(configs) != 2 {
		t.Fatalf("the README shows %d MCP client configurations, want 2 (stdio and HTTP)", len(configs))
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	d := newMCPDesk(t)
	hello := d.say(transcript.Message{Author: mcpAna, Content: "hello, desk"})
	triage := transcript.Agent("triage", "Triage")
	// The agent's place is in the database: its first session starts over with the
	// channel, its second (the other transport) reads on from there, where its own post
	// is no news.
	sessions := 0
	check := func(name string, a *mcptest.Agent) {
		t.Helper()
		r, _ := a.Read(deskmcp.ReadDeskArgs{})
		switch sessions++; {
		case sessions == 1 && (r.Reinitialized != "first_read" || len(r.Messages) == 0 || r.Messages[0].Seq != hello.Seq):
			t.Errorf("%s: the first read = %+v, want the desk's channel", name, r)
		case sessions == 2 && (r.Reinitialized != "" || len(r.Messages) != 0):
			t.Errorf("%s: the second session's read = %+v, want nothing new (its own post is no news)", name, r)
		}
		if m := a.Post(deskmcp.PostMessageArgs{Content: "on it (" + name + ")"}); !m.Author.Same(triage) || m.Author.Label != "Triage" {
			t.Errorf("%s: the post is by %v, want %v", name, m.Author, triage)
		}
		tools, err := a.Session.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range tools.Tools {
			if !strings.Contains(string(readme), "`"+tool.Name+"`") {
				t.Errorf("%s: the README does not name the tool %s", name, tool.Name)
			}
		}
		if r, _ := a.Search(deskmcp.SearchDeskArgs{Query: "Hello, DESK"}); len(r.Messages) != 1 || r.Messages[0].Seq != hello.Seq || r.Next != 0 {
			t.Errorf("%s: the search for hello desk = %+v, want Ana's message", name, r)
		}
	}

	var stdio, overHTTP bool
	for _, c := range configs {
		for name, s := range c.MCPServers {
			switch {
			case s.Command == "transcript":
				stdio = true
				args := append([]string(nil), s.Args...)
				for i := range args {
					if i > 0 && args[i-1] == "--db" {
						args[i] = d.db
					}
				}
				check(name+" (stdio)", mcptest.Connect(t, &mcp.CommandTransport{Command: exec.Command(binary(t), args...)}))
			case s.Type == "http":
				overHTTP = true
				u, err := url.Parse(s.URL)
				if err != nil {
					t.Fatal(err)
				}
				secret := addTokenInProcess(t, d.db, "eng", "agent:triage:Triage")
				srv := startServe(t, d.db)
				header := http.Header{}
				for k, v := range s.Headers {
					header.Set(k, strings.Replace(v, "trs_...", secret, 1))
				}
				check(name+" (HTTP)", mcptest.ConnectHTTP(t, srv.url+u.Path, header))
			default:
				t.Errorf("the README's MCP server %q is neither stdio nor HTTP: %+v", name, s)
			}
		}
	}
	if !stdio || !overHTTP {
		t.Errorf("the README shows stdio %v, HTTP %v: want both", stdio, overHTTP)
	}
}
