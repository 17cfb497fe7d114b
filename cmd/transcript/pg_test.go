package main

import (
	"testing"

	"github.com/sharedesk/transcript/internal/pgtest"
)

// pgDatabase creates an empty database of its own for t, dropped when t ends, and returns
// its postgres:// URL, which is what --db takes. Without a test server the test skips (fails
// under CI=true); a keyword/value TRANSCRIPT_PG_DSN makes it skip too.
func pgDatabase(t *testing.T) string {
	t.Helper()
	needURL(t)
	return pgtest.Database(t, "cmd/transcript")
}

// needURL skips t unless TRANSCRIPT_PG_DSN is a postgres:// URL (and skips it, or fails it
// under CI=true, without a test server).
func needURL(t *testing.T) {
	t.Helper()
	if dsn := pgtest.ServerDSN(t, "cmd/transcript"); !pgtest.IsURL(dsn) {
		t.Skip("cmd/transcript: " + pgtest.DSNEnv + " is not a postgres:// URL, which is what --db takes, so the PostgreSQL end-to-end tests skip")
	}
}
