package deskqueue

import (
	"maps"
	"slices"
	"testing"

	"github.com/sharedesk/transcript"
)

// TestQueue: names come out in the order they first went in, each once while it waits,
// and again once it was taken.
func TestQueue(t *testing.T) {
	var q Queue[string]
	for _, n := range []string{"eng", "ops", "eng", "dev", "ops"} {
		q.Add(n)
	}
	var got []string
	for q.Len() > 0 {
		got = append(got, q.First())
		q.Pop()
	}
	if want := []string{"eng", "ops", "dev"}; !slices.Equal(got, want) {
		t.Errorf("taken %v, want %v", got, want)
	}
	q.Add("eng")
	if q.Len() != 1 || q.First() != "eng" {
		t.Errorf("a name taken and added again: %d waiting, first %q", q.Len(), q.First())
	}
}

// TestHeads: a desk waits once with its newest head; a deletion comes as 0 in a value of
// its own, and the head of the desk made anew after it, even the old one's, in the next.
func TestHeads(t *testing.T) {
	var h Heads
	h.Set("eng", 3)
	h.Set("eng", 5)
	h.Set("eng", 4) // a head noted late: never down
	h.Set("ops", 1)
	if got := h.Value(); !maps.Equal(got, map[string]transcript.Sequence{"eng": 5, "ops": 1}) {
		t.Errorf("value %v, want eng 5 and ops 1", got)
	}
	h.Taken()
	if h.Len() != 0 {
		t.Fatalf("%d desks wait after the value was taken, want 0", h.Len())
	}
	h.Set("eng", 6)
	h.Deleted("eng")
	h.Set("eng", 6) // made anew to the same head
	h.Deleted("ops")
	if got := h.Value(); !maps.Equal(got, map[string]transcript.Sequence{"eng": 0, "ops": 0}) {
		t.Errorf("value %v, want eng 0 and ops 0", got)
	}
	h.Taken()
	if got := h.Value(); h.Len() != 1 || !maps.Equal(got, map[string]transcript.Sequence{"eng": 6}) {
		t.Errorf("next value %v, want eng 6 alone", got)
	}
	h.Taken()
	h.Set("eng", 2) // below the last head taken: a late report
	if h.Len() != 0 {
		t.Errorf("a late head waits: %v", h.Value())
	}
}
