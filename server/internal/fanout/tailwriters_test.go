package fanout

import (
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
)

// deadlineRecorder is a ResponseWriter that notes the write deadlines set on it.
type deadlineRecorder struct {
	*httptest.ResponseRecorder
	mu        sync.Mutex
	deadlines []time.Time
}

func (r *deadlineRecorder) SetWriteDeadline(d time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.deadlines = append(r.deadlines, d)
	return nil
}

// last returns the last deadline set, and whether one was.
func (r *deadlineRecorder) last() (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.deadlines) == 0 {
		return time.Time{}, false
	}
	return r.deadlines[len(r.deadlines)-1], true
}

// TestStopWriters: a redaction stops a stream only while it writes a batch holding content
// the redaction erases (the target, or an older correction of it), by setting its write
// deadline to now, and stopWriters returns only once that write returned; the stream then
// writes no more. A batch of other rows, or whose row it wrote erased already, is let be.
func TestStopWriters(t *testing.T) {
	tl := newTestTail(t, memlog.New(), 100, 1<<20)
	rec := &deadlineRecorder{ResponseRecorder: httptest.NewRecorder()}

	target := transcript.Message{Seq: 2, Author: coder, Content: "a secret"}
	edit := transcript.Message{Seq: 3, Corrects: 2, Author: coder, Content: "the secret, edited"}
	other := transcript.Message{Seq: 4, Author: coder, Content: "nothing secret"}
	erased := transcript.Message{Seq: 2, Author: coder, Redacted: true}
	redaction := erasure{target: 2, by: 5}

	for _, tc := range []struct {
		name string
		rows []*transcript.Message
		stop bool
	}{
		{"other rows", []*transcript.Message{&other}, false},
		{"erased already", []*transcript.Message{&erased, &other}, false},
		{"between batches", nil, false},
		{"the target", []*transcript.Message{&other, &target}, true},
		{"an older correction", []*transcript.Message{&edit}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := tl.AddWriter(NewSSEWriter(rec, time.Second))
			defer tl.DropWriter(w)
			rec.mu.Lock()
			rec.deadlines = nil
			rec.mu.Unlock()
			if tc.rows != nil {
				batch := make([]PartEvent, len(tc.rows))
				for i, m := range tc.rows {
					batch[i] = PartEvent{At: m.Seq, Row: m, Kind: PartMessage}
				}
				if !w.begin(batch) {
					t.Fatal("begin: stopped before any redaction")
				}
			}
			stopped := make(chan struct{})
			go func() {
				tl.stopWriters([]erasure{redaction})
				close(stopped)
			}()
			if !tc.stop {
				<-stopped
				if _, ok := rec.last(); ok {
					t.Error("the redaction set a write deadline")
				}
				if w.end(false) {
					t.Error("end: stopped, want the stream to go on")
				}
				return
			}
			select {
			case <-stopped:
				t.Fatal("stopWriters returned while the stopped write had not")
			case <-time.After(50 * time.Millisecond):
			}
			if d, ok := rec.last(); !ok || d.After(time.Now()) {
				t.Errorf("write deadline %v (set %v), want one not after now", d, ok)
			}
			if !w.end(false) {
				t.Error("end: not stopped")
			}
			<-stopped
			if w.begin([]PartEvent{{At: other.Seq, Row: &other, Kind: PartMessage}}) {
				t.Error("begin after the stop: the stream may write on")
			}
		})
	}
}

// BenchmarkPartWriterBatch is what PartWriter adds to writing one batch of one event (the
// common part) while no redaction comes: begin and end.
//
//	go test -run '^$' -bench BenchmarkPartWriterBatch -benchmem ./server
func BenchmarkPartWriterBatch(b *testing.B) {
	tl := newTestTail(b, memlog.New(), 100, 1<<20)
	w := tl.AddWriter(NewSSEWriter(httptest.NewRecorder(), time.Second))
	m := transcript.Message{Seq: 1, Author: coder, Content: "hello"}
	batch := []PartEvent{{At: 1, Row: &m, Kind: PartMessage}}
	for b.Loop() {
		if !w.begin(batch) {
			b.Fatal("stopped")
		}
		if w.end(true) {
			b.Fatal("stopped")
		}
	}
}

// TestStopWritersBounded: a stopped write that never returns (a connection whose writes
// cannot be cut short) holds a redaction's answer no longer than Options.WriteTimeout.
func TestStopWritersBounded(t *testing.T) {
	tl := newTestTail(t, memlog.New(), 100, 1<<20)
	tl.opts.WriteTimeout = 50 * time.Millisecond
	w := tl.AddWriter(NewSSEWriter(httptest.NewRecorder(), time.Second)) // no deadlines
	defer tl.DropWriter(w)
	target := transcript.Message{Seq: 2, Author: coder, Content: "a secret"}
	if !w.begin([]PartEvent{{At: 2, Row: &target, Kind: PartMessage}}) {
		t.Fatal("begin: stopped before any redaction")
	}
	done := make(chan struct{})
	go func() {
		tl.stopWriters([]erasure{{target: 2, by: 3}})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("stopWriters still waits for a write that does not return")
	}
	if !w.end(false) {
		t.Error("end: not stopped")
	}
}

// TestStopAfterWholeWrite: a redaction that stops a write which then returns whole (every
// byte handed to the connection before the redaction was answered, as when the client read
// the row before the redaction was even made) does not end the stream: end reports it
// unstopped, the redaction's wait returns, and the next batch begins.
func TestStopAfterWholeWrite(t *testing.T) {
	tl := newTestTail(t, memlog.New(), 100, 1<<20)
	rec := &deadlineRecorder{ResponseRecorder: httptest.NewRecorder()}
	w := tl.AddWriter(NewSSEWriter(rec, time.Second))
	defer tl.DropWriter(w)
	target := transcript.Message{Seq: 2, Author: coder, Content: "a secret"}
	if !w.begin([]PartEvent{{At: 2, Row: &target, Kind: PartMessage}}) {
		t.Fatal("begin: stopped before any redaction")
	}
	stopped := make(chan struct{})
	go func() {
		tl.stopWriters([]erasure{{target: 2, by: 3}})
		close(stopped)
	}()
	for giveUp := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, ok := rec.last(); ok { // the redaction stopped the write
			break
		}
		if time.Now().After(giveUp) {
			t.Fatal("the redaction set no write deadline")
		}
	}
	if w.end(true) {
		t.Error("end of a whole write: stopped, want the stream to go on")
	}
	<-stopped
	next := transcript.Message{Seq: 3, Author: coder, Content: "next"}
	if !w.begin([]PartEvent{{At: 3, Row: &next, Kind: PartMessage}}) {
		t.Error("begin after a whole write: stopped")
	}
	if w.end(false) {
		t.Error("end of the next batch: stopped by no redaction")
	}
}
