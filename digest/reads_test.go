package digest_test

import (
	"context"
	"sync"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/internal/benchdesk"
	"github.com/sharedesk/transcript/memlog"
)

// countingLog is a memlog.Log that counts the reads of its rows, and the rows read at or
// below a mark.
type countingLog struct {
	*memlog.Log
	mu                 sync.Mutex
	mark               transcript.Sequence
	reads, rows, below int
}

func (l *countingLog) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	p, err := l.Log.ReadBefore(ctx, before, limit)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reads++
	l.rows += len(p.Messages)
	for _, m := range p.Messages {
		if m.Seq <= l.mark {
			l.below++
		}
	}
	return p, err
}

// reset starts the counts again, rows at or below mark counted apart.
func (l *countingLog) reset(mark transcript.Sequence) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.mark, l.reads, l.rows, l.below = mark, 0, 0, 0
}

// benchDesk returns a log of n rows of benchdesk's busy channel.
func benchDesk(tb testing.TB, n int) *countingLog {
	tb.Helper()
	msgs := benchdesk.NewMessages(n)
	for i := range msgs {
		msgs[i].Seq = transcript.Sequence(i + 1)
	}
	log, err := memlog.From(msgs)
	if err != nil {
		tb.Fatal(err)
	}
	return &countingLog{Log: log}
}

// foldAll folds the channel of log until the policy says no more, and returns how many
// generations it stored.
func foldAll(tb testing.TB, log digest.Store) int {
	tb.Helper()
	n := 0
	for {
		_, stored, err := digest.Fold(context.Background(), log, digest.Extractive{}, digest.Policy{}, transcript.Conversation{Desk: "bench"})
		if err != nil {
			tb.Fatal(err)
		}
		if !stored {
			return n
		}
		n++
	}
}

// rootsDesk returns a log of n roots of benchdesk's contents.
func rootsDesk(tb testing.TB, n int) *countingLog {
	tb.Helper()
	msgs := benchdesk.NewMessages(n)
	for i := range msgs {
		msgs[i].Seq, msgs[i].Parent = transcript.Sequence(i+1), 0
	}
	log, err := memlog.From(msgs)
	if err != nil {
		tb.Fatal(err)
	}
	return &countingLog{Log: log}
}

// foldAfter50 folds log, then appends 50 rows of benchdesk's stream as it goes on (roots only
// with roots), and returns the counts of one fold then, rows at or below the held digest
// apart, and the rows above it.
func foldAfter50(t *testing.T, log *countingLog, roots bool) (above int) {
	t.Helper()
	ctx := context.Background()
	n := log.Len()
	// Folding from nothing is the benchmark's; here a first generation through all but the
	// newest 2,000 rows stands for it, and Fold goes on from there.
	start := transcript.Digest{Conversation: transcript.Conversation{Desk: "bench"}, Through: transcript.Sequence(n - 2000), Rows: n - 2000, Generation: 1, Digester: "test", Text: "the older history"}
	read, err := log.DigestRead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := log.PutDigest(ctx, start, read); err != nil {
		t.Fatal(err)
	}
	foldAll(t, log)
	for _, m := range benchdesk.NewMessages(n + 50)[n:] {
		if roots {
			m.Parent = 0
		}
		if _, err := log.Append(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	h, _, _ := log.Digest(ctx, transcript.Conversation{Desk: "bench"}, 0)
	log.reset(h.Through)
	if _, stored, err := digest.Fold(ctx, log, digest.Extractive{}, digest.Policy{}, transcript.Conversation{Desk: "bench"}); err != nil || !stored {
		t.Fatalf("%d rows: the fold after 50 new rows: %v, %v; want a new generation", n, stored, err)
	}
	return int(log.Head() - h.Through)
}

// TestFoldReadsAboveHeld: once a desk is folded, a fold after 50 new rows reads each row
// above the held digest once, and below it only what the channel's first replies need: on a
// desk of roots, the page that crosses the digest, the same however large the desk; on a
// busy channel, down to the roots of the new replies, within transcript.ScanLimit.
func TestFoldReadsAboveHeld(t *testing.T) {
	for _, n := range []int{10_000, 100_000} {
		roots := rootsDesk(t, n)
		above := foldAfter50(t, roots, true)
		t.Logf("%d roots: the fold read %d rows in %d reads, %d above the held digest (of %d), %d at or below it",
			n, roots.rows, roots.reads, roots.rows-roots.below, above, roots.below)
		// The reads double (the desk's head comes from DigestRead, which reads no row): the
		// one that crosses the digest reads fewer rows below it than the reads before it
		// read above.
		if roots.rows-roots.below != above || roots.below > above {
			t.Errorf("%d roots: the fold read %d rows above the held digest (of %d) and %d at or below it; want each above once, fewer below",
				n, roots.rows-roots.below, above, roots.below)
		}
		busy := benchDesk(t, n)
		above = foldAfter50(t, busy, false)
		t.Logf("%d rows of a busy channel: the fold read %d rows in %d reads, %d above the held digest (of %d), %d at or below it",
			n, busy.rows, busy.reads, busy.rows-busy.below, above, busy.below)
		if busy.rows-busy.below != above || busy.below > transcript.ScanLimit {
			t.Errorf("%d rows of a busy channel: the fold read %d rows above the held digest (of %d) and %d at or below it; want each above once, at most ScanLimit below",
				n, busy.rows-busy.below, above, busy.below)
		}
	}
}
