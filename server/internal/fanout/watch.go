package fanout

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"
)

// watchRetry is how long the watch loop waits before it calls a lost Watcher's Watch again.
const watchRetry = 2 * time.Second

// startWatch starts the loop that wakes the tails when their desks have new rows; h.mu is
// held. With a Watcher, a desk's name from the store wakes its tail; while the watch is
// down (and always, without a Watcher), every tail is woken every PollInterval.
func (h *Hub) startWatch() {
	ctx, cancel := context.WithCancel(context.Background())
	h.stopWatch = cancel // not waited for: the loop takes h.mu to wake the tails
	w, _ := h.st.(watcher)
	go func() {
		if hw, ok := h.st.(headWatcher); ok {
			go h.watch(ctx, headWatch{hw, h}, &h.watching)
		} else if w != nil {
			go h.watch(ctx, w, &h.watching)
		}
		tick := time.NewTicker(h.opts.PollInterval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if !h.watching.Load() {
					h.wakeAll()
				}
			}
		}
	}()
}

// watch receives desk names from w until ctx is done, calling Watch again after a pause
// whenever the watch is lost. Once a watch is up again every tail is woken, since
// notifications may have been missed while it was down.
func (h *Hub) watch(ctx context.Context, w watcher, watching *atomic.Bool) {
	h.keepWatching(ctx, "store watch", "; polling", func() error {
		names, err := w.Watch(ctx)
		if err == nil {
			watching.Store(true)
			h.wakeAll()
			for desk := range names {
				h.wake(desk)
			}
			watching.Store(false)
			h.wakeAll()
		}
		return err
	})
}

// digestSource is the hub's DigestNotes' source over w: while a stream watches digests,
// the conversations w reports are noted (watchDigests).
func (h *Hub) digestSource(w digestWatcher) func(up func()) (stop func()) {
	return func(up func()) func() {
		ctx, cancel := context.WithCancel(context.Background())
		go h.watchDigests(ctx, w, up)
		return cancel
	}
}

// watchDigests notes the conversations w reports in the hub's DigestNotes until ctx is
// done, calling WatchDigests again after a pause whenever the watch is lost. It calls up
// each time WatchDigests has answered, before it takes the first report. When a watch is
// up after one failed or was lost, what was stored meanwhile was told to nobody: every
// watch is told so (DigestNotes.Missed).
func (h *Hub) watchDigests(ctx context.Context, w digestWatcher, up func()) {
	down := false // a watch failed or was lost
	h.keepWatching(ctx, "store digest watch", "", func() error {
		convs, err := w.WatchDigests(ctx)
		up()
		if err != nil {
			down = true
			return err
		}
		if down {
			h.digests.Missed()
		}
		for c := range convs {
			h.digests.Changed(c)
		}
		down = true
		return nil
	})
}

// keepWatching runs watch, which returns once its watch is lost or could not start (err),
// until ctx is done: each time it returns it logs which (what, then after), and runs it again
// after watchRetry.
func (h *Hub) keepWatching(ctx context.Context, what, after string, watch func() error) {
	for ctx.Err() == nil {
		err := watch()
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			h.log.Warn(what+" failed"+after, slog.String("error", err.Error()))
		} else {
			h.log.Warn(what + " lost" + after)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(watchRetry):
		}
	}
}

// headWatch is a server.HeadWatcher as a Watcher: it passes each desk's head to its tail
// (hub.reported) and sends no name, so that the watch loop wakes no tail for it to read.
type headWatch struct {
	w headWatcher
	h *Hub
}

func (hw headWatch) Watch(ctx context.Context) (<-chan string, error) {
	heads, err := hw.w.WatchHeads(ctx)
	if err != nil {
		return nil, err
	}
	names := make(chan string)
	go func() {
		defer close(names)
		for m := range heads {
			for desk, head := range m {
				hw.h.reported(desk, head)
			}
		}
	}()
	return names, nil
}
