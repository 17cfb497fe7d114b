package fanout

import (
	"net/http"
	"sync"
	"time"

	"github.com/sharedesk/transcript"
)

// PartWriter is a stream's connection as the redactions of its tail see it: the batch of a
// part the stream is handing the connection, if any. A redaction that erases a row of that
// batch stops the write at once (tail.stopWriters): the connection's write deadline is set
// to now, so that a write waiting for a slow client fails, and the stream writes nothing
// more; its client resumes from the last whole event it received. A write the stop came too
// late to cut short was whole before the redaction's answer, and the stream goes on.
//
// The order that keeps every erased byte from leaving after the redaction's answer: the
// stream sets its write's deadline, then announces the batch (begin, under mu), then looks
// at the tail's count of redactions before each piece it writes (InFlight.unchanged). The
// redaction is counted first, then each stream is looked at under mu, and the answer waits
// for the writes stopped. If a stream announces its batch after it was looked at, mu orders
// its look at the count after the redaction: it writes nothing of a batch the redaction
// erases a row of. Otherwise the redaction sees the batch, sets the deadline after the
// stream's own, and waits until the write returned: every byte the kernel took, it took
// before the answer. Over HTTP/2 the deadline resets the stream, and a frame the
// connection is writing already still leaves: net/http gives no hold on it.
//
// The stream calls begin and end around each batch's write: two uncontended locks a batch.
type PartWriter struct {
	rc *http.ResponseController

	mu      sync.Mutex
	rows    []*transcript.Message // the rows of the batch being written; empty between batches
	stopped bool                  // a redaction erased a row of the batch being written: unless the write is whole, the stream ends
	left    chan struct{}         // made by a redaction that stopped a write; closed when the write returned
}

// maxHeldRows is the most rows a PartWriter keeps room for between batches.
const maxHeldRows = 64

// AddWriter registers a stream writing through out with the tail; the stream calls
// DropWriter before its handler returns.
func (t *Tail) AddWriter(out *SSEWriter) *PartWriter {
	w := &PartWriter{rc: out.rc}
	t.writersMu.Lock()
	t.writers[w] = struct{}{}
	t.writersMu.Unlock()
	return w
}

// DropWriter unregisters w.
func (t *Tail) DropWriter(w *PartWriter) {
	t.writersMu.Lock()
	delete(t.writers, w)
	t.writersMu.Unlock()
}

// begin tells that the stream is about to write batch, after it set the write's deadline;
// it reports false when a redaction stopped the stream, which must then end without
// writing. A nil w writes unwatched.
func (w *PartWriter) begin(batch []PartEvent) bool {
	if w == nil {
		return true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return false
	}
	for i := range batch {
		if batch[i].Row != nil {
			w.rows = append(w.rows, batch[i].Row)
		}
	}
	return true
}

// end tells that the write of the batch begin announced returned, whole (every byte handed
// to the connection) or not, and reports whether a redaction stopped it meanwhile: the
// stream must then end. A stop that came too late to cut a whole write short stops
// nothing: its bytes left before the redaction was answered, since the answer waits for
// end, and the stream goes on (its next write sets a fresh deadline).
func (w *PartWriter) end(whole bool) (stopped bool) {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if whole {
		w.stopped = false
	}
	if cap(w.rows) > maxHeldRows {
		w.rows = nil
	} else {
		clear(w.rows)
		w.rows = w.rows[:0]
	}
	if w.left != nil {
		close(w.left)
		w.left = nil
	}
	return w.stopped
}

// longPast is a write deadline every connection takes as passed.
var longPast = time.Unix(1, 0)

// stop stops w's write when the batch being written holds a row of content es erases:
// under w.mu, so while the stream is inside the write, whose handler is running, it sets
// the connection's write deadline to now. It returns a channel closed once the write
// returned, or nil when there is none to wait for.
func (w *PartWriter) stop(es []erasure) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped && w.holds(es) {
		w.stopped = true
		// On error (a writer without deadlines, or a connection already gone) the write
		// ends as it would have: stopWriters waits for it within its bound.
		_ = w.rc.SetWriteDeadline(longPast) // not time.Now(), which a write might not yet count as past
		w.left = make(chan struct{})
	}
	return w.left
}

// holds reports whether a row of the batch being written still holds content that one of
// es erases; w.mu is held. The stream erased the rows of the redactions it had taken in
// before it began, so those it wrote already erased do not count.
func (w *PartWriter) holds(es []erasure) bool {
	for _, m := range w.rows {
		if m.Content == "" {
			continue
		}
		for _, e := range es {
			if e.erases(m) {
				return true
			}
		}
	}
	return false
}

// stopWriters stops every stream of the tail that is writing a batch holding content es
// erase, and returns once each of those writes returned, or after Options.WriteTimeout, the
// bound of any write: after it, no byte of the erased content is handed to a connection. A
// write cut short returns at once over HTTP/1.1; over HTTP/2 the stream's reset waits for
// the frame the connection is writing, which a client that stopped reading holds until the
// bound. t.mu must not be held: a stream takes it to look at the redactions.
func (t *Tail) stopWriters(es []erasure) {
	lefts := t.stopWriting(es)
	if len(lefts) == 0 {
		return
	}
	bound := time.NewTimer(t.opts.WriteTimeout)
	defer bound.Stop()
	for _, left := range lefts {
		select {
		case <-left:
		case <-bound.C:
			t.opts.Logger.Warn("a redaction is answered before a stream's write it stopped returned", "desk", t.desk)
			return
		}
	}
}

// stopWriting stops the writes stopWriters waits for, and returns their channels.
func (t *Tail) stopWriting(es []erasure) []<-chan struct{} {
	if len(es) == 0 {
		return nil
	}
	t.writersMu.Lock()
	defer t.writersMu.Unlock()
	var lefts []<-chan struct{}
	for w := range t.writers {
		if left := w.stop(es); left != nil {
			lefts = append(lefts, left)
		}
	}
	return lefts
}
