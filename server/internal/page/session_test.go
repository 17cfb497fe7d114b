package page

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// A session logged with slog shows when it expires, never the bearer
// token it keeps or its CSRF token.
func TestSessionLogsNoSecret(t *testing.T) {
	s := &Session{Authorization: "Bearer trs_secretsecret", CSRF: "csrfsecret", Expires: time.Unix(1e9, 0).UTC()}
	var buf bytes.Buffer
	slog.New(slog.NewTextHandler(&buf, nil)).Info("signed in", "session", s)
	for _, secret := range []string{"trs_secretsecret", "csrfsecret"} {
		if strings.Contains(buf.String(), secret) {
			t.Errorf("log line %q holds a secret", buf.String())
		}
	}
	if !strings.Contains(buf.String(), "session.expires=2001-09-09T01:46:40") {
		t.Errorf("log line %q does not say when the session expires", buf.String())
	}
}

// A context carries the session it was given; one given none, or nil (a bearer token),
// carries none.
func TestSessionOf(t *testing.T) {
	s := &Session{CSRF: "c", Expires: time.Unix(1e9, 0)}
	if got := SessionOf(WithSession(context.Background(), s)); got != s {
		t.Errorf("SessionOf = %p, want %p", got, s)
	}
	if got := SessionOf(WithSession(context.Background(), nil)); got != nil {
		t.Errorf("SessionOf of a bearer request = %p, want nil", got)
	}
	if got := SessionOf(context.Background()); got != nil {
		t.Errorf("SessionOf of a bare context = %p, want nil", got)
	}
}
