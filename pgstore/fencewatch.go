package pgstore

import (
	"context"
	"time"
)

// watchFences keeps, while the Store is open, a WatchHeads of its own on the primary, in a
// Store with standbys: every commit to a desk, by this Store or any other process, raises
// the desk's fence once its notification comes, which costs the primary nothing per read.
// Each time it listens anew it raises every desk's fence to its head, read on the primary,
// for the commits made while nobody listened; only then does r.watching say so. While it
// does not (before the first, after a lost connection), a read learns its desk's head on
// the primary itself (route's probe). It ends once stop is closed, and closes done.
func (s *Store) watchFences(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	delay := reconnectFirst
	for ctx.Err() == nil {
		if s.listenForFences(ctx) {
			delay = reconnectFirst
		}
		timer := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}
		delay = min(2*delay, reconnectMost)
	}
}

// A fence watch pings the primary after fencePingAfter of silence, and takes a connection
// that cannot answer within fencePingWithin for lost: a connection lost without an error,
// during which the Store hears of no commit, is noticed within 3 s.
const (
	fencePingAfter  = time.Second
	fencePingWithin = 2 * time.Second
)

// listenForFences runs one WatchHeads until its connection is lost or ctx is done, with
// r.watching true once it listens and every desk's fence is raised to its head; it reports
// whether it got that far.
func (s *Store) listenForFences(ctx context.Context) bool {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	heads, err := s.watchHeads(ctx, &watch{pingAfter: fencePingAfter, pingWithin: fencePingWithin})
	if err != nil {
		return false
	}
	defer func() {
		s.replicas.watching.Store(false)
		for range heads { // until the watch has ended
		}
	}()
	desks, err := deskHeads(ctx, s.pool)
	if err != nil {
		cancel()
		return false
	}
	for _, d := range desks {
		s.replicas.fences.raise(d.name, d.head)
	}
	s.replicas.watching.Store(true)
	for range heads { // the watch raises the fences itself, before it sends
	}
	return true
}
