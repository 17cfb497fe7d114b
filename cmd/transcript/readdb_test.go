package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript/internal/pgtest"
	"github.com/sharedesk/transcript/sharing"
)

// pgStandby returns a new PostgreSQL database of its own, on the server the test standby
// streams from, and the URL of the same database on the standby, once the standby has it.
func pgStandby(t *testing.T) (db, standby string) {
	t.Helper()
	needURL(t)
	db = pgtest.ReplicatedDatabase(t, "cmd/transcript")
	return db, pgtest.StandbyDatabase(t, "cmd/transcript", db)
}

// caughtUpPools waits until the standby has replayed what the primary committed so far.
func caughtUpPools(t *testing.T, db, standby string) {
	t.Helper()
	pools := make([]*pgxpool.Pool, 2)
	for i, dsn := range []string{db, standby} {
		pool, err := pgxpool.New(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Close()
		pools[i] = pool
	}
	pgtest.CaughtUp(t, pools[0], pools[1])
}

// messageScans returns how many index scans of the messages table the database dsn names
// has made, by its own statistics (on a standby: the reads made there), once they reach
// more than above, or what they are after ten seconds: a session's statistics are
// published when it ends or idles.
func messageScans(t *testing.T, dsn string, above int64) int64 {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var n int64
		err := pool.QueryRow(context.Background(), `SELECT coalesce(sum(idx_scan), 0) FROM pg_stat_user_tables WHERE relname = 'transcript_messages'`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n > above || time.Now().After(deadline) {
			return n
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestServeReadDB runs TestServe's check with serve reading from a standby of its
// PostgreSQL --db (--read-db): the live stream, the view and the delta keep working; a row
// the command line appends reaches the stream through --db's notifications (the standby
// cannot LISTEN, and serve never falls back to polling); and the standby made the reads.
func TestServeReadDB(t *testing.T) {
	t.Parallel()
	db, standby := pgStandby(t)
	logs := checkServe(t, db, "--read-db", standby)
	if strings.Contains(logs, "polling") {
		t.Errorf("serve --read-db polled: its watch of --db failed or was lost:\n%s", logs)
	}
	if n := messageScans(t, standby, 0); n == 0 {
		t.Error("the standby's statistics count no scan of the messages: serve did not read there")
	}
}

// TestReadDB reads a desk from a standby: view, delta and search with --read-db show what
// they show on --db, view and search --db STANDBY open the standby read-only, an append
// there is refused saying why, a delta saved on one server and continued on the other
// loses nothing, a --read-db that cannot be reached is read around with a warning, and
// --read-db with a SQLite --db is a usage error.
func TestReadDB(t *testing.T) {
	t.Parallel()
	db, standby := pgStandby(t)
	c := newCLI(t, db)
	c.ok("append", "--create", "Deploy #41 is red")
	c.ok("append", "--as", "agent:triage:Triage", "--parent", "1", "Looking.")
	c.ok("append", "--to", "agent:triage", "only for triage")
	caughtUpPools(t, db, standby)
	before := messageScans(t, standby, -1)

	for _, as := range []string{"operator", "agent:triage", "person:ana"} {
		want := c.ok("view", "--as", as, "--format", "json")
		if got := c.ok("view", "--read-db", standby, "--as", as, "--format", "json"); got != want {
			t.Errorf("view --as %s --read-db: %s\nwant what view on --db shows:\n%s", as, got, want)
		}
		if got := (&cli{t: t, dir: c.dir, db: standby}).ok("view", "--as", as, "--format", "json"); got != want {
			t.Errorf("view --db STANDBY --as %s: %s\nwant what view on the primary shows:\n%s", as, got, want)
		}
		want = c.ok("search", "--as", as, "--format", "json", "only", "triage")
		if got := c.ok("search", "--read-db", standby, "--as", as, "--format", "json", "only", "triage"); got != want {
			t.Errorf("search --as %s --read-db: %s\nwant what search on --db finds:\n%s", as, got, want)
		}
		if got := (&cli{t: t, dir: c.dir, db: standby}).ok("search", "--as", as, "--format", "json", "only", "triage"); got != want {
			t.Errorf("search --db STANDBY --as %s: %s\nwant what search on the primary finds:\n%s", as, got, want)
		}
	}
	onStandby := &cli{t: t, dir: c.dir, db: standby}
	r := onStandby.want(exitError, "append", "refused")
	if !strings.Contains(r.stderr, "read-only") || !strings.Contains(r.stderr, "standby") {
		t.Errorf("append --db STANDBY: %q, want it to say the store is read-only, a standby", r.stderr)
	}

	// A delta committed through --read-db, then one more row, then deltas on the standby
	// alone and through --read-db: the new row comes once, whichever server answers.
	state := c.path("triage.json")
	c.ok("delta", "--read-db", standby, "--as", "agent:triage", "--state", state, "--commit")
	c.ok("append", "--as", "person:ana:Ana", "Split it in two?")
	var seen []uint64
	deadline := time.Now().Add(time.Minute)
	for i := 0; len(seen) == 0 || i < 4; i++ {
		if time.Now().After(deadline) {
			t.Fatal("the new row did not come through a delta within a minute")
		}
		args := []string{"delta", "--as", "agent:triage", "--state", state, "--commit", "--format", "json"}
		run := onStandby // on the standby alone, every other time
		if i%2 == 0 {
			run, args = c, append(args, "--read-db", standby)
		}
		var d sharing.Delta
		out := run.ok(args...)
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatalf("delta --format json: %v\n%s", err, out)
		}
		for _, m := range d.Messages {
			seen = append(seen, uint64(m.Seq))
		}
	}
	if len(seen) != 1 || seen[0] != 4 {
		t.Errorf("the deltas after row 4 showed rows %v, want [4] once", seen)
	}
	if after := messageScans(t, standby, before); after <= before {
		t.Errorf("the standby made %d scans of the messages before the views and %d after: the reads did not go there", before, after)
	}

	// A --read-db that cannot be reached: the view is the same, read elsewhere, and a
	// warning names the standby, never its password.
	want := c.ok("view", "--format", "json")
	r = c.want(0, "view", "--read-db", "postgres://u:hunter2@/chat?host=/nonexistent&connect_timeout=1", "--format", "json")
	if r.stdout != want {
		t.Errorf("view with a --read-db that cannot be reached: %s\nwant what view on --db shows:\n%s", r.stdout, want)
	}
	if !strings.Contains(r.stderr, "warning") || !strings.Contains(r.stderr, "/nonexistent") || strings.Contains(r.stderr, "hunter2") {
		t.Errorf("view with a --read-db that cannot be reached: standard error %q, want a warning naming the standby, never its password", r.stderr)
	}

	sqlite := &cli{t: t, dir: c.dir, db: c.path("desk.db")}
	sqlite.ok("append", "--create", "hello")
	if r := sqlite.want(exitUsage, "view", "--read-db", standby); !strings.Contains(r.stderr, "--read-db needs a PostgreSQL --db") {
		t.Errorf("view --db SQLITE --read-db: %q, want it to say --read-db needs PostgreSQL", r.stderr)
	}
}
