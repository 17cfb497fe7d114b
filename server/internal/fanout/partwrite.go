package fanout

import "github.com/sharedesk/transcript"

// PartEvent is one event of a part a stream writes: where it stands among the part's
// events, and what it carries. It takes 32 bytes, so that the events of a part of one, the
// common part, are held on the stack.
type PartEvent struct {
	At   transcript.Sequence // the row's Seq; an elision's From
	Row  *transcript.Message // a message, a correction or a row of the desk
	Eli  *transcript.Elision // an elision
	Kind PartKind
}

// PartKind is what an event of a part is: its name on the wire.
type PartKind uint8

const (
	PartMessage PartKind = iota
	PartCorrection
	PartElided
	PartRow // a row of the desk, on the operator's rows stream
)

var partKinds = [...]struct{ name string }{
	PartMessage:    {"message"},
	PartCorrection: {"correction"},
	PartElided:     {"elided"},
	PartRow:        {"row"},
}

// Counter counts the events a stream sent, by kind (WritePart).
type Counter interface{ Sent(PartKind) }

// add adds e to what out sends next.
func (e *PartEvent) add(out *SSEWriter) error {
	name := partKinds[e.Kind].name
	if e.Eli != nil {
		return out.Event(name, e.Eli.Through, e.Eli)
	}
	return out.Event(name, e.Row.Seq, e.Row)
}

// WritePart writes evs, a part read from the tail after f.prepare, in order, gathered in
// batches of sseBatchBytes (or one larger event), and flushes the last. Right before each
// write it erases, in the events the write holds, what the redactions the tail applied
// since the part was prepared erased, and encodes the batch again when one came while it
// was encoded: once the tail knows of a redaction, which it does before the redaction's
// answer is sent, a part prepared before it writes none of what it erased, however slowly
// its client reads. A batch is written in pieces of sseChunkBytes, and a redaction that
// erases one of its rows while they are written stops it at once, the piece being written
// too (PartWriter), before the redaction is answered. It reports false when it stopped so,
// or when the tail no longer keeps every redaction since the part was prepared: the stream
// must then end, and its client resumes from the last whole event it received.
//
// w is the stream's writer as the tail's redactions see it (Tail.AddWriter); c counts each
// event once its batch was sent.
func WritePart(out *SSEWriter, w *PartWriter, evs []PartEvent, f *InFlight, c Counter) (bool, error) {
	first, mark := 0, out.buffered() // evs[first:] are not written; the buffer held mark bytes before them
	for i := range evs {
		if !f.erase(evs[i].Row) {
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
				if !f.erase(evs[j].Row) {
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
		if !w.begin(batch) { // after the deadline: a redaction's sooner one stands
			return false, nil
		}
		sent, err := out.flushWhile(func() bool { return f.unchanged(batch) })
		if w.end(sent && err == nil) {
			return false, nil
		}
		if !sent || err != nil {
			return false, err
		}
		for j := first; j <= i; j++ {
			c.Sent(evs[j].Kind)
		}
		first, mark = i+1, 0
	}
	return true, nil
}
