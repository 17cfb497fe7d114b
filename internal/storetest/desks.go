package storetest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/desknames"
)

// checkDeskIsolation: desks number their rows independently and never read each other's.
func checkDeskIsolation(t *testing.T, st Store) {
	if desks := mustDesks(t, st); len(desks) != 0 {
		t.Errorf("Desks of a new store = %q, want none", desks)
	}
	// Names that differ only in case, or hold non-ASCII letters, are distinct desks; so is
	// every name desknames.Accepted lists.
	names := []string{"eng", "Eng", "sales-floor", "équipe"}
	for _, name := range desknames.Accepted {
		names = append(names, name)
	}
	want := make(map[string][]transcript.Message)
	for i := range 12 {
		for j, desk := range names {
			if j > i%len(names) {
				continue // desks grow at different rates
			}
			seq := transcript.Sequence(len(want[desk]) + 1)
			m := root(fmt.Sprintf("%s row %d", desk, seq))
			if seq > 1 && i%3 == 0 {
				m = reply(seq-1, m.Content)
			}
			want[desk] = append(want[desk], mustAppend(t, st, desk, m, seq))
		}
	}
	if err := st.AppendBatch(t.Context(), "batch-desk", []transcript.Message{root("b1"), reply(transcript.BatchParent(0), "b2")}); err != nil {
		t.Fatalf("AppendBatch to a new desk: %v", err)
	}
	want["batch-desk"] = []transcript.Message{{Seq: 1}, {Seq: 2, Parent: 1}} // checked below by Seq and Parent
	names = append(names, "batch-desk")

	got := mustDesks(t, st)
	sorted := slices.Sorted(slices.Values(names))
	if !slices.Equal(got, sorted) {
		t.Errorf("Desks = %q, want %q", got, sorted)
	}
	for _, desk := range names {
		rows := mustReadAll(t, st, desk)
		if desk == "batch-desk" {
			if len(rows) != 2 || rows[0].Seq != 1 || rows[1].Seq != 2 || rows[1].Parent != 1 {
				t.Errorf("desk %q: got %+v, want rows 1 and 2, 2 replying to 1", desk, rows)
			}
			continue
		}
		checkRows(t, fmt.Sprintf("desk %q", desk), rows, want[desk])
	}
	for _, desk := range []string{"ENG", "eng ", "missing"} {
		page, err := st.Log(desk).ReadBefore(t.Context(), 0, transcript.PageSize)
		if err != nil || len(page.Messages) != 0 || page.Next != 0 {
			t.Errorf("ReadBefore on unknown desk %q = %d rows, Next %d, %v; want an empty page, Next 0", desk, len(page.Messages), page.Next, err)
		}
	}
}
