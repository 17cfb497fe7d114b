package watchset

import (
	"context"
	"testing"
)

// TestCloseEndsWatches: Close cancels each running watch's context and returns only once
// every watch has called its end; after it, Add refuses.
func TestCloseEndsWatches(t *testing.T) {
	var s Set[*int]
	ended := make(chan int, 2)
	for i := range 2 {
		ctx, end, ok := s.Add(context.Background(), new(int))
		if !ok {
			t.Fatalf("Add %d refused on an open set", i)
		}
		go func() {
			<-ctx.Done()
			ended <- i
			end()
		}()
	}
	s.Close()
	if len(ended) != 2 {
		t.Errorf("Close returned with %d of 2 watches ended", len(ended))
	}
	if _, _, ok := s.Add(context.Background(), new(int)); ok {
		t.Error("Add after Close added a watch")
	}
	s.Close() // a second Close returns at once
}

// TestEndRemoves: a watch that ends is no longer in the set, and its context is done.
func TestEndRemoves(t *testing.T) {
	var s Set[*int]
	a, b := new(int), new(int)
	_, endA, _ := s.Add(context.Background(), a)
	ctxB, endB, _ := s.Add(context.Background(), b)
	endB()
	if ctxB.Err() == nil {
		t.Error("a watch's context is not done after its end")
	}
	var got []*int
	s.Each(func(w *int) { got = append(got, w) })
	if len(got) != 1 || got[0] != a {
		t.Errorf("Each after one of two ended gave %v, want only %p", got, a)
	}
	endA()
	s.Close()
}
