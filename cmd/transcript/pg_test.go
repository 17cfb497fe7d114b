package main

import (
	"context"
	"crypto/rand"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// dsnEnv names the PostgreSQL server the tests use; scripts/pgtest.sh (run by make test)
// starts a throwaway one and sets it.
const dsnEnv = "TRANSCRIPT_PG_DSN"

const howToRunPG = "cmd/transcript: " + dsnEnv + " is not set, so the PostgreSQL end-to-end tests skip. " +
	"`make test` starts a throwaway PostgreSQL for them when the server binaries are installed " +
	"(apt-get install postgresql-15); or run scripts/pgtest.sh go test ./cmd/transcript, or set " +
	dsnEnv + " to a postgres:// URL of a server where the user may CREATE DATABASE"

// serverURL returns the test server's URL. Without one the test skips, but under CI=true,
// where PostgreSQL must be there, it fails. The command takes only postgres:// URLs, so a
// keyword/value DSN is treated the same way.
func serverURL(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv(dsnEnv)
	msg := howToRunPG
	if dsn != "" && !isPostgresURL(dsn) {
		msg = "cmd/transcript: " + dsnEnv + " is not a postgres:// URL, which is what --db takes, so the PostgreSQL end-to-end tests skip"
		dsn = ""
	}
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + " (CI=true: PostgreSQL is required)")
		}
		t.Skip(msg)
	}
	return dsn
}

func isPostgresURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

var (
	adminOnce sync.Once
	admin     *pgxpool.Pool
	adminErr  error
)

// pgDatabase creates an empty database of its own for t, dropped when t ends, and returns
// its postgres:// URL. Tests on databases of their own can run in parallel.
func pgDatabase(t *testing.T) string {
	t.Helper()
	server := serverURL(t)
	adminOnce.Do(func() { admin, adminErr = pgxpool.New(context.Background(), server) })
	if adminErr != nil {
		t.Fatalf("connect to %s: %v", dsnEnv, adminErr)
	}
	name := "transcript_cli_" + strings.ToLower(rand.Text()[:12])
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := admin.Exec(ctx, "DROP DATABASE "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	u, err := url.Parse(server)
	if err != nil {
		t.Fatalf("%s: %v", dsnEnv, err)
	}
	u.Path = "/" + name
	return u.String()
}
