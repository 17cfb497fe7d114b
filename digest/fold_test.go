package digest_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/memlog"
)

var (
	ana = transcript.Person("ana", "Ana")
	bo  = transcript.Agent("bo", "Bo")
)

// deskOf appends n roots to a new log, row i's content "row i".
func deskOf(t testing.TB, n int) *memlog.Log {
	t.Helper()
	log := memlog.New()
	appendRoots(t, log, n)
	return log
}

// appendRoots appends n roots to log, each content "row SEQ".
func appendRoots(t testing.TB, log *memlog.Log, n int) {
	t.Helper()
	for range n {
		mustAppend(t, log, transcript.Message{Author: ana, Content: fmt.Sprintf("row %d", log.Head()+1)})
	}
}

func mustAppend(t testing.TB, log *memlog.Log, m transcript.Message) transcript.Message {
	t.Helper()
	stored, err := log.Append(context.Background(), m)
	if err != nil {
		t.Fatalf("append %+v: %v", m, err)
	}
	return stored
}

// recorder is a Digester that records its requests and answers each with its function's
// text, or, with none, the prior text and every message's content, one a line.
type recorder struct {
	mu       sync.Mutex
	requests []digest.Request
	answer   func(ctx context.Context, r digest.Request) (string, error)
}

func (d *recorder) Name() string { return "recorder" }

func (d *recorder) Digest(ctx context.Context, r digest.Request) (string, error) {
	d.mu.Lock()
	d.requests = append(d.requests, r)
	d.mu.Unlock()
	if d.answer != nil {
		return d.answer(ctx, r)
	}
	return listing(r), nil
}

// listing is the prior's text and every message's content, one a line.
func listing(r digest.Request) string {
	var lines []string
	if r.Prior != nil {
		lines = append(lines, r.Prior.Text)
	}
	for _, m := range r.Messages {
		lines = append(lines, m.Content)
	}
	return strings.Join(lines, "\n")
}

func held(t *testing.T, log *memlog.Log, c transcript.Conversation) (transcript.Digest, bool) {
	t.Helper()
	d, ok, err := log.Digest(context.Background(), c, 0)
	if err != nil {
		t.Fatalf("Digest: %v", err)
	}
	return d, ok
}

func seqs(msgs []transcript.Message) []transcript.Sequence {
	out := make([]transcript.Sequence, len(msgs))
	for i, m := range msgs {
		out[i] = m.Seq
	}
	return out
}

func TestFoldGenerations(t *testing.T) {
	ctx := context.Background()
	channel := transcript.Conversation{Desk: "ops"}
	log := deskOf(t, 49)
	rec := &recorder{}
	if d, stored, err := digest.Fold(ctx, log, rec, digest.Policy{}, channel); err != nil || stored || d != (transcript.Digest{}) {
		t.Fatalf("49 rows: Fold = %+v, %v, %v; want nothing folded", d, stored, err)
	}
	appendRoots(t, log, 1) // 50: KeepLive 30 + FoldAfter 20
	d, stored, err := digest.Fold(ctx, log, rec, digest.Policy{}, channel)
	if err != nil || !stored {
		t.Fatalf("50 rows: Fold = %v, %v; want a fold", stored, err)
	}
	want := transcript.Digest{Conversation: channel, Through: 20, Rows: 20, Generation: 1, Digester: "recorder", Text: d.Text}
	if d != want {
		t.Errorf("generation 1 = %+v, want %+v", d, want)
	}
	if got, _ := held(t, log, channel); got != d {
		t.Errorf("held %+v, Fold returned %+v", got, d)
	}
	if r := rec.requests[0]; r.Prior != nil || len(r.Messages) != 20 || r.Messages[0].Seq != 1 || r.Budget != 4000 {
		t.Errorf("request = prior %v, rows %v, budget %d; want no prior, rows 1 to 20, budget 4000", r.Prior, seqs(r.Messages), r.Budget)
	}
	if _, stored, err := digest.Fold(ctx, log, rec, digest.Policy{}, channel); stored || err != nil {
		t.Fatalf("again: Fold = %v, %v; want nothing (idempotent)", stored, err)
	}
	appendRoots(t, log, 19)
	if _, stored, _ := digest.Fold(ctx, log, rec, digest.Policy{}, channel); stored {
		t.Fatalf("49 rows above the digest: folded")
	}
	appendRoots(t, log, 300)
	d2, stored, err := digest.Fold(ctx, log, rec, digest.Policy{}, channel)
	if err != nil || !stored {
		t.Fatalf("369 rows: Fold = %v, %v", stored, err)
	}
	want = transcript.Digest{Conversation: channel, Through: 220, Rows: 220, Generation: 2, Digester: "recorder", Text: d2.Text}
	if d2 != want {
		t.Errorf("generation 2 = %+v, want %+v (InputLimit 200)", d2, want)
	}
	if r := rec.requests[1]; r.Prior == nil || *r.Prior != d || len(r.Messages) != 200 {
		t.Errorf("request 2: prior %v, %d rows; want generation 1, 200 rows", r.Prior, len(r.Messages))
	}
	if older, ok, _ := log.Digest(ctx, channel, 220); !ok || older != d {
		t.Errorf("Digest below 220 = %+v, %v; want generation 1 kept", older, ok)
	}
}

func TestFoldThread(t *testing.T) {
	ctx := context.Background()
	log := deskOf(t, 3)
	root := mustAppend(t, log, transcript.Message{Author: ana, Content: "the root"})
	for i := range 12 {
		mustAppend(t, log, transcript.Message{Author: bo, Parent: root.Seq, Content: fmt.Sprintf("reply %d", i)})
		mustAppend(t, log, transcript.Message{Author: ana, Content: "a root between"})
	}
	thread := transcript.Conversation{Desk: "ops", Thread: root.Seq}
	rec := &recorder{}
	d, stored, err := digest.Fold(ctx, log, rec, digest.Policy{KeepLive: 5, FoldAfter: 5}, thread)
	if err != nil || !stored {
		t.Fatalf("Fold = %v, %v", stored, err)
	}
	got := rec.requests[0].Messages
	if len(got) != 7 || got[0].Parent != root.Seq || got[6].Content != "reply 6" || d.Through != got[6].Seq || d.Rows != 7 {
		t.Errorf("folded %v (through %d, rows %d); want the thread's 7 oldest replies, never its root", seqs(got), d.Through, d.Rows)
	}
	if c, ok := held(t, log, transcript.Conversation{Desk: "ops"}); ok {
		t.Errorf("the channel holds %+v; folding a thread folds only it", c)
	}
}

func TestFoldBadInput(t *testing.T) {
	ctx := context.Background()
	log := deskOf(t, 60)
	reply := mustAppend(t, log, transcript.Message{Author: bo, Parent: 2, Content: "a reply"})
	edit := mustAppend(t, log, transcript.Message{Author: ana, Corrects: 3, Content: "row 3, fixed"})
	for _, tc := range []struct {
		name   string
		log    *memlog.Log
		policy digest.Policy
		thread transcript.Sequence
		target error
		says   string
	}{
		{"negative KeepLive", log, digest.Policy{KeepLive: -1}, 0, digest.ErrInvalidPolicy, "KeepLive is -1"},
		{"negative FoldAfter", log, digest.Policy{FoldAfter: -2}, 0, digest.ErrInvalidPolicy, "FoldAfter is -2"},
		{"negative InputLimit", log, digest.Policy{InputLimit: -3}, 0, digest.ErrInvalidPolicy, "InputLimit is -3"},
		{"negative Budget", log, digest.Policy{Budget: -4}, 0, digest.ErrInvalidPolicy, "Budget is -4"},
		{"Budget over 64 KiB", log, digest.Policy{Budget: 64<<10 + 1}, 0, digest.ErrInvalidPolicy, "Budget is 65537, above 65536 characters"},
		{"KeepLive over 100,000", log, digest.Policy{KeepLive: 100_001, FoldAfter: 1}, 0, digest.ErrInvalidPolicy, "KeepLive is 100001, above 100000 rows"},
		{"KeepLive at MaxInt", log, digest.Policy{KeepLive: math.MaxInt, FoldAfter: 1}, 0, digest.ErrInvalidPolicy, "KeepLive is"},
		{"FoldAfter at MaxInt", log, digest.Policy{KeepLive: 1, FoldAfter: math.MaxInt}, 0, digest.ErrInvalidPolicy, "FoldAfter is"},
		{"InputLimit at MaxInt", log, digest.Policy{KeepLive: 2, InputLimit: math.MaxInt}, 0, digest.ErrInvalidPolicy, "InputLimit is"},
		{"no desk", memlog.New(), digest.Policy{}, 0, digest.ErrNoConversation, `desk "ops" channel`},
		{"a reply", log, digest.Policy{}, reply.Seq, digest.ErrNoConversation, fmt.Sprintf("row %d is not a root", reply.Seq)},
		{"a correction", log, digest.Policy{}, edit.Seq, digest.ErrNoConversation, fmt.Sprintf("row %d is not a root", edit.Seq)},
		{"no row", log, digest.Policy{}, 999, digest.ErrNoConversation, "no row 999"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{}
			_, stored, err := digest.Fold(ctx, tc.log, rec, tc.policy, transcript.Conversation{Desk: "ops", Thread: tc.thread})
			if stored || !errors.Is(err, tc.target) || !strings.Contains(err.Error(), tc.says) || !strings.HasPrefix(err.Error(), "digest: ") {
				t.Errorf("Fold = %v, %v; want %v saying %q", stored, err, tc.target, tc.says)
			}
			if len(rec.requests) > 0 {
				t.Errorf("the digester was asked")
			}
			if tc.target == digest.ErrInvalidPolicy {
				if err := tc.policy.Validate(); !errors.Is(err, digest.ErrInvalidPolicy) || !strings.Contains(err.Error(), tc.says) {
					t.Errorf("Validate = %v; want %v saying %q", err, tc.target, tc.says)
				}
			}
		})
	}
	if _, stored, err := digest.Fold(ctx, log, &recorder{}, digest.Policy{Budget: 64 << 10}, transcript.Conversation{}); err != nil || !stored {
		t.Errorf("Budget 64 KiB: Fold = %v, %v; want a fold", stored, err)
	}
	// Every bound at once is a policy, whose fold is not due on a desk of 60 rows.
	most := digest.Policy{KeepLive: 100_000, FoldAfter: 100_000, InputLimit: 100_000, Budget: 64 << 10}
	if err := most.Validate(); err != nil {
		t.Errorf("Validate(%+v) = %v; want nil", most, err)
	}
	if _, stored, err := digest.Fold(ctx, log, &recorder{}, most, transcript.Conversation{}); err != nil || stored {
		t.Errorf("Fold with every bound = %v, %v; want nothing due", stored, err)
	}
}

// TestFoldRefusals: a blank text, one over the budget or not storable, a digester error and
// a digester slower than ctx all leave the held digest, and say why.
func TestFoldRefusals(t *testing.T) {
	ctx := context.Background()
	channel := transcript.Conversation{Desk: "ops"}
	policy := digest.Policy{KeepLive: 2, FoldAfter: 2, Budget: 10}
	for _, tc := range []struct {
		name    string
		answer  func(ctx context.Context, r digest.Request) (string, error)
		timeout bool
		target  error
	}{
		{"blank", func(context.Context, digest.Request) (string, error) { return " \n\t", nil }, false, digest.ErrRefused},
		{"over budget", func(context.Context, digest.Request) (string, error) { return "ééééééééééé", nil }, false, digest.ErrRefused},
		{"invalid UTF-8", func(context.Context, digest.Request) (string, error) { return "ab\xffc", nil }, false, digest.ErrRefused},
		{"NUL", func(context.Context, digest.Request) (string, error) { return "ab\x00c", nil }, false, digest.ErrRefused},
		{"error", func(context.Context, digest.Request) (string, error) { return "", errors.New("endpoint says 503") }, false, nil},
		{"timeout", func(ctx context.Context, r digest.Request) (string, error) {
			<-ctx.Done()
			return "", ctx.Err()
		}, true, context.DeadlineExceeded},
		{"answer after the deadline", func(ctx context.Context, r digest.Request) (string, error) {
			<-ctx.Done()
			return "late", nil
		}, true, context.DeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := deskOf(t, 4)
			first, stored, err := digest.Fold(ctx, log, &recorder{answer: func(context.Context, digest.Request) (string, error) { return "ééééééééé\n", nil }}, policy, channel)
			if err != nil || !stored {
				t.Fatalf("first Fold (a text of exactly the budget) = %v, %v", stored, err)
			}
			appendRoots(t, log, 4)
			fctx := ctx
			if tc.timeout {
				var cancel context.CancelFunc
				fctx, cancel = context.WithTimeout(ctx, 20*time.Millisecond)
				defer cancel()
			}
			d, stored, err := digest.Fold(fctx, log, &recorder{answer: tc.answer}, policy, channel)
			switch {
			case err == nil || stored:
				t.Fatalf("Fold = %v, %v; want a refusal", stored, err)
			case tc.target != nil && !errors.Is(err, tc.target):
				t.Errorf("Fold: %v; want %v", err, tc.target)
			case !strings.Contains(err.Error(), `desk "ops" channel: digester recorder`):
				t.Errorf("Fold: %q names neither the conversation nor the digester", err)
			}
			want := first // read again after the refusal
			if tc.timeout {
				want = transcript.Digest{} // fctx ended: Fold reads nothing more
			}
			if h, _ := held(t, log, channel); d != want || h != first {
				t.Errorf("after the refusal Fold returned %+v and the log holds %+v; want %+v returned and generation 1 kept, %+v", d, h, want, first)
			}
		})
	}
}

// TestFoldFailureReadsAgain: a fold that fails once a redaction has deleted the digest it
// read first (the redaction committed while its digester ran) returns what the log holds
// then, never the digest it read: whether the digester fails, its text is refused or the
// log refuses the new generation.
func TestFoldFailureReadsAgain(t *testing.T) {
	ctx := context.Background()
	channel := transcript.Conversation{Desk: "ops"}
	policy := digest.Policy{KeepLive: 2, FoldAfter: 2}
	for _, tc := range []struct {
		name   string
		text   string
		err    error
		target error
	}{
		{"digester error", "", errors.New("endpoint says 503"), nil},
		{"text refused", " ", nil, digest.ErrRefused},
		{"superseded", "a digest of rows 3 to 6", nil, digest.ErrSuperseded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := deskOf(t, 4)
			if first, stored, err := digest.Fold(ctx, log, &recorder{}, policy, channel); err != nil || !stored || !strings.Contains(first.Text, "row 1") {
				t.Fatalf("first Fold = %+v, %v, %v; want rows 1 and 2 folded", first, stored, err)
			}
			appendRoots(t, log, 4)
			redact := &recorder{answer: func(context.Context, digest.Request) (string, error) {
				mustAppend(t, log, transcript.Message{Author: ana, Corrects: 1, Redacted: true})
				return tc.text, tc.err
			}}
			d, stored, err := digest.Fold(ctx, log, redact, policy, channel)
			switch {
			case err == nil || stored:
				t.Fatalf("Fold = %v, %v; want a failure", stored, err)
			case tc.target != nil && !errors.Is(err, tc.target):
				t.Errorf("Fold: %v; want %v", err, tc.target)
			}
			if h, ok := held(t, log, channel); ok || d != (transcript.Digest{}) {
				t.Errorf("after the redaction Fold returned %+v and the log holds %+v; want none of either (the redaction deleted generation 1)", d, h)
			}
		})
	}
}

// TestFoldRedacted: a redacted row keeps its place, counts toward KeepLive and FoldAfter,
// is never sent and not counted in Rows; redacted rows ahead of the first with words do not
// count toward InputLimit, and a fold whose rows are all redacted waits.
func TestFoldRedacted(t *testing.T) {
	ctx := context.Background()
	channel := transcript.Conversation{}
	log := deskOf(t, 6)
	for _, seq := range []transcript.Sequence{1, 2, 3, 5} {
		mustAppend(t, log, transcript.Message{Author: ana, Corrects: seq, Redacted: true})
	}
	policy := digest.Policy{KeepLive: 2, FoldAfter: 2, InputLimit: 1}
	rec := &recorder{}
	d, stored, err := digest.Fold(ctx, log, rec, policy, channel)
	if err != nil || !stored {
		t.Fatalf("Fold = %v, %v", stored, err)
	}
	if got := seqs(rec.requests[0].Messages); len(got) != 1 || got[0] != 4 || d.Through != 4 || d.Rows != 1 {
		t.Errorf("sent %v, through %d, rows %d; want row 4 alone, through 4, 1 row", got, d.Through, d.Rows)
	}
	log = deskOf(t, 4)
	for _, seq := range []transcript.Sequence{1, 2} {
		mustAppend(t, log, transcript.Message{Author: ana, Corrects: seq, Redacted: true})
	}
	if _, stored, err := digest.Fold(ctx, log, rec, policy, channel); stored || err != nil {
		t.Errorf("every row due redacted: Fold = %v, %v; want it to wait", stored, err)
	}
}

// TestFoldConcurrent: two folds of one conversation at once store one generation; the other
// learns it was superseded.
func TestFoldConcurrent(t *testing.T) {
	ctx := context.Background()
	log := deskOf(t, 60)
	var arrived sync.WaitGroup
	arrived.Add(2)
	rec := &recorder{answer: func(_ context.Context, r digest.Request) (string, error) {
		arrived.Done()
		arrived.Wait() // both folds have read the rows and the held digest
		return listing(r), nil
	}}
	type result struct {
		stored bool
		err    error
	}
	results := make(chan result, 2)
	for range 2 {
		go func() {
			_, stored, err := digest.Fold(ctx, log, rec, digest.Policy{}, transcript.Conversation{})
			results <- result{stored, err}
		}()
	}
	a, b := <-results, <-results
	if a.stored == b.stored {
		t.Fatalf("stored: %v and %v; want exactly one", a, b)
	}
	if loser := map[bool]result{true: b, false: a}[a.stored]; !errors.Is(loser.err, digest.ErrSuperseded) {
		t.Errorf("the other fold: %v; want ErrSuperseded", loser.err)
	}
	if d, _ := held(t, log, transcript.Conversation{}); d.Generation != 1 {
		t.Errorf("held generation %d, want 1", d.Generation)
	}
	if older, ok, _ := log.Digest(ctx, transcript.Conversation{}, 30); ok {
		t.Errorf("a second digest below the first: %+v", older)
	}
}

// TestFoldCorrections: an edit of a folded row deletes the digests covering it, and the
// next fold starts again below it with the new words; a correction made while a fold runs
// makes its digest superseded, so no erased word is stored.
func TestFoldCorrections(t *testing.T) {
	ctx := context.Background()
	policy := digest.Policy{KeepLive: 2, FoldAfter: 2}
	channel := transcript.Conversation{}
	log := deskOf(t, 4)
	rec := &recorder{}
	first, _, _ := digest.Fold(ctx, log, rec, policy, channel)
	appendRoots(t, log, 4)
	second, _, _ := digest.Fold(ctx, log, rec, policy, channel)
	if first.Through != 2 || second.Through != 6 {
		t.Fatalf("folded through %d, then %d; want 2, then 6", first.Through, second.Through)
	}
	mustAppend(t, log, transcript.Message{Author: ana, Corrects: 4, Content: "row 4, fixed"})
	if d, _ := held(t, log, channel); d != first {
		t.Fatalf("after the edit of row 4 the log holds %+v; want generation 1, %+v", d, first)
	}
	third, stored, err := digest.Fold(ctx, log, rec, policy, channel)
	if err != nil || !stored || third.Generation != 2 || !strings.Contains(third.Text, "row 4, fixed") {
		t.Fatalf("refold: %+v, %v, %v; want generation 2 with the edit", third, stored, err)
	}
	appendRoots(t, log, 2)
	rec.answer = func(_ context.Context, r digest.Request) (string, error) {
		mustAppend(t, log, transcript.Message{Author: transcript.Operator(), Corrects: 7, Redacted: true})
		return listing(r), nil
	}
	if _, stored, err := digest.Fold(ctx, log, rec, policy, channel); stored || !errors.Is(err, digest.ErrSuperseded) {
		t.Errorf("a fold that a redaction overtook: %v, %v; want ErrSuperseded", stored, err)
	}
	mustAppend(t, log, transcript.Message{Author: transcript.Operator(), Corrects: 1, Redacted: true})
	if d, ok := held(t, log, channel); ok {
		t.Errorf("after the redaction of row 1 the log holds %+v; want no digest", d)
	}
}
