package fanout

import (
	"slices"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

// erasure is a redaction the tail applied: it erased row target and every correction of
// target older than by, the redaction's Seq.
type erasure struct{ target, by transcript.Sequence }

// apply writes the erasure into m, a row read before it may have committed, as a read after
// it shows the row (storage.Revise): the target, and a correction of it older than the
// redaction, with Content "" and Redacted set, the target's Revised at least the redaction.
// Other rows, and a nil m, are left alone.
func (e erasure) apply(m *transcript.Message) {
	if m != nil {
		storage.Revise(m, &transcript.Message{Seq: e.by, Corrects: e.target, Redacted: true})
	}
}

// erases reports whether e erases m: the target, or a correction of it older than the
// redaction; never a nil m.
func (e erasure) erases(m *transcript.Message) bool {
	return m != nil && (m.Seq == e.target || m.Corrects == e.target && m.Seq < e.by)
}

// maxErasures is how many of the newest redactions a tail keeps at least (twice as many at
// most) for the streams writing a part prepared before them (InFlight). A stream that falls further behind ends, and its
// client resumes from the last event it received.
const maxErasures = 256

// noteErasure adds e to the erasures kept, unless the same redaction is kept already, and
// counts it; t.mu is held. The kept slice is never written in place below its length:
// erasuresSince hands it out.
func (t *Tail) noteErasure(e erasure) {
	if slices.Contains(t.erasures, e) {
		return
	}
	if len(t.erasures) >= 2*maxErasures {
		t.erasures = slices.Clone(t.erasures[len(t.erasures)-maxErasures:])
	}
	t.erasures = append(t.erasures, e)
	t.erased.Add(1)
}

// erasuresSince returns the redactions the tail applied after the first seen of them, and
// how many it has applied in all; false when it no longer keeps all of them. The caller
// must not change the slice.
func (t *Tail) erasuresSince(seen uint64) ([]erasure, uint64, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	total := t.erased.Load()
	kept := uint64(len(t.erasures))
	if total-seen > kept {
		return nil, total, false
	}
	return t.erasures[kept-(total-seen):], total, true
}

// InFlight holds a part a stream prepared from the tail up to date with the redactions the
// tail applies while the stream writes it: before it writes an event, the stream erases the
// event's row as the redactions since the part was prepared erased it. While no redaction
// comes, that costs one atomic load an event.
type InFlight struct {
	t      *Tail
	seen   uint64    // the tail's count of erasures the part's rows reflect
	erased []erasure // those applied since the part was prepared
}

// Prepare starts a part: call it before reading the part's rows from the tail's log.
func (f *InFlight) Prepare(t *Tail) { *f = InFlight{t: t, seen: t.erased.Load()} }

// stale reports whether the tail applied a redaction that erase has not taken in yet.
func (f *InFlight) stale() bool { return f.t.erased.Load() != f.seen }

// takeIn takes in the redactions the tail applied since f last looked, and returns them;
// false when the tail no longer keeps them all.
func (f *InFlight) takeIn() ([]erasure, bool) {
	if !f.stale() {
		return nil, true
	}
	more, total, ok := f.t.erasuresSince(f.seen)
	if !ok {
		return nil, false
	}
	f.erased = append(f.erased, more...)
	f.seen = total
	return more, true
}

// unchanged takes in the redactions the tail applied since f last looked, and reports
// whether none of them erases a row of evs, events already encoded: false when one does,
// or when the tail no longer keeps them all.
func (f *InFlight) unchanged(evs []PartEvent) bool {
	more, ok := f.takeIn()
	if !ok {
		return false
	}
	for _, e := range more {
		for i := range evs {
			if e.erases(evs[i].Row) {
				return false
			}
		}
	}
	return true
}

// erase writes into m, a row of the part (nil: an event with no row, such as an elision),
// every redaction the tail applied since the part was prepared. It reports false when the
// tail no longer keeps them all: the stream must then end without writing m.
func (f *InFlight) erase(m *transcript.Message) bool {
	if _, ok := f.takeIn(); !ok {
		return false
	}
	for _, e := range f.erased {
		e.apply(m)
	}
	return true
}
