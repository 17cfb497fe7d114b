package fanout

import (
	"cmp"
	"slices"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

// Corrected applies c, a correction this server appended to desk, to the rows desk's tail
// holds, when it has one, at once: the tail's next refresh reads c itself, but a stream
// must not serve what c replaced meanwhile. Until the tail's head reaches c, c stays
// pending: a refresh that read its rows before c committed applies it to them too. A
// redaction also stops the streams writing what it erased, and corrected returns once
// their writes have returned (tail.stopWriters): the caller answers after it.
func (h *Hub) Corrected(desk string, c transcript.Message) {
	h.mu.Lock()
	t := h.tails[desk]
	h.mu.Unlock()
	if t == nil {
		return
	}
	t.mu.Lock()
	if c.Seq > t.head {
		t.pending = append(t.pending, c)
	}
	t.applyCorrections([]transcript.Message{c})
	t.mu.Unlock()
	t.stopWriters(redactions([]transcript.Message{c}))
}

// redactions returns the erasures of the redactions among rows.
func redactions(rows []transcript.Message) []erasure {
	var es []erasure
	for i := range rows {
		if rows[i].IsCorrection() && rows[i].Redacted {
			es = append(es, erasure{target: rows[i].Corrects, by: rows[i].Seq})
		}
	}
	return es
}

// applyPending applies to the rows held the corrections of fresh, the rows a refresh
// appended (ascending), and then those still pending, and drops the pending ones the head
// has reached; t.mu is held.
func (t *Tail) applyPending(fresh []transcript.Message) {
	t.applyCorrections(fresh)
	t.applyCorrections(t.pending)
	t.pending = slices.DeleteFunc(t.pending, func(c transcript.Message) bool { return c.Seq <= t.head })
}

// applyCorrections applies cs, rows in ascending Seq, to the rows the tail holds as the
// log applied its corrections (storage.Revise): to a held target, and for a redaction
// to every held correction of its target older than it, always (a row read before the
// redaction committed may hold content it erased); a redaction is kept for the parts
// streams are writing (noteErasure). Applying a correction twice thus changes nothing.
// t.mu is held.
func (t *Tail) applyCorrections(cs []transcript.Message) {
	for i := range cs {
		c := &cs[i]
		if !c.IsCorrection() {
			continue
		}
		k, held := t.find(c.Corrects) // the target, or the first row held after it
		if !c.Redacted {
			if held {
				if m := t.heldRow(k); storage.Revise(&m, c) {
					t.patch(k, m)
				}
			}
			continue
		}
		t.noteErasure(erasure{target: c.Corrects, by: c.Seq})
		for ; k < len(t.rows) && t.rows[k].Seq < c.Seq; k++ { // the target and its older corrections
			if m := t.heldRow(k); storage.Revise(&m, c) {
				t.patch(k, m)
			}
		}
	}
	if len(t.patches) > maxPatches {
		t.rows = t.patched(t.rows)
	}
}

// maxPatches is how many revised rows the tail keeps beside its rows before it copies
// them with the revisions in: a correction costs a copy of the few patches, not of every
// row held, and a read applies at most this many.
const maxPatches = 64

// heldRow is the i-th row held, as revised; t.mu is held.
func (t *Tail) heldRow(i int) transcript.Message {
	m := t.rows[i]
	if j, ok := findPatch(t.patches, m.Seq); ok {
		revise(&m, t.patches[j])
	}
	return m
}

// revise writes r into m, the row it revises.
func revise(m *transcript.Message, r storage.Revision) {
	m.Content, m.Redacted, m.Revised = r.Content, r.Redacted, r.Revised
}

// patch makes m, the i-th held row as a correction revised it, one of the patches, keeping
// the byte count; t.mu is held. The patches are never written in place (readers hold them
// without the lock): a patch makes a new slice.
func (t *Tail) patch(i int, m transcript.Message) {
	was := t.heldRow(i)
	t.bytes += rowBytes(&m) - rowBytes(&was)
	r := storage.Revision{Target: m.Seq, Content: m.Content, Redacted: m.Redacted, Revised: m.Revised}
	j, ok := findPatch(t.patches, r.Target)
	next := make([]storage.Revision, 0, len(t.patches)+1)
	next = append(next, t.patches[:j]...)
	next = append(next, r)
	if ok {
		j++
	}
	t.patches = append(next, t.patches[j:]...)
}

// patched returns a new copy of rows, rows held or the newest of them, with the patches
// in, and drops the patches; t.mu is held.
func (t *Tail) patched(rows []transcript.Message) []transcript.Message {
	out := append(rows[:0:0], rows...)
	for _, r := range t.patches {
		if j, ok := findSeq(out, r.Target); ok {
			revise(&out[j], r)
		}
	}
	t.patches = nil
	return out
}

// find returns the index of the held row seq and true, if the tail holds it, else the
// index of the first row held after it and false; t.mu is held.
func (t *Tail) find(seq transcript.Sequence) (int, bool) { return findSeq(t.rows, seq) }

// findSeq returns the index of row seq in rows (ascending) and true, else the index of the
// first row after it and false.
func findSeq(rows []transcript.Message, seq transcript.Sequence) (int, bool) {
	return slices.BinarySearchFunc(rows, seq, func(m transcript.Message, s transcript.Sequence) int { return cmp.Compare(m.Seq, s) })
}

// findPatch is findSeq for patches (ascending Target).
func findPatch(patches []storage.Revision, seq transcript.Sequence) (int, bool) {
	return slices.BinarySearchFunc(patches, seq, func(r storage.Revision, s transcript.Sequence) int { return cmp.Compare(r.Target, s) })
}
