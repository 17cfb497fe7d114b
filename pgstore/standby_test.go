package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/pgtest"
	"github.com/sharedesk/transcript/internal/storetest"
	"github.com/sharedesk/transcript/logtest"
	"github.com/sharedesk/transcript/pgstore"
	"github.com/sharedesk/transcript/sharing"
	"github.com/sharedesk/transcript/token"
)

// The tests here read from the test standby (TRANSCRIPT_PG_STANDBY_DSN, which
// scripts/pgtest.sh starts): every database a test creates on the server it streams from
// (newReplicatedDatabase) is replayed there.
// The tests that pause a standby's replay or stop it start servers of their own
// (standbyfaults_test.go).

// newReplicatedDatabase creates an empty database of tb's own on the server the test
// standby streams from (not the test server of newDatabase, which no standby replays).
func newReplicatedDatabase(tb testing.TB) string {
	tb.Helper()
	return pgtest.ReplicatedDatabase(tb, "pgstore")
}

// standbyOf returns the DSN of primary's database (one of newReplicatedDatabase's) on the
// test standby, once the standby has it.
func standbyOf(tb testing.TB, primary string) string {
	tb.Helper()
	return pgtest.StandbyDatabase(tb, "pgstore", primary)
}

// syncCommit makes the sessions of dsn commit synchronously, as a server does by default:
// the test server does not (scripts/pgtest.sh), and a commit reaches a standby only once it
// is flushed, which it then waits for the WAL writer to do (10 ms at most).
func syncCommit(dsn string) string { return withParam(dsn, "synchronous_commit", "on") }

// openRouted opens a Store on a new database of its own that reads from the test
// standby, and returns it with the DSNs of the database on both servers. The primary's
// sessions commit synchronously (syncCommit).
func openRouted(tb testing.TB, opts ...pgstore.Option) (st *pgstore.Store, primary, standby string) {
	tb.Helper()
	primary = syncCommit(newReplicatedDatabase(tb))
	standby = standbyOf(tb, primary)
	return mustOpen(tb, primary, append([]pgstore.Option{pgstore.WithStandbys(standby)}, opts...)...), primary, standby
}

// caughtUp waits until the standby has replayed what the primary committed so far.
func caughtUp(tb testing.TB, primary, standby string) {
	tb.Helper()
	pgtest.CaughtUp(tb, connect(tb, primary), connect(tb, standby))
}

// mustOpen opens a Store on dsn, closed when tb ends: on a standby, a read-only one.
func mustOpen(tb testing.TB, dsn string, opts ...pgstore.Option) *pgstore.Store {
	tb.Helper()
	st, err := pgstore.Open(context.Background(), dsn, opts...)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

// TestStoreOnStandby runs the store suite on stores that read their Logs from a standby:
// every read of a row the store appended must see it (the suite reads back what it writes
// throughout), through the standby once it has replayed the row. Across the suite, most
// reads must come from the standby, or the suite would prove nothing about it.
func TestStoreOnStandby(t *testing.T) {
	t.Parallel()
	pgtest.StandbyServerDSN(t, "pgstore")
	var standbyReads, primaryReads atomic.Int64
	t.Run("suite", func(t *testing.T) {
		storetest.Run(t, func(t *testing.T) storetest.Store {
			st, _, _ := openRouted(t)
			t.Cleanup(func() {
				sb, primary := pgstore.StandbyReads(st)
				standbyReads.Add(sb[0])
				primaryReads.Add(primary)
			})
			return st
		})
	})
	sb, primary := standbyReads.Load(), primaryReads.Load()
	t.Logf("reads answered by the standby: %d; by the primary: %d", sb, primary)
	if sb == 0 || primary > sb/4 {
		t.Errorf("the standby answered %d reads and the primary %d: want most on the standby", sb, primary)
	}
}

// TestLogtestOnReadOnlyStandby runs the conformance kit on a read-only Store opened on the
// standby, each row appended on the primary and then awaited on the standby: the standby's
// Log alone, with no primary to fall back on, keeps the port's contract.
func TestLogtestOnReadOnlyStandby(t *testing.T) {
	t.Parallel()
	dsn := syncCommit(newReplicatedDatabase(t))
	primary := mustOpen(t, dsn)
	caughtUp(t, dsn, standbyOf(t, dsn)) // the schema
	standby := mustOpen(t, standbyOf(t, dsn))
	n := 0
	logtest.Run(t, func(t *testing.T) logtest.Desk {
		n++
		name := fmt.Sprintf("standby-%d", n)
		return &replicaDesk{standby: standby.Log(name), primary: primary, name: name}
	})
}

// replicaDesk is a desk whose Append appends on the primary and whose reads read the
// standby, each once the standby's Log shows the newest row appended: a check that reads
// after appending finds every row it appended, and a run of appends waits for the standby
// once, not once a row.
type replicaDesk struct {
	standby  transcript.Log
	primary  *pgstore.Store
	name     string
	appended atomic.Uint64 // the Seq of the newest row appended that a read has not yet awaited; 0: none
}

func (d *replicaDesk) Append(ctx context.Context, m transcript.Message) (transcript.Message, error) {
	got, err := d.primary.Append(ctx, d.name, m)
	if err == nil {
		d.appended.Store(uint64(got.Seq))
	}
	return got, err
}

// ReadBefore reads the standby once it shows the newest row appended. The wait ignores
// ctx's end, so that a read under a done ctx is the standby Log's own answer to it.
func (d *replicaDesk) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	if seq := d.appended.Load(); seq != 0 {
		if err := awaitRow(context.WithoutCancel(ctx), d.standby, transcript.Sequence(seq)); err != nil {
			return transcript.Page{}, err
		}
		d.appended.CompareAndSwap(seq, 0)
	}
	return d.standby.ReadBefore(ctx, before, limit)
}

// awaitRow waits, up to a minute, until log's newest row is at least seq.
func awaitRow(ctx context.Context, log transcript.Log, seq transcript.Sequence) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		page, err := log.ReadBefore(ctx, 0, 1)
		if err != nil {
			return fmt.Errorf("awaiting row %d on the standby: %w", seq, err)
		}
		if len(page.Messages) > 0 && page.Messages[0].Seq >= seq {
			return nil
		}
		time.Sleep(time.Millisecond)
	}
}

// TestReadOnlyStandby opens a Store on the standby alone, as transcript view --db STANDBY
// does: it is read-only without being told (the server is in recovery), it reads what the
// primary wrote, and every write is refused with ErrReadOnly, nothing written.
func TestReadOnlyStandby(t *testing.T) {
	t.Parallel()
	dsn := newReplicatedDatabase(t)
	primary := mustOpen(t, dsn)
	ctx := t.Context()
	root, err := primary.Append(ctx, "eng", transcript.Message{Author: alice, Content: "on the primary", Key: "k1"})
	if err != nil {
		t.Fatal(err)
	}
	secret, tok, err := token.New("eng", bot, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := primary.AddToken(ctx, tok); err != nil {
		t.Fatal(err)
	}
	caughtUp(t, dsn, standbyOf(t, dsn))
	st := mustOpen(t, standbyOf(t, dsn))

	page := mustRead(t, st.Log("eng"), 0, 10)
	if len(page.Messages) != 1 || page.Messages[0].Content != "on the primary" {
		t.Fatalf("the standby's log: %+v, want the primary's row", page.Messages)
	}
	if desks, err := st.Desks(ctx); err != nil || len(desks) != 1 || desks[0] != "eng" {
		t.Errorf("Desks on the standby: %v, %v; want [eng]", desks, err)
	}
	if found, err := st.LookupKeys(ctx, "eng", []string{"k1"}); err != nil || found["k1"].Seq != root.Seq {
		t.Errorf("LookupKeys on the standby: %v, %v; want k1 at seq %d", found, err, root.Seq)
	}
	if got, err := token.Authenticate(ctx, st, "Bearer "+secret); err != nil || got.ID != tok.ID {
		t.Errorf("Authenticate on the standby: %v, %v; want the token", got, err)
	}

	revoke := time.Now()
	_, secondTok, err := token.New("eng", alice, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	writes := map[string]error{
		"Append":      second(st.Append(ctx, "eng", transcript.Message{Author: alice, Content: "refused"})),
		"AppendBatch": st.AppendBatch(ctx, "eng", []transcript.Message{{Author: alice, Content: "refused"}}),
		"empty batch": st.AppendBatch(ctx, "eng", nil),
		"AddToken":    st.AddToken(ctx, secondTok),
		"RevokeToken": st.RevokeToken(ctx, tok.ID, revoke),
		"SaveBook":    second(st.SaveBook(ctx, "eng", alice, sharing.Book{}, 0)),
		"Watch":       second(st.Watch(ctx)),
	}
	for what, err := range writes {
		if !errors.Is(err, pgstore.ErrReadOnly) {
			t.Errorf("%s on the standby: %v, want ErrReadOnly", what, err)
			continue
		}
		if !strings.Contains(err.Error(), "standby") {
			t.Errorf("%s on the standby: %q does not say the database is a standby", what, err)
		}
		if errors.Is(err, transcript.ErrInvalidMessage) {
			t.Errorf("%s on the standby: %v matches ErrInvalidMessage: the message is not at fault", what, err)
		}
	}
	// Nothing was written: the primary holds one row and one token, unrevoked.
	if page := mustRead(t, primary.Log("eng"), 0, 10); len(page.Messages) != 1 {
		t.Errorf("the primary holds %d rows after the refused appends, want 1", len(page.Messages))
	}
	if all, err := primary.Tokens(ctx); err != nil || len(all) != 1 || all[0].IsRevoked() {
		t.Errorf("the primary's tokens after the refused writes: %v, %v; want one, unrevoked", all, err)
	}

	// WithStandbys needs the primary.
	_, err = pgstore.Open(ctx, standbyOf(t, dsn), pgstore.WithStandbys(standbyOf(t, dsn)))
	if err == nil || !strings.Contains(err.Error(), "needs the primary") {
		t.Errorf("Open(standby, WithStandbys): %v, want an error saying WithStandbys needs the primary", err)
	}
}

// second returns the error of a call that returns a value and an error.
func second[T any](_ T, err error) error { return err }

// TestReadOnlyOption opens the primary with ReadOnly: nothing is migrated (a database
// never migrated is ErrSchemaBehind, naming both versions) and nothing is written.
func TestReadOnlyOption(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := newDatabase(t)
	_, err := pgstore.Open(ctx, dsn, pgstore.ReadOnly())
	if !errors.Is(err, pgstore.ErrSchemaBehind) || !strings.Contains(err.Error(), "version 0") || !strings.Contains(err.Error(), fmt.Sprintf("version %d", pgstore.LatestVersion)) {
		t.Fatalf("Open(ReadOnly) on a new database: %v, want ErrSchemaBehind naming versions 0 and %d", err, pgstore.LatestVersion)
	}
	var tables int
	if err := connect(t, dsn).QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE tablename LIKE 'transcript_%'`).Scan(&tables); err != nil || tables != 0 {
		t.Fatalf("after Open(ReadOnly), %d transcript tables (%v), want none: ReadOnly never migrates", tables, err)
	}

	rw := mustOpen(t, dsn)
	if _, err := rw.Append(ctx, "eng", transcript.Message{Author: alice, Content: "one"}); err != nil {
		t.Fatal(err)
	}
	ro, err := pgstore.Open(ctx, dsn, pgstore.ReadOnly())
	if err != nil {
		t.Fatalf("Open(ReadOnly) on a migrated database: %v", err)
	}
	defer ro.Close()
	if page := mustRead(t, ro.Log("eng"), 0, 5); len(page.Messages) != 1 {
		t.Errorf("the read-only store reads %d rows, want 1", len(page.Messages))
	}
	_, err = ro.Append(ctx, "eng", transcript.Message{Author: alice, Content: "two"})
	if !errors.Is(err, pgstore.ErrReadOnly) || !strings.Contains(err.Error(), "ReadOnly") {
		t.Errorf("Append on a ReadOnly store: %v, want ErrReadOnly saying why", err)
	}
	if page := mustRead(t, rw.Log("eng"), 0, 5); len(page.Messages) != 1 {
		t.Errorf("the database holds %d rows after a refused append, want 1", len(page.Messages))
	}
}

// TestReadOnlyStandbyBehindThePackage opens a standby whose database is at an older
// schema than this package's (its primary was migrated by an older version): the error
// names both versions, and says what to do.
func TestReadOnlyStandbyBehindThePackage(t *testing.T) {
	t.Parallel()
	dsn := newReplicatedDatabase(t)
	pool := connect(t, dsn)
	if err := pgstore.MigrateTo(t.Context(), pool, 3); err != nil {
		t.Fatal(err)
	}
	standby := standbyOf(t, dsn)
	caughtUp(t, dsn, standby)
	_, err := pgstore.Open(t.Context(), standby)
	want := []string{"version 3", fmt.Sprintf("version %d", pgstore.LatestVersion), "primary"}
	if !errors.Is(err, pgstore.ErrSchemaBehind) {
		t.Fatalf("Open on a standby at version 3: %v, want ErrSchemaBehind", err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("Open on a standby at version 3: %q does not say %q", err, w)
		}
	}
}

// TestStandbysChecked gives WithStandbys servers that are no standby of the primary's
// database: the primary itself (not in recovery, given with a password) and the standby's
// copy of another database. Each is refused at Open, naming the server and never a
// password. A standby that cannot be reached is no error: the Store reads elsewhere
// (TestStandbyLagAndFaults/StandbyDownAtOpen shows it read from once it answers).
func TestStandbysChecked(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := newReplicatedDatabase(t)
	other := standbyOf(t, newReplicatedDatabase(t))
	withPassword := strings.Replace(dsn, "postgres://postgres@", "postgres://postgres:hunter2@", 1)
	if withPassword == dsn {
		t.Fatalf("no user in %s to give a password to", dsn)
	}
	for _, c := range []struct {
		name, standby, want string
	}{
		{"the primary", withPassword, "not in recovery"},
		{"another database", other, "not a copy of the primary's database"},
	} {
		st, err := pgstore.Open(ctx, dsn, pgstore.WithStandbys(c.standby))
		if err == nil {
			st.Close()
			t.Errorf("%s as a standby: Open succeeded", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s as a standby: %q, want it to say %q, and never the password", c.name, err, c.want)
		}
	}
	// A standby that refuses the connection (here: no such database) fails Open through pgx's
	// own error, which names no password either.
	missing := strings.Replace(pgtest.WithDatabase(t, pgtest.StandbyServerDSN(t, "pgstore"), "no_such_database"),
		"postgres://postgres@", "postgres://postgres:hunter2@", 1)
	if st, err := pgstore.Open(ctx, dsn, pgstore.WithStandbys(missing), pgstore.WithStandbyOpenWait(100*time.Millisecond)); err == nil {
		st.Close()
		t.Error("a standby without the database: Open succeeded")
	} else if !strings.Contains(err.Error(), "no_such_database") || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("a standby without the database: %q, want it to name the database, and never the password", err)
	}

	var reports []error
	st, err := pgstore.Open(ctx, dsn, pgstore.WithStandbys("postgres://u:hunter2@/db?host=/nonexistent&connect_timeout=1"),
		pgstore.WithStandbyReport(func(err error) { reports = append(reports, err) }))
	if err != nil {
		t.Fatalf("Open with a standby that cannot be reached: %v, want a Store that reads from the primary", err)
	}
	defer st.Close()
	if len(reports) != 1 || !strings.Contains(reports[0].Error(), "/nonexistent") || strings.Contains(reports[0].Error(), "hunter2") {
		t.Errorf("Open reported %q, want one report naming the standby that cannot be reached, and never its password", reports)
	}
	if _, err := st.Append(ctx, "eng", transcript.Message{Author: alice, Content: "hi"}); err != nil {
		t.Fatal(err)
	}
	if rows := readDesk(t, st, "eng"); len(rows) != 1 {
		t.Errorf("a read with the standby unreachable gave %d rows, want 1", len(rows))
	}
	if served, primary := pgstore.StandbyReads(st); served[0] != 0 || primary == 0 {
		t.Errorf("reads answered: %d by the unreachable standby, %d by the primary; want none and some", served[0], primary)
	}
	if _, err := pgstore.Open(ctx, dsn, pgstore.WithStandbyWait(-time.Second)); err == nil {
		t.Error("WithStandbyWait(-1s): no error")
	}
}

// TestStandbyCheckedOnceReachable: a server given as a standby that is down at Open is
// checked as Open would have once it answers; this one is no standby (a primary of its
// own), so it is refused then, and no read is ever taken from it.
func TestStandbyCheckedOnceReachable(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := newDatabase(t)
	notStandby := pgtest.Own(t, "pgstore")
	if err := notStandby.Stop(); err != nil {
		t.Fatal(err)
	}
	noDatabase := pgtest.WithDatabase(t, notStandby.DSN, "no_such_database") // the same server, as a second standby
	reports := make(chan error, 8)
	st, err := pgstore.Open(ctx, dsn, pgstore.WithStandbys(notStandby.DSN, noDatabase), pgstore.WithStandbyReport(func(err error) { reports <- err }))
	if err != nil {
		t.Fatalf("Open with standbys that are down: %v", err)
	}
	for range 2 {
		if err := <-reports; !errors.Is(err, syscall.ENOENT) && !strings.Contains(err.Error(), "no such file") {
			t.Errorf("Open reported %v, want the standby's socket missing", err)
		}
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Append(ctx, "eng", transcript.Message{Author: alice, Content: "hi"}); err != nil {
		t.Fatal(err)
	}
	if err := notStandby.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !pgstore.StandbyRefused(st, 0) {
		if time.Now().After(deadline) {
			t.Fatal("30 s after the server given as a standby started, it is not refused")
		}
		if rows := readDesk(t, st, "eng"); len(rows) != 1 {
			t.Fatalf("a read gave %d rows, want 1", len(rows))
		}
		time.Sleep(5 * time.Millisecond)
	}
	if served, _ := pgstore.StandbyReads(st); served[0] != 0 {
		t.Errorf("the server that is no standby answered %d reads", served[0])
	}
	// The second standby's check fails as Open would have (no such database): reported once,
	// not refused, and never read from.
	for deadline := time.Now().Add(30 * time.Second); len(reports) < 2; {
		if time.Now().After(deadline) {
			t.Fatalf("30 s after the server started, %d reports of its two standbys, want 2", len(reports))
		}
		readDesk(t, st, "eng")
		time.Sleep(5 * time.Millisecond)
	}
	var refused, missing int
	for range 2 {
		switch err := <-reports; {
		case strings.Contains(err.Error(), "not in recovery") && strings.Contains(err.Error(), "never read from"):
			refused++
		case strings.Contains(err.Error(), "no_such_database") && strings.Contains(err.Error(), "check it again later"):
			missing++
		default:
			t.Errorf("unexpected report: %v", err)
		}
	}
	if refused != 1 || missing != 1 {
		t.Errorf("reports: %d refusals, %d missing databases; want one of each", refused, missing)
	}
	if pgstore.StandbyRefused(st, 1) {
		t.Error("the standby without its database is refused for good, want it checked again later")
	}
	if served, _ := pgstore.StandbyReads(st); served[1] != 0 {
		t.Errorf("the standby without its database answered %d reads", served[1])
	}
	time.Sleep(300 * time.Millisecond) // more checks of it, which are not reported again
	for range 5 {
		readDesk(t, st, "eng")
	}
	if len(reports) != 0 {
		t.Errorf("%d more reports, want none: %v", len(reports), <-reports)
	}
}
