package server

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
func heldRows(t *testing.T, tl *tail) []transcript.Message {
	t.Helper()
	tl.mu.RLock()
	n := len(tl.rows)
	tl.mu.RUnlock()
	page, err := tl.log().ReadBefore(t.Context(), 0, n)
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
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 1))
		mem := memlog.New()
		tl := newTestTail(t, mem, 30, DefaultTailBytes)
		var plain []transcript.Message // rows that may be corrected
		for step := range 120 {
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
	tl := newTestTail(t, mem, 100, DefaultTailBytes)
	h := &hub{tails: map[string]*tail{"eng": tl}}
	redaction, err := mem.Append(t.Context(), transcript.Message{Author: coder, Corrects: first.Seq, Redacted: true})
	if err != nil {
		t.Fatal(err)
	}
	h.corrected("eng", redaction)
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
