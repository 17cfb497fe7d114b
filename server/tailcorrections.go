package server

import (
	"cmp"
	"slices"

	"github.com/sharedesk/transcript"
)

// corrected applies c, a correction this server appended to desk, to the rows desk's tail
// holds, when it has one, at once: the tail's next refresh reads c itself, but a stream
// must not serve what c replaced meanwhile. Until the tail's head reaches c, c stays
// pending: a refresh that read its rows before c committed applies it to them too.
func (h *hub) corrected(desk string, c transcript.Message) {
	h.mu.Lock()
	t := h.tails[desk]
	h.mu.Unlock()
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if c.Seq > t.head {
		t.pending = append(t.pending, c)
	}
	t.applyCorrections([]transcript.Message{c})
}

// applyPending applies to the rows held the corrections of fresh, the rows a refresh
// appended (ascending), and then those still pending, and drops the pending ones the head
// has reached; t.mu is held.
func (t *tail) applyPending(fresh []transcript.Message) {
	t.applyCorrections(fresh)
	t.applyCorrections(t.pending)
	t.pending = slices.DeleteFunc(t.pending, func(c transcript.Message) bool { return c.Seq <= t.head })
}

// applyCorrections applies cs, rows in ascending Seq, to the rows the tail holds as the
// log applied its corrections: a held target takes an edit's content, or is erased; its
// Revised becomes the correction's Seq, unless it is as new already (the store applied
// the correction before the tail read the row); a redaction erases every held correction
// of its target older than it, always (a row read before the redaction committed may
// hold content it erased). Applying a correction twice thus changes nothing. t.mu is
// held. The rows are never written in place (readers hold the slice without the lock):
// a correction of a held row copies them first.
func (t *tail) applyCorrections(cs []transcript.Message) {
	copied := false
	for _, c := range cs {
		if !c.IsCorrection() {
			continue
		}
		i, ok := t.find(c.Corrects) // i: the first row held after the target when not held
		if ok {
			if t.rows[i].Revised < c.Seq {
				copied = t.copyRows(copied)
				t.revise(&t.rows[i], c.Content, c.Redacted)
				t.rows[i].Revised = c.Seq
			}
			i++
		}
		if !c.Redacted {
			continue
		}
		for k := i; k < len(t.rows) && t.rows[k].Seq < c.Seq; k++ {
			if m := &t.rows[k]; m.Corrects == c.Corrects && (m.Content != "" || !m.Redacted) {
				copied = t.copyRows(copied)
				t.revise(&t.rows[k], "", true)
			}
		}
	}
}

// copyRows gives the tail a copy of its rows unless copied, and reports true; t.mu is
// held.
func (t *tail) copyRows(copied bool) bool {
	if !copied {
		t.rows = append(t.rows[:0:0], t.rows...)
	}
	return true
}

// revise sets m's content and Redacted, keeping the tail's byte count; t.mu is held.
func (t *tail) revise(m *transcript.Message, content string, redacted bool) {
	t.bytes -= rowBytes(m)
	m.Content, m.Redacted = content, redacted
	t.bytes += rowBytes(m)
}

// find returns the index of the held row seq and true, if the tail holds it, else the
// index of the first row held after it and false; t.mu is held.
func (t *tail) find(seq transcript.Sequence) (int, bool) {
	return slices.BinarySearchFunc(t.rows, seq, func(m transcript.Message, s transcript.Sequence) int { return cmp.Compare(m.Seq, s) })
}
