package pgtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// StandbyDSNEnv names the variable that holds the DSN of a streaming standby (its postgres
// database), and StandbyPrimaryDSNEnv the DSN of the server it streams from, which
// scripts/pgtest.sh starts and sets. That server is not the test server of DSNEnv: the
// standby replays only the databases of the tests that read from it (ReplicatedDatabase).
const (
	StandbyDSNEnv        = "TRANSCRIPT_PG_STANDBY_DSN"
	StandbyPrimaryDSNEnv = "TRANSCRIPT_PG_STANDBY_PRIMARY_DSN"
)

// StandbyServerDSN returns the DSN of the standby, or skips tb (fails it under CI=true,
// where make test starts one) when there is none.
func StandbyServerDSN(tb testing.TB, pkg string) string {
	tb.Helper()
	dsn, _ := standbyPair(tb, pkg)
	return dsn
}

// standbyPair returns the DSNs of the standby and of the server it streams from, or skips
// tb (fails it under CI=true) when either is not set.
func standbyPair(tb testing.TB, pkg string) (standby, primary string) {
	tb.Helper()
	ServerDSN(tb, pkg)
	standby, primary = os.Getenv(StandbyDSNEnv), os.Getenv(StandbyPrimaryDSNEnv)
	if standby == "" || primary == "" {
		howTo := pkg + ": " + StandbyDSNEnv + " or " + StandbyPrimaryDSNEnv + " is not set, so the tests that read from a PostgreSQL standby skip. " +
			"scripts/pgtest.sh (run by make test) starts a server and a standby of it and sets them, unless PGTEST_STANDBY=0"
		missing(tb, howTo, "the standby is required")
	}
	return standby, primary
}

// ReplicatedDatabase creates an empty database of tb's own on the server the standby
// streams from, dropped when tb ends, and returns its DSN there, as Database does on the
// test server. StandbyDatabase gives the same database on the standby.
func ReplicatedDatabase(tb testing.TB, pkg string) string {
	tb.Helper()
	_, primary := standbyPair(tb, pkg)
	return database(tb, primary)
}

// StandbyDatabase returns the DSN of the database primary names (one of
// ReplicatedDatabase's) on the standby, once the standby has replayed its creation: the same
// database, read-only, as streaming replication keeps it.
func StandbyDatabase(tb testing.TB, pkg, primary string) string {
	tb.Helper()
	cfg, err := pgx.ParseConfig(primary)
	if err != nil {
		tb.Fatalf("parse the primary's DSN: %v", err)
	}
	dsn := WithDatabase(tb, StandbyServerDSN(tb, pkg), cfg.Database)
	WaitForDatabase(tb, dsn)
	return dsn
}

// WaitForDatabase waits, up to a minute, until a connection to dsn succeeds: on a standby,
// until it has replayed the database's creation.
func WaitForDatabase(tb testing.TB, dsn string) {
	tb.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		conn, err := pgx.Connect(ctx, dsn)
		cancel()
		if err == nil {
			conn.Close(context.Background())
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("the standby's database does not answer after a minute: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// CaughtUp waits, up to a minute, until the standby that standby names has replayed every
// transaction the primary that primary names committed before the call. It commits one
// transaction of its own on the primary, synchronously, so that the WAL to wait for is
// flushed (and so sent) even when the primary commits asynchronously.
func CaughtUp(tb testing.TB, primary, standby *pgxpool.Pool) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var target string
	err := pgx.BeginFunc(ctx, primary, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `SET LOCAL synchronous_commit = on; SELECT txid_current()`)
		return err
	})
	if err == nil {
		err = primary.QueryRow(ctx, `SELECT pg_current_wal_flush_lsn()::text`).Scan(&target)
	}
	if err != nil {
		tb.Fatalf("caught up: the primary's position: %v", err)
	}
	for {
		var done bool
		err := standby.QueryRow(ctx, `SELECT coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false)`, target).Scan(&done)
		switch {
		case err != nil:
			tb.Fatalf("caught up: the standby's position: %v", err)
		case done:
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// PauseReplay pauses the standby's replay of WAL (pg_wal_replay_pause) and waits until it
// has paused: until ResumeReplay, the standby's reads show what it had replayed by then,
// however far the primary goes. The DSN's user must be a superuser (Own's is).
func PauseReplay(tb testing.TB, standby *pgxpool.Pool) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := standby.Exec(ctx, `SELECT pg_wal_replay_pause()`); err != nil {
		tb.Fatalf("pause the standby's replay: %v", err)
	}
	for {
		var state string
		if err := standby.QueryRow(ctx, `SELECT pg_get_wal_replay_pause_state()`).Scan(&state); err != nil {
			tb.Fatalf("the standby's replay: %v", err)
		}
		if state == "paused" {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// ResumeReplay resumes a standby's replay after PauseReplay.
func ResumeReplay(tb testing.TB, standby *pgxpool.Pool) {
	tb.Helper()
	if _, err := standby.Exec(context.Background(), `SELECT pg_wal_replay_resume()`); err != nil {
		tb.Fatalf("resume the standby's replay: %v", err)
	}
}

// Standby makes a hot standby of s that streams from it: a base backup of s by
// pg_basebackup -R (which writes the connection to s and standby.signal into the copy),
// started on a port of its own beside s's socket. It is torn down when tb ends, before s
// (cleanups run last first). The standby is a Server: its DSN names its postgres database,
// and Stop, Start and Restart work on it; Standby of a standby is not supported.
func (s *Server) Standby(tb testing.TB) *Server {
	tb.Helper()
	s.standbys++
	sb := &Server{bin: s.bin, dir: s.dir, data: filepath.Join(s.dir, "standby"+strconv.Itoa(s.standbys)), port: s.port + s.standbys}
	// -c fast: a checkpoint at once, not spread; -X stream: the WAL the copy needs comes along.
	s.must(tb, "pg_basebackup", "-D", sb.data, "-R", "-h", s.dir, "-p", strconv.Itoa(s.port), "-U", "postgres", "-X", "stream", "-c", "fast")
	if err := appendConf(sb.data, fmt.Sprintf("port = %d\nhot_standby = on\n", sb.port)); err != nil {
		tb.Fatal(err)
	}
	sb.start(tb)
	return sb
}
