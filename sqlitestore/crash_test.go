package sqlitestore

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
)

// The child process of TestCrashMidBatch finds its database in crashPathEnv and the size of
// its batch in crashRowsEnv.
const (
	crashPathEnv = "SQLITESTORE_CRASH_DB"
	crashRowsEnv = "SQLITESTORE_CRASH_ROWS"
	crashDesk    = "crash"
	crashStarted = "sqlitestore-crash-child: started"
	crashDone    = "sqlitestore-crash-child: done"
)

// crashRows is the size of the batch the child is killed in; smaller under the race
// detector, which slows SQLite's translated C many times over.
func crashRows() int {
	if raceEnabled {
		return 10_000
	}
	return 200_000
}

// crashBatch returns the batch the child appends: roots and replies, some to the batch's
// own earlier messages (BatchParent), some to rows before it.
func crashBatch(n int, head transcript.Sequence) []transcript.Message {
	msgs := make([]transcript.Message, n)
	for i := range msgs {
		m := transcript.Message{Author: transcript.Agent("crash", "Crash"), Content: fmt.Sprintf("batch row %d %s", i, strings.Repeat("x", i%200))}
		switch {
		case i%3 == 1:
			m.Parent = transcript.BatchParent(i - 1)
		case i%7 == 2 && head > 0:
			m.Parent = head
		}
		msgs[i] = m
	}
	return msgs
}

// TestCrashHelperProcess is the child of TestCrashMidBatch: it opens the database, says it
// is starting, and appends one large batch. It does nothing in a normal test run.
func TestCrashHelperProcess(t *testing.T) {
	path := os.Getenv(crashPathEnv)
	if path == "" {
		t.Skip("the child process of TestCrashMidBatch")
	}
	n, err := strconv.Atoi(os.Getenv(crashRowsEnv))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	page, err := st.Log(crashDesk).ReadBefore(ctx, 0, 1)
	if err != nil || len(page.Messages) == 0 {
		t.Fatal("the desk has no rows", err)
	}
	msgs := crashBatch(n, page.Messages[0].Seq)
	fmt.Println(crashStarted)
	began := time.Now()
	if err := st.AppendBatch(ctx, crashDesk, msgs); err != nil {
		t.Fatal(err)
	}
	fmt.Println(crashDone, time.Since(began).Milliseconds())
	st.Close()
}

// TestCrashMidBatch kills (SIGKILL) a child process in the middle of a large AppendBatch,
// a few times over, at a random moment after it said it was starting the batch. After each
// kill the store opens, the batch is entirely present or entirely absent, the desk's rows
// are numbered 1 to its head, and PRAGMA integrity_check says "ok".
func TestCrashMidBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("kills child processes mid-batch; skipped in -short mode")
	}
	ctx := t.Context()
	// Round 0 lets the child finish, to time the batch; the others kill it at a random
	// moment within that time, the last one around the commit, so that the batch may also
	// just make it. Each round has a file of its own, holding 10 rows before the batch.
	n := crashRows()
	const head = 10
	var took time.Duration
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0))
	const rounds = 4
	killed := 0
	for round := range rounds {
		path := filepath.Join(t.TempDir(), "crash.db")
		st, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.AppendBatch(ctx, crashDesk, crashBatch(head, 0)); err != nil {
			t.Fatal(err)
		}
		st.Close()
		delay := time.Duration(-1) // no kill
		switch {
		case round == rounds-1: // around the commit: 80% to 120% of the batch's time
			delay = took*8/10 + time.Duration(rng.Int64N(int64(took)*4/10))
		case round > 0: // in the middle: up to 80% of the batch's time
			delay = time.Duration(rng.Int64N(int64(took) * 8 / 10))
		}
		finished, d := runCrashChild(t, path, n, delay)
		switch {
		case round == 0 && !finished:
			t.Fatal("the child did not finish its batch")
		case round == 0:
			took = max(d, 10*time.Millisecond)
			t.Logf("round 0: the child appended its batch of %d rows in %v", n, took)
		case finished:
			t.Logf("round %d: the child finished its batch before the kill at %v", round, delay)
		default:
			killed++
		}
		st, err = Open(ctx, path)
		if err != nil {
			t.Fatalf("round %d: Open after the kill: %v", round, err)
		}
		got := checkCrashedStore(t, st, head, n)
		st.Close()
		if finished && got != head+transcript.Sequence(n) {
			t.Fatalf("round %d: the child finished its batch, but the desk's head is %d, want %d", round, got, head+transcript.Sequence(n))
		}
		if !finished {
			t.Logf("round %d: killed %v after the batch started: batch %s", round, delay,
				map[bool]string{true: "entirely present", false: "entirely absent"}[got != head])
		}
	}
	if killed == 0 {
		t.Errorf("the child finished its batch in all %d rounds: no kill landed mid-batch", rounds-1)
	}
}

// runCrashChild starts the child on path, kills it delay after it said it started its
// batch (a negative delay: lets it finish), and reports whether it had finished the batch
// and how long the batch took.
func runCrashChild(t *testing.T, path string, n int, delay time.Duration) (bool, time.Duration) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashPathEnv+"="+path, crashRowsEnv+"="+strconv.Itoa(n))
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	started := false
	for !started && lines.Scan() {
		started = lines.Text() == crashStarted
	}
	if !started {
		cmd.Wait()
		t.Fatalf("the child ended without starting its batch")
	}
	if delay >= 0 {
		time.Sleep(delay)
		if err := cmd.Process.Kill(); err != nil { // SIGKILL
			t.Fatal(err)
		}
	}
	finished, took := false, time.Duration(0)
	for lines.Scan() {
		if ms, ok := strings.CutPrefix(lines.Text(), crashDone+" "); ok {
			finished = true
			n, _ := strconv.Atoi(ms)
			took = time.Duration(n) * time.Millisecond
		}
	}
	cmd.Wait() // "signal: killed", or success when it finished first
	return finished, took
}

// checkCrashedStore checks a store after a kill: its integrity, and that the desk holds the
// rows 1 to before, or 1 to before+n with the whole batch intact. It returns the head.
func checkCrashedStore(t *testing.T, st *Store, before transcript.Sequence, n int) transcript.Sequence {
	t.Helper()
	ctx := t.Context()
	var result string
	if err := st.readers.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&result); err != nil || result != "ok" {
		t.Fatalf("PRAGMA integrity_check = %q, %v; want ok", result, err)
	}
	var count, maxSeq int64
	if err := st.readers.QueryRowContext(ctx, `SELECT count(*), ifnull(max(seq), 0) FROM messages
WHERE desk = (SELECT id FROM desks WHERE name = ?)`, crashDesk).Scan(&count, &maxSeq); err != nil {
		t.Fatal(err)
	}
	head := transcript.Sequence(maxSeq)
	if count != maxSeq {
		t.Fatalf("the desk holds %d rows up to seq %d: not numbered 1 to its head", count, maxSeq)
	}
	switch head {
	case before:
	case before + transcript.Sequence(n):
		want := crashBatch(n, before)
		page, err := st.Log(crashDesk).ReadBefore(ctx, 0, 3)
		if err != nil {
			t.Fatal(err)
		}
		last := page.Messages[0]
		if last.Content != want[n-1].Content {
			t.Errorf("the batch's last row holds %q, want %q", last.Content, want[n-1].Content)
		}
	default:
		t.Fatalf("the desk's head is %d after the kill: want %d (batch absent) or %d (batch present)", head, before, before+transcript.Sequence(n))
	}
	return head
}
