package server_test

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript/server"
)

// TestAuthFailureLimit: past its burst of failed authentications an address gets 429 with
// Retry-After for every failure (an unknown token, a near miss, no token), while a valid
// token from the same address is served; another address is not limited; no log line
// holds a token sent.
func TestAuthFailureLimit(t *testing.T) {
	f := newFixture(t, sqliteStore(t), server.Options{Rate: rate.Inf, AuthFailureRate: rate.Every(time.Hour), AuthFailureBurst: 3})
	nearMiss := f.triage[:len(f.triage)-1] + "A" // triage's secret with its last character changed
	if nearMiss == f.triage {
		nearMiss = f.triage[:len(f.triage)-1] + "B"
	}
	const unknown = "trs_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	for range 3 {
		wantProblem(t, f.do("GET", "/v1/desks", unknown, nil), http.StatusUnauthorized, "unauthorized")
		decode[server.DeskList](t, f.do("GET", "/v1/desks", f.triage, nil), http.StatusOK) // valid tokens take nothing from the bucket
	}
	for _, secret := range []string{unknown, nearMiss, ""} {
		r := f.do("GET", "/v1/desks", secret, nil)
		wantProblem(t, r, http.StatusTooManyRequests, "rate-limited")
		if ra := r.header.Get("Retry-After"); ra == "" || ra == "0" {
			t.Errorf("a limited failure: Retry-After %q, want seconds", ra)
		}
		decode[server.DeskList](t, f.do("GET", "/v1/desks", f.triage, nil), http.StatusOK)
		decode[server.DeskList](t, f.do("GET", "/v1/desks", f.op, nil), http.StatusOK)
	}
	if r := f.do("POST", "/mcp", nearMiss, `{}`); r.status != http.StatusTooManyRequests {
		t.Errorf("/mcp with a near miss from a limited address: %d, want 429", r.status)
	}

	// Another address (127.0.0.2, where the system routes it) has its own bucket.
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
	other := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
	req, _ := http.NewRequestWithContext(context.Background(), "GET", f.ts.URL+"/v1/desks", nil)
	req.Header.Set("Authorization", "Bearer "+unknown)
	if res, err := other.Do(req); err != nil {
		t.Logf("no second loopback address: %v", err)
	} else {
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("an unknown token from another address: %d, want 401", res.StatusCode)
		}
	}
	noSecret(t, f.log.String(), []string{unknown, nearMiss, f.triage, f.op})
}
