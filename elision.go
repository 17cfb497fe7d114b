package transcript

// Elision stands for rows of a view that its viewer may not read: a run of asides, next to
// each other in sequence order among the view's messages, with the same readers. It holds
// no content.
type Elision struct {
	From    Sequence `json:"from"`    // oldest elided row
	Through Sequence `json:"through"` // newest elided row
	Count   int      `json:"count"`   // elided rows it stands for
	// Readers are who may read the rows besides the operator: their Readers(), with the
	// labels of the newest row. Like the existence of the rows, their readers and the labels
	// their writers gave them are shown to the viewer who may not read them.
	Readers []Author `json:"readers"`
}

// elide groups elided rows among the messages of a view: rows, which must all be asides, and
// msgs are both in ascending Seq, and each Elision it returns is a maximal run of consecutive rows (no
// message between them) whose readers are the same identities. Every row belongs to
// exactly one Elision. It returns nil when rows is empty.
//
// elide reads only the rows' Seq, Author and Audience: no content reaches an Elision. The
// elisions' Readers share one array: a view costs a few allocations however many it elides.
func elide(rows []*Message, msgs []Message) []Elision {
	if len(rows) == 0 {
		return nil
	}
	var (
		out     = make([]Elision, 0, len(rows))
		readers = make([]Author, 0, 3*len(rows)) // every Elision's Readers, one after the other
		ends    = make([]int, 0, len(rows))      // where each Elision's Readers end in readers
		newest  *Message                         // the newest row of the last Elision
		next    int                              // the first message not yet below the current row
	)
	closeLast := func() {
		readers = newest.appendReaders(readers)
		ends = append(ends, len(readers))
	}
	for i, m := range rows {
		between := false
		for next < len(msgs) && msgs[next].Seq < m.Seq {
			between = true
			next++
		}
		if i > 0 && !between && sameReaders(newest, m) {
			e := &out[len(out)-1]
			e.Through, e.Count = m.Seq, e.Count+1
			newest = m
			continue
		}
		if newest != nil {
			closeLast()
		}
		out = append(out, Elision{From: m.Seq, Through: m.Seq, Count: 1})
		newest = m
	}
	closeLast()
	start := 0
	for i, end := range ends { // readers may have moved while it grew: slice it at the end
		out[i].Readers = readers[start:end:end]
		start = end
	}
	return out
}

// elided collects, during a walk, the rows a view elides: non-blank rows at the view's
// level that the viewer may not read. It keeps copies without content, never pointers into
// the walk's pages. The zero value is ready; on a desk without asides it never allocates.
type elided struct {
	rows []Message // newest first, their Content let go
}

func (e *elided) add(m *Message) {
	if e.rows == nil {
		e.rows = make([]Message, 0, 16) // one allocation for most views
	}
	c := *m
	c.Content = "" // elide reads no content
	e.rows = append(e.rows, c)
}

// above returns the elisions of the collected rows newer than floor among msgs, the view's
// result in ascending Seq. Call it once, at the walk's end.
func (e *elided) above(floor Sequence, msgs []Message) []Elision {
	n := 0
	for n < len(e.rows) && e.rows[n].Seq > floor {
		n++
	}
	if n == 0 {
		return nil
	}
	rows := make([]*Message, n)
	for i := range n {
		rows[n-1-i] = &e.rows[i] // ascending
	}
	return elide(rows, msgs)
}
