package watchset

import (
	"context"
	"sync"
)

// Set is the watches a store has running, each with the function that cancels its context.
// The zero Set is empty and open. A Set is safe for concurrent use.
type Set[W comparable] struct {
	mu      sync.Mutex
	running map[W]context.CancelFunc
	closed  bool
	wg      sync.WaitGroup // one for each watch added and not yet ended
}

// Add adds w, which is not in s, and returns a context derived from ctx that Close cancels,
// and end, which the watch calls once when it stops: end cancels the context and removes w.
// After Close, Add adds nothing and returns ok false.
func (s *Set[W]) Add(ctx context.Context, w W) (watchCtx context.Context, end func(), ok bool) {
	ctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		cancel()
		return nil, nil, false
	}
	if s.running == nil {
		s.running = make(map[W]context.CancelFunc)
	}
	s.running[w] = cancel
	s.wg.Add(1)
	end = func() {
		cancel()
		s.mu.Lock()
		delete(s.running, w)
		s.mu.Unlock()
		s.wg.Done()
	}
	return ctx, end, true
}

// Close cancels the context of every watch in s and waits until each has called its end;
// Add adds none after it. Close may be called more than once.
func (s *Set[W]) Close() {
	s.mu.Lock()
	s.closed = true
	for _, cancel := range s.running {
		cancel()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// Each calls f with every watch in s, in no set order, under s's lock: f must not call
// Add, Close or an end.
func (s *Set[W]) Each(f func(W)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for w := range s.running {
		f(w)
	}
}
