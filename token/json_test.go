package token_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/token"
)

// TestTokenJSON: a token in JSON is its ID, desk, participant and times in UTC, revoked null
// while it is not, never its hash.
func TestTokenJSON(t *testing.T) {
	created := time.Date(2026, 12, 6, 12, 0, 0, 0, time.FixedZone("CET", 3600))
	_, tok, err := token.New("eng", transcript.Agent("triage", "Triage"), created)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(tok)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"` + tok.ID + `","desk":"eng","participant":{"type":"agent","id":"triage","label":"Triage"},"created":"2026-12-06T11:00:00Z","revoked":null}`
	if string(data) != want {
		t.Errorf("json.Marshal(token) =\n%s\nwant\n%s", data, want)
	}
	if strings.Contains(strings.ToLower(string(data)), "hash") {
		t.Errorf("the JSON names the hash: %s", data)
	}
	tok.Revoked = created.Add(time.Hour)
	data, _ = json.Marshal(tok)
	if !strings.HasSuffix(string(data), `"revoked":"2026-12-06T12:00:00Z"}`) {
		t.Errorf("a revoked token's JSON: %s", data)
	}
}
