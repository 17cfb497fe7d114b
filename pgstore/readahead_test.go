package pgstore_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/pgstore"
)

// TestReadAhead walks a desk with reads of several sizes, checks every page against the same
// read made by a new Log (which has read nothing ahead), and checks which reads the Log
// answered from the rows it read ahead.
func TestReadAhead(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	ctx := t.Context()
	msgs := make([]transcript.Message, 100)
	for i := range msgs {
		msgs[i] = transcript.Message{Author: alice, Content: fmt.Sprint("row ", i+1)}
	}
	if err := st.AppendBatch(ctx, "eng", msgs); err != nil {
		t.Fatal(err)
	}
	log := st.Log("eng")
	steps := []struct {
		before    transcript.Sequence
		limit     int
		next      transcript.Sequence
		ahead     int                 // rows held read ahead after the read
		aheadFrom transcript.Sequence // their bound
	}{
		{0, 10, 91, 6, 91},   // reads 10 + 5 + 1
		{91, 20, 86, 1, 86},  // answered with 5 of the 6, the last kept back to set Next
		{86, 40, 46, 21, 46}, // 1 row ahead answers nothing: reads 40 + 20 + 1
		{46, 40, 26, 1, 26},  // answered with 20
		{26, 40, 0, 0, 0},    // reads the last 25 rows
		{50, 5, 45, 3, 45},   // not a continuation: reads 5 + 2 + 1
		{45, 10, 43, 1, 43},  // answered with 2
		{43, 3, 40, 2, 40},   // reads 3 + 1 + 1
		{6, 4, 2, 1, 2},      // reads 4 + 2 + 1, finds 5: row 1 ahead is the desk's first
		{2, 4, 0, 0, 0},      // answered with row 1, and Next 0
	}
	for i, s := range steps {
		got := mustRead(t, log, s.before, s.limit)
		checkSamePage(t, fmt.Sprintf("step %d, ReadBefore(%d, %d)", i, s.before, s.limit), got, mustRead(t, st.Log("eng"), s.before, s.limit))
		if got.Next != s.next {
			t.Errorf("step %d: Next %d, want %d", i, got.Next, s.next)
		}
		if n, bound := pgstore.ReadAhead(log); n != s.ahead || bound != s.aheadFrom {
			t.Errorf("step %d: %d rows read ahead below %d, want %d below %d", i, n, bound, s.ahead, s.aheadFrom)
		}
		if len(got.Messages) > 0 { // the page is the caller's: scribbling on it changes nothing
			got.Messages[len(got.Messages)-1].Content = "scribbled"
		}
	}
}

// checkSamePage reports whether got, a page read by a Log that may have answered from the
// rows it read ahead, agrees with want, the same read by a new Log: got may hold fewer rows,
// the newest of want's, and then its Next is its oldest row's Seq.
func checkSamePage(t *testing.T, what string, got, want transcript.Page) {
	t.Helper()
	n := len(got.Messages)
	switch {
	case n == 0 && len(want.Messages) > 0:
		t.Errorf("%s: an empty page, want %d rows", what, len(want.Messages))
	case n > len(want.Messages):
		t.Errorf("%s: %d rows, want at most %d", what, n, len(want.Messages))
	case n == len(want.Messages) && got.Next != want.Next:
		t.Errorf("%s: Next %d, want %d", what, got.Next, want.Next)
	case n < len(want.Messages) && got.Next != got.Messages[n-1].Seq:
		t.Errorf("%s: %d of %d rows, Next %d, want the oldest row's Seq %d", what, n, len(want.Messages), got.Next, got.Messages[n-1].Seq)
	}
	if diff := cmp.Diff(want.Messages[:min(n, len(want.Messages))], got.Messages); diff != "" {
		t.Errorf("%s (-new Log +walking Log):\n%s", what, diff)
	}
}

// TestReadAheadAcrossAppends: rows appended between two reads of a walk do not change what
// the rows read ahead answer, since every row below a visible one is final.
func TestReadAheadAcrossAppends(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	ctx := t.Context()
	for i := range 30 {
		if _, err := st.Append(ctx, "eng", transcript.Message{Author: alice, Content: fmt.Sprint("row ", i+1)}); err != nil {
			t.Fatal(err)
		}
	}
	log := st.Log("eng")
	first := mustRead(t, log, 0, 5)
	for i := range 10 {
		if _, err := st.Append(ctx, "eng", transcript.Message{Parent: 1, Author: bot, Content: fmt.Sprint("late ", i)}); err != nil {
			t.Fatal(err)
		}
	}
	second := mustRead(t, log, first.Next, 10)
	if n, _ := pgstore.ReadAhead(log); n != 1 || len(second.Messages) != 2 {
		t.Errorf("the read after the appends got %d rows, leaving %d ahead; want 2 from the 3 read ahead, leaving 1", len(second.Messages), n)
	}
	checkSamePage(t, "the read after the appends", second, mustRead(t, st.Log("eng"), first.Next, 10))
	if head := mustRead(t, log, 0, 1); head.Messages[0].Seq != 40 {
		t.Errorf("a read from the newest row after the appends starts at %d, want 40", head.Messages[0].Seq)
	}
}

// TestReadAheadBytes: a Log keeps at most 256 KiB of content read ahead.
func TestReadAheadBytes(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	ctx := t.Context()
	big := strings.Repeat("x", 150<<10)
	for range 6 {
		if _, err := st.Append(ctx, "eng", transcript.Message{Author: alice, Content: big}); err != nil {
			t.Fatal(err)
		}
	}
	log := st.Log("eng")
	page := mustRead(t, log, 0, 4) // reads 4 + 2 + 1 rows, finds 6: 300 KiB beyond the page
	if n, _ := pgstore.ReadAhead(log); n != 1 {
		t.Errorf("%d rows of 150 KiB read ahead, want 1", n)
	}
	rest := mustRead(t, log, page.Next, 4) // 1 row ahead answers nothing: a new query
	if len(rest.Messages) != 2 || rest.Next != 0 {
		t.Errorf("the rest of the desk: %d rows, Next %d; want 2 rows, Next 0", len(rest.Messages), rest.Next)
	}
}

// TestProjectionQueries: a channel projection from the head of a busy desk, and a thread
// projection, cost one query each when the rows read ahead cover the walk's second read,
// and agree with the same projections over memlog.
func TestProjectionQueries(t *testing.T) {
	t.Parallel()
	st, dsn := openStore(t)
	loadDesk(t, connect(t, dsn), "eng", 5000)
	var rows []transcript.Message
	for seq := int64(1); seq <= 5000; seq++ {
		rows = append(rows, loadRow(seq))
	}
	mem, err := memlog.From(rows)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []transcript.Query{
		{Conversation: transcript.Conversation{Desk: "eng"}},
		{Conversation: transcript.Conversation{Desk: "eng"}, Before: 2500},
		{Conversation: transcript.Conversation{Desk: "eng", Thread: 4986}},
	} {
		before := pgstore.ReadQueries(st)
		got, err := transcript.Project(t.Context(), st.Log("eng"), q)
		if err != nil {
			t.Fatal(err)
		}
		queries := pgstore.ReadQueries(st) - before
		want, err := transcript.Project(t.Context(), mem, q)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want.Messages, got.Messages); diff != "" {
			t.Errorf("%+v: through the store (-memlog +store):\n%s", q, diff)
		}
		t.Logf("%+v: %d reads, %d rows, %d queries", q, got.Reads, got.Scanned, queries)
		if got.Reads > 1 && queries != 1 {
			t.Errorf("%+v: %d reads made %d queries, want 1", q, got.Reads, queries)
		}
	}
}
