package deskqueue

import (
	"slices"
	"testing"
)

// TestQueue: names come out in the order they first went in, each once while it waits,
// and again once it was taken.
func TestQueue(t *testing.T) {
	var q Queue
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
