package pgstore_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/pgstore"
	"github.com/sharedesk/transcript/sharing"
)

// reader is an agent following a desk's channel with sharing.Prepare, committing each delta:
// the reader a watermark must never fail.
type reader struct {
	log      transcript.Log
	state    sharing.State
	accepted []transcript.Sequence
}

func newReader(log transcript.Log, desk string) *reader {
	return &reader{log: log, state: sharing.Initialized(transcript.Conversation{Desk: desk}, 0)}
}

// catchUp prepares the delta up to the newest row, accepts it and commits the state.
func (r *reader) catchUp(t *testing.T) []transcript.Sequence {
	t.Helper()
	c := r.state.Conversation
	plan, err := sharing.Prepare(t.Context(), r.log, sharing.Query{Desired: c, Current: c, State: r.state})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Reinitialize != 0 {
		t.Fatalf("Prepare: reinitialize (%v)", plan.Reinitialize)
	}
	var seqs []transcript.Sequence
	for _, m := range plan.Delta.Messages {
		seqs = append(seqs, m.Seq)
	}
	r.accepted = append(r.accepted, seqs...)
	r.state = plan.Delta.Next
	return seqs
}

// TestCommitOrder holds one append's transaction open after its Seq is assigned, starts a
// second append to the same desk, and shows that the second waits for the first's desk lock,
// that no reader sees either row until the first commits, and that a reader advancing a
// watermark with sharing.Prepare accepts both rows. It does so for a new desk (the second
// append waits on the desk row the first inserted) and for an existing one (it waits on the
// row lock of the head update). TestBigserialSkipsARow makes the same steps on a plain
// BIGSERIAL table, where the reader loses a row.
func TestCommitOrder(t *testing.T) {
	t.Parallel()
	st, dsn := openStore(t)
	ctx := t.Context()
	monitor := connect(t, dsn)
	r := newReader(st.Log("eng"), "eng")
	var base transcript.Sequence
	for _, round := range []string{"new desk", "existing desk"} {
		held := holdNextAppend(t, st)
		first := appendAsync(ctx, st, "eng", "first")
		rows := <-held.reached // the first append's Seq is assigned; it has not committed
		if rows[0].Seq != base+1 {
			t.Fatalf("%s: the held append got Seq %d, want %d", round, rows[0].Seq, base+1)
		}
		second := appendAsync(ctx, st, "eng", "second")
		waitForLockWaiters(t, monitor, 1)
		select {
		case res := <-second:
			t.Fatalf("%s: the second append returned (%+v, %v) while the first held the desk", round, res.m, res.err)
		default:
		}
		if got := r.catchUp(t); len(got) != 0 {
			t.Fatalf("%s: a reader saw %v before the first append committed", round, got)
		}
		if page := mustRead(t, st.Log("eng"), 0, 10); len(page.Messages) != int(base) {
			t.Fatalf("%s: ReadBefore saw %d rows before the first append committed, want %d", round, len(page.Messages), base)
		}

		close(held.release)
		for i, ch := range []<-chan appendResult{first, second} {
			res := <-ch
			if want := base + transcript.Sequence(i) + 1; res.err != nil || res.m.Seq != want {
				t.Fatalf("%s: append %d returned (Seq %d, %v), want Seq %d", round, i+1, res.m.Seq, res.err, want)
			}
		}
		if got, want := r.catchUp(t), []transcript.Sequence{base + 1, base + 2}; !slices.Equal(got, want) {
			t.Errorf("%s: after both commits the reader accepted %v, want %v", round, got, want)
		}
		base += 2
	}
	pgstore.SetBeforeCommit(st, nil)
	if want := []transcript.Sequence{1, 2, 3, 4}; !slices.Equal(r.accepted, want) {
		t.Errorf("the reader accepted %v, want every row once: %v", r.accepted, want)
	}
}

// TestBigserialSkipsARow makes TestCommitOrder's steps on a plain BIGSERIAL table, as a
// store numbering rows with a sequence would: the first insert takes seq 1 and stays
// uncommitted, the second takes seq 2 and commits without waiting, a reader sees row 2 and
// moves its watermark to 2, then row 1 commits below the watermark and the reader never
// accepts it.
func TestBigserialSkipsARow(t *testing.T) {
	t.Parallel()
	dsn := newDatabase(t)
	pool := connect(t, dsn)
	ctx := t.Context()
	if _, err := pool.Exec(ctx, `CREATE TABLE serial_messages (
		seq     bigserial PRIMARY KEY,
		parent  bigint NOT NULL DEFAULT 0,
		content text   NOT NULL
	)`); err != nil {
		t.Fatal(err)
	}
	r := newReader(serialLog{pool}, "eng")

	first, err := pool.Begin(ctx) // held open, as the hook holds the store's append
	if err != nil {
		t.Fatal(err)
	}
	defer first.Rollback(ctx)
	var seq1 int64
	if err := first.QueryRow(ctx, `INSERT INTO serial_messages (content) VALUES ('first') RETURNING seq`).Scan(&seq1); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var seq2 int64 // no lock to wait for: this returns at once
	if err := pool.QueryRow(short, `INSERT INTO serial_messages (content) VALUES ('second') RETURNING seq`).Scan(&seq2); err != nil {
		t.Fatalf("the second insert, while the first is uncommitted: %v", err)
	}
	if seq1 != 1 || seq2 != 2 {
		t.Fatalf("seqs %d, %d; want 1, 2", seq1, seq2)
	}
	if got := r.catchUp(t); !slices.Equal(got, []transcript.Sequence{2}) {
		t.Fatalf("before the first commit the reader accepted %v, want [2] (row 2 committed, row 1 not)", got)
	}
	if r.state.Watermark != 2 {
		t.Fatalf("the reader's watermark is %d, want 2", r.state.Watermark)
	}
	if err := first.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if got := r.catchUp(t); len(got) != 0 {
		t.Fatalf("after the first commit the reader accepted %v: the watermark should hide row 1", got)
	}
	page := mustRead(t, serialLog{pool}, 0, 10)
	if len(page.Messages) != 2 {
		t.Fatalf("the table holds %d rows, want 2", len(page.Messages))
	}
	if want := []transcript.Sequence{2}; !slices.Equal(r.accepted, want) {
		t.Fatalf("the reader accepted %v, want %v", r.accepted, want)
	}
	t.Logf("BIGSERIAL: the table holds rows 1 and 2, the reader accepted only %v: row 1 committed below its watermark and is skipped for good", r.accepted)
}

// TestDesksDoNotWait holds an append to one desk inside its transaction and shows that an
// append to another desk commits meanwhile, and is read, without waiting.
func TestDesksDoNotWait(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	ctx := t.Context()
	for _, d := range []string{"eng", "ops"} { // both desks exist: their rows are distinct locks
		if _, err := st.Append(ctx, d, transcript.Message{Author: alice, Content: "hello " + d}); err != nil {
			t.Fatal(err)
		}
	}
	held := holdNextAppend(t, st)
	first := appendAsync(ctx, st, "eng", "held")
	<-held.reached
	short, cancel := context.WithTimeout(ctx, 30*time.Second) // fails the test rather than hang it
	defer cancel()
	for i := range 3 {
		m, err := st.Append(short, "ops", transcript.Message{Author: bot, Content: fmt.Sprint("while eng is held ", i)})
		if err != nil {
			t.Fatalf("Append to ops while an append to eng is held: %v", err)
		}
		if m.Seq != transcript.Sequence(i+2) {
			t.Errorf("ops row Seq %d, want %d", m.Seq, i+2)
		}
	}
	if page := mustRead(t, st.Log("ops"), 0, 10); len(page.Messages) != 4 {
		t.Errorf("ops holds %d rows while eng's append is held, want 4", len(page.Messages))
	}
	// And a new desk, whose row is inserted rather than updated, does not wait either.
	if _, err := st.Append(short, "new", transcript.Message{Author: bot, Content: "new desk"}); err != nil {
		t.Fatalf("Append to a new desk while an append to eng is held: %v", err)
	}
	close(held.release)
	if res := <-first; res.err != nil || res.m.Seq != 2 {
		t.Errorf("the held append returned (Seq %d, %v), want Seq 2", res.m.Seq, res.err)
	}
}

type appendResult struct {
	m   transcript.Message
	err error
}

// appendAsync appends a message to desk in a new goroutine and delivers the result.
func appendAsync(ctx context.Context, st *pgstore.Store, desk, content string) <-chan appendResult {
	ch := make(chan appendResult, 1)
	go func() {
		m, err := st.Append(ctx, desk, transcript.Message{Author: alice, Content: content})
		ch <- appendResult{m, err}
	}()
	return ch
}

// waitForLockWaiters waits until n sessions of the database wait for a lock on a desk row
// (the second append, blocked by the first's lock).
func waitForLockWaiters(t *testing.T, pool *pgxpool.Pool, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var waiting int
		err := pool.QueryRow(t.Context(), `
			SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%transcript_desks%'`).Scan(&waiting)
		if err != nil {
			t.Fatal(err)
		}
		if waiting == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions wait for a desk lock, want %d", waiting, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func mustRead(t *testing.T, log transcript.Log, before transcript.Sequence, limit int) transcript.Page {
	t.Helper()
	page, err := log.ReadBefore(t.Context(), before, limit)
	if err != nil {
		t.Fatal(err)
	}
	return page
}

// serialLog is a transcript.Log over serial_messages, the BIGSERIAL table of
// TestBigserialSkipsARow: the port's read, numbered by a plain sequence.
type serialLog struct{ pool *pgxpool.Pool }

func (l serialLog) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	bound := int64(1<<63 - 1)
	if before != 0 {
		bound = int64(before)
	}
	rows, err := l.pool.Query(ctx, `SELECT seq, parent, content FROM serial_messages WHERE seq < $1 ORDER BY seq DESC LIMIT $2`, bound, limit+1)
	if err != nil {
		return transcript.Page{}, err
	}
	defer rows.Close()
	var page transcript.Page
	for rows.Next() {
		var seq, parent int64
		m := transcript.Message{Author: alice}
		if err := rows.Scan(&seq, &parent, &m.Content); err != nil {
			return transcript.Page{}, err
		}
		m.Seq, m.Parent = transcript.Sequence(seq), transcript.Sequence(parent)
		page.Messages = append(page.Messages, m)
	}
	if len(page.Messages) > limit {
		page.Messages = page.Messages[:limit]
		page.Next = page.Messages[limit-1].Seq
	}
	return page, rows.Err()
}
