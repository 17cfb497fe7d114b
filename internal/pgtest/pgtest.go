// Package pgtest gives tests a PostgreSQL database of their own on the server named by
// TRANSCRIPT_PG_DSN, which scripts/pgtest.sh (run by make test) starts and sets.
//
// Without that variable a test skips, saying how to run it; under CI=true, where PostgreSQL
// must be there, it fails instead.
package pgtest

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DSNEnv names the variable that holds the test server's DSN (a postgres:// URL or
// keyword/value pairs).
const DSNEnv = "TRANSCRIPT_PG_DSN"

// ServerDSN returns the test server's DSN, or skips tb (fails it under CI=true) when there is
// none. pkg is the package path relative to the module ("pgstore", "cmd/transcript"), used in
// the message that says how to run the tests.
func ServerDSN(tb testing.TB, pkg string) string {
	tb.Helper()
	dsn := os.Getenv(DSNEnv)
	if dsn == "" {
		howTo := pkg + ": " + DSNEnv + " is not set, so the PostgreSQL tests skip. " +
			"`make test` starts a throwaway PostgreSQL for them when the server binaries are installed " +
			"(/usr/lib/postgresql/15/bin: apt-get install postgresql-15); or run " +
			"scripts/pgtest.sh go test ./" + pkg + ", or set " + DSNEnv + " to a server where the user may CREATE DATABASE"
		missing(tb, howTo, "PostgreSQL is required")
	}
	return dsn
}

// missing skips tb for want of a server, saying how to run it, or under CI=true, where
// every server the tests need is started, fails it, saying what is required.
func missing(tb testing.TB, howTo, required string) {
	tb.Helper()
	if os.Getenv("CI") == "true" {
		tb.Fatal(howTo + " (CI=true: " + required + ")")
	}
	tb.Skip(howTo)
}

var (
	adminMu sync.Mutex
	admins  = map[string]*pgxpool.Pool{}
)

// Admin returns a pool on the test server's own database, for creating and dropping test
// databases. It is shared by a test binary's tests and never closed.
func Admin(tb testing.TB, pkg string) *pgxpool.Pool {
	tb.Helper()
	return adminOf(tb, ServerDSN(tb, pkg))
}

// adminOf returns a pool on dsn, a server's own database, shared by a test binary's tests
// and never closed.
func adminOf(tb testing.TB, dsn string) *pgxpool.Pool {
	tb.Helper()
	adminMu.Lock()
	defer adminMu.Unlock()
	if pool, ok := admins[dsn]; ok {
		return pool
	}
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		tb.Fatalf("connect to the test server: %v", err)
	}
	admins[dsn] = pool
	return pool
}

// Database creates an empty database of its own for tb, dropped when tb ends, and returns its
// DSN, in the server DSN's form. Tests that each use their own database can run in parallel.
func Database(tb testing.TB, pkg string) string {
	tb.Helper()
	return database(tb, ServerDSN(tb, pkg))
}

// database creates an empty database of tb's own on the server dsn names, dropped when tb
// ends, and returns its DSN.
func database(tb testing.TB, dsn string) string {
	tb.Helper()
	pool := adminOf(tb, dsn)
	name := "transcript_test_" + strings.ToLower(rand.Text()[:12])
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := pool.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		tb.Fatalf("create database %s: %v", name, err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := pool.Exec(ctx, "DROP DATABASE "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			tb.Errorf("drop database %s: %v", name, err)
		}
	})
	return WithDatabase(tb, dsn, name)
}

// WithDatabase returns dsn naming database name instead of its own.
func WithDatabase(tb testing.TB, dsn, name string) string {
	tb.Helper()
	if IsURL(dsn) {
		u, err := url.Parse(dsn)
		if err != nil {
			tb.Fatalf("%s: %v", DSNEnv, err)
		}
		u.Path = "/" + name
		return u.String()
	}
	return fmt.Sprintf("%s dbname='%s'", dsn, name) // keyword/value: the last dbname wins
}

// IsURL reports whether dsn is a postgres:// URL rather than keyword/value pairs.
func IsURL(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}
