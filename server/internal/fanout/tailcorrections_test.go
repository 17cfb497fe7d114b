package fanout

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
)

// heldRows returns the newest n rows the tail's log answers from memory, ascending.
func heldRows(t *testing.T, tl *Tail) []transcript.Message {
	t.Helper()
	tl.mu.RLock()
	n := len(tl.rows)
	tl.mu.RUnlock()
	page, err := tl.Log().ReadBefore(t.Context(), 0, n)
	if err != nil {
		t.Fatal(err)
	}
	return reversed(page.Messages)
}

// storeRows returns the store's rows from seq on, ascending.
func storeRows(t *testing.T, mem *memlog.Log, from transcript.Sequence) []transcript.Message {
	t.Helper()
	var out []transcript.Message
	for _, m := range reversed(readAll(t, mem)) {
		if m.Seq >= from {
			out = append(out, m)
		}
	}
	return out
}

func readAll(t *testing.T, mem *memlog.Log) []transcript.Message {
	t.Helper()
	page, err := mem.ReadBefore(t.Context(), 0, mem.Len()+1)
	if err != nil {
		t.Fatal(err)
	}
	return page.Messages
}

// TestTailAppliesCorrections: after each refresh, the rows the tail holds are the store's
// as they are now, however the rows it read before were corrected since: edits, redactions
// (which erase the target and its earlier corrections), by their authors and the operator.
func TestTailAppliesCorrections(t *testing.T) {
	authors := []transcript.Author{transcript.Operator(), transcript.Agent("coder", ""), transcript.Person("ann", "")}
	for seed := range uint64(8) {
		r := rand.New(rand.NewPCG(seed, 1))
		mem := memlog.New()
		tailRows, steps := 30, 120 // the tail trims, and copies its rows, often
		if seed%2 == 1 {
			tailRows, steps = 1000, 400 // it never trims: its patches outgrow maxPatches
		}
		tl := newTestTail(t, mem, tailRows, testTailBytes)
		var plain []transcript.Message // rows that may be corrected
		for step := range steps {
			m := transcript.Message{Author: authors[r.IntN(len(authors))], Content: fmt.Sprintf("row %d secret-%d", step, step)}
			if len(plain) > 0 && r.IntN(2) == 0 {
				target := plain[r.IntN(len(plain))]
				m.Author, m.Corrects = target.Author, target.Seq
				if r.IntN(3) == 0 {
					m.Content, m.Redacted = "", true
				}
			}
			stored, err := mem.Append(t.Context(), m)
			if err != nil {
				continue // a correction of a redacted row
			}
			if !stored.IsCorrection() {
				plain = append(plain, stored)
			}
			if r.IntN(3) == 0 {
				continue // several rows per refresh
			}
			if err := tl.refresh(t.Context()); err != nil {
				t.Fatal(err)
			}
			held := heldRows(t, tl)
			if diff := cmp.Diff(storeRows(t, mem, held[0].Seq), held); diff != "" {
				t.Fatalf("seed %d step %d: the tail's rows differ from the store's (-store +tail):\n%s", seed, step, diff)
			}
		}
	}
}

// TestTailCorrectedAtOnce: a correction this server appended is applied to the rows the
// tail holds before the tail reads it, and again, to no effect, when it does.
func TestTailCorrectedAtOnce(t *testing.T) {
	mem := memlog.New()
	coder := transcript.Agent("coder", "")
	first, _ := mem.Append(t.Context(), transcript.Message{Author: coder, Content: "the password is hunter2"})
	edit, _ := mem.Append(t.Context(), transcript.Message{Author: coder, Corrects: first.Seq, Content: "the password is hunter3"})
	tl := newTestTail(t, mem, 100, testTailBytes)
	h := &Hub{tails: map[string]*Tail{"eng": tl}}
	redaction, err := mem.Append(t.Context(), transcript.Message{Author: coder, Corrects: first.Seq, Redacted: true})
	if err != nil {
		t.Fatal(err)
	}
	h.Corrected("eng", redaction)
	for _, when := range []string{"before the tail read it", "after"} {
		held := heldRows(t, tl)
		for _, m := range held {
			if strings.Contains(m.Content, "hunter") {
				t.Errorf("%s: the tail holds erased content in row %d", when, m.Seq)
			}
		}
		if held[0].Revised != redaction.Seq || !held[0].Redacted || !held[1].Redacted || held[1].Seq != edit.Seq {
			t.Errorf("%s: rows held %+v", when, held)
		}
		if err := tl.refresh(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(storeRows(t, mem, 1), heldRows(t, tl)); diff != "" {
		t.Errorf("(-store +tail):\n%s", diff)
	}
	if len(tl.pending) != 0 {
		t.Errorf("%d corrections still pending after the tail read them", len(tl.pending))
	}
}

// BenchmarkTailRefreshCorrection is one refresh of a full tail that reads two new rows: two
// plain rows, or a plain row and an edit of a row the tail holds (a plain row 1,024 rows
// back), which copies the rows held once before it changes one (readers hold them without
// the lock). The ratio of edit to plain is what a correction costs the fan-out.
func BenchmarkTailRefreshCorrection(b *testing.B) {
	for _, kind := range []string{"plain", "edit"} {
		b.Run(kind, func(b *testing.B) {
			mem := memlog.New()
			author := transcript.Agent("coder", "")
			var plain []transcript.Sequence
			appendRow := func(m transcript.Message) {
				stored, err := mem.Append(b.Context(), m)
				if err != nil {
					b.Fatal(err)
				}
				if !stored.IsCorrection() {
					plain = append(plain, stored.Seq)
				}
			}
			for i := range transcript.ScanLimit {
				appendRow(transcript.Message{Author: author, Content: fmt.Sprint("row ", i)})
			}
			tl := newTestTail(b, mem, transcript.ScanLimit, testTailBytes)
			b.ReportAllocs()
			for b.Loop() {
				appendRow(transcript.Message{Author: author, Content: "a new row"})
				second := transcript.Message{Author: author, Content: "another new row"}
				if kind == "edit" {
					second = transcript.Message{Author: author, Corrects: plain[len(plain)-transcript.ScanLimit/4], Content: "an edit"}
				}
				appendRow(second)
				if err := tl.refresh(b.Context()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTailReadPatched is one page of the newest rows a tail holds, read as a stream's
// delta reads it: with no patches, or with maxPatches of them among the page's rows (the
// most a tail keeps before it copies its rows).
func BenchmarkTailReadPatched(b *testing.B) {
	for _, patches := range []int{0, maxPatches} {
		b.Run(fmt.Sprint("patches=", patches), func(b *testing.B) {
			mem := memlog.New()
			author := transcript.Agent("coder", "")
			for i := range transcript.ScanLimit {
				if _, err := mem.Append(b.Context(), transcript.Message{Author: author, Content: fmt.Sprint("row ", i)}); err != nil {
					b.Fatal(err)
				}
			}
			tl := newTestTail(b, mem, transcript.ScanLimit, testTailBytes)
			tl.mu.Lock()
			for k := range patches {
				i := len(tl.rows) - 1 - 2*k
				m := tl.rows[i]
				m.Content, m.Revised = "an edit", m.Seq+1
				tl.patch(i, m)
			}
			tl.mu.Unlock()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tl.Log().ReadBefore(b.Context(), 0, transcript.PageSize); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
