package deskqueue

import "github.com/sharedesk/transcript"

// Heads is desks' newest Seqs waiting for the receiver of both stores' WatchHeads: each desk
// once, with the newest head noted for it, in the order the desks came. A desk deleted
// since the receiver last took a value waits as 0 first, in a value of its own: a head
// noted for it after the deletion, that of the desk made anew under its name, waits for the
// value after that one, so that a receiver always sees the deletion, even when the new
// desk's head is the old one's. The zero Heads is empty and ready to use. It is not safe for
// concurrent use.
type Heads struct {
	q     Queue[string]
	heads map[string]transcript.Sequence // the newest head noted, by desk (0 once deleted, until a head comes)
	gone  map[string]bool                // desks deleted since the last value taken
}

// Len returns how many desks wait.
func (h *Heads) Len() int { return h.q.Len() }

// Set notes desk's head. A head below one noted before, since the desk was last deleted,
// is left out: a head goes down only with a deletion, which Deleted notes, so it is a late
// report.
func (h *Heads) Set(desk string, head transcript.Sequence) {
	if h.heads == nil {
		h.heads = make(map[string]transcript.Sequence)
	}
	if old, ok := h.heads[desk]; ok && !h.gone[desk] && old > head {
		return
	}
	h.heads[desk] = head
	h.q.Add(desk)
}

// Deleted notes that desk was deleted: heads noted before are dropped, and the next value
// maps desk to 0.
func (h *Heads) Deleted(desk string) {
	if h.gone == nil {
		h.gone = make(map[string]bool)
	}
	if h.heads == nil {
		h.heads = make(map[string]transcript.Sequence)
	}
	h.gone[desk] = true
	h.heads[desk] = 0
	h.q.Add(desk)
}

// Value returns the value to send for the desks waiting (Len > 0), in a new map: each desk
// to its head, 0 for a desk deleted. Once the receiver took it, call Taken.
func (h *Heads) Value() map[string]transcript.Sequence {
	m := make(map[string]transcript.Sequence, h.q.Len())
	for _, desk := range h.q.Names() {
		if h.gone[desk] {
			m[desk] = 0
		} else {
			m[desk] = h.heads[desk]
		}
	}
	return m
}

// Taken empties h after the receiver took Value's value, but for the desks deleted and
// noted with a head since: they wait with it for the next value. The heads taken are kept,
// to leave out late ones (Set).
func (h *Heads) Taken() {
	again := make([]string, 0, len(h.gone))
	for desk := range h.gone {
		if h.heads[desk] > 0 {
			again = append(again, desk)
		}
	}
	for h.q.Len() > 0 {
		desk := h.q.First()
		h.q.Pop()
		if h.heads[desk] == 0 {
			delete(h.heads, desk)
		}
	}
	clear(h.gone)
	for _, desk := range again {
		h.q.Add(desk)
	}
}
