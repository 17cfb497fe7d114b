package server

import "github.com/sharedesk/transcript"

// partEvent is one event of a part a stream writes: where it stands among the part's
// events, and what it carries. It takes 32 bytes, so that the events of a part of one, the
// common part, are held on the stack.
type partEvent struct {
	at   transcript.Sequence // the row's Seq; an elision's From
	row  *transcript.Message // a message, a correction or a row of the desk
	eli  *transcript.Elision // an elision
	kind partKind
}

// partKind is what an event of a part is: its name, and the metric it counts in.
type partKind uint8

const (
	partMessage partKind = iota
	partCorrection
	partElided
	partRow // a row of the desk, on the operator's rows stream
)

var partKinds = [...]struct {
	name   string
	metric eventKind
}{
	partMessage:    {"message", eventMessage},
	partCorrection: {"correction", eventCorrection},
	partElided:     {"elided", eventElided},
	partRow:        {"row", eventMessage},
}

// add adds e to what out sends next.
func (e *partEvent) add(out *sseWriter) error {
	name := partKinds[e.kind].name
	if e.eli != nil {
		return out.event(name, e.eli.Through, e.eli)
	}
	return out.event(name, e.row.Seq, e.row)
}

// writePart writes evs, a part read from the tail after f.prepare, in order, gathered in
// batches of sseBatchBytes (or one larger event), and flushes the last. Right before each
// write it erases, in the events the write holds, what the redactions the tail applied
// since the part was prepared erased, and encodes the batch again when one came while it
// was encoded: once the tail knows of a redaction, which it does before the redaction's
// answer is sent, a part prepared before it writes none of what it erased, however slowly
// its client reads. A batch is written in pieces of sseChunkBytes, and a redaction that
// erases one of its rows while they are written stops it at once, the piece being written
// too (partWriter), before the redaction is answered. It reports false when it stopped so,
// or when the tail no longer keeps every redaction since the part was prepared: the stream
// must then end, and its client resumes from the last whole event it received.
func (st *stream) writePart(out *sseWriter, evs []partEvent, f *inFlight) (bool, error) {
	first, mark := 0, out.buffered() // evs[first:] are not written; the buffer held mark bytes before them
	for i := range evs {
		if !f.erase(evs[i].row) {
			return false, nil
		}
		if err := evs[i].add(out); err != nil {
			return false, err
		}
		if i < len(evs)-1 && out.buffered() < sseBatchBytes {
			continue
		}
		for f.stale() { // a redaction came while the batch was encoded
			out.truncate(mark)
			for j := first; j <= i; j++ {
				if !f.erase(evs[j].row) {
					return false, nil
				}
				if err := evs[j].add(out); err != nil {
					return false, err
				}
			}
		}
		batch := evs[first : i+1]
		if err := out.setDeadline(); err != nil {
			return false, err
		}
		if !st.writer.begin(batch) { // after the deadline: a redaction's sooner one stands
			return false, nil
		}
		sent, err := out.flushWhile(func() bool { return f.unchanged(batch) })
		if st.writer.end() {
			return false, nil
		}
		if !sent || err != nil {
			return false, err
		}
		for j := first; j <= i; j++ {
			st.s.metrics.events[partKinds[evs[j].kind].metric].Add(1)
		}
		first, mark = i+1, 0
	}
	return true, nil
}
