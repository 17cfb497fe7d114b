package storage

import (
	"cmp"
	"slices"

	"github.com/sharedesk/transcript"
)

// checkBatchParent reports whether parent may be the Parent (or the Corrects) of the i-th
// (0-based) message of a batch (i is -1 for a single append): a Sequence made by
// transcript.BatchParent must name an earlier message of the batch. Any other is accepted
// here: Settle checks it against the desk. The error matches transcript.ErrInvalidMessage
// and transcript.ErrNoParent.
func checkBatchParent(parent transcript.Sequence, i int) error {
	j, ok := parent.BatchIndex()
	switch {
	case !ok:
		return nil
	case i < 0:
		return Invalidf(transcript.ErrNoParent, "parent BatchParent(%d) outside a batch (only a batch append resolves one)", j)
	case j >= i:
		return Invalidf(transcript.ErrNoParent, "parent BatchParent(%d) is batch message %d, not an earlier message of the batch", j, j)
	}
	return nil
}

// Settlement is what Batch.Settle decides for one append.
type Settlement struct {
	// Rows holds every message as the append returns it, in order: a new row as stored, a
	// replayed one as the desk holds it.
	Rows []transcript.Message
	// Added holds the new rows to insert, in order, with the corrections of the append
	// applied to those of them that later messages correct. It shares Rows' array when no
	// message is a replay.
	Added []transcript.Message
	// Revisions holds what the append's corrections change in rows stored before it, one
	// for each such row, ascending Target. A log writes them in the transaction that
	// inserts Added.
	Revisions []Revision
}

// Revision is what corrections change in a stored row: its Content and Revised become
// these; when Redacted, its content and that of every correction of it stored before the
// append are erased, and Redacted is set on each of them.
type Revision struct {
	Target   transcript.Sequence // the corrected row
	Content  string              // its content now: the newest edit's, or "" when Redacted
	Redacted bool
	Revised  transcript.Sequence // the newest correction applied to it: its Revised now
}

// Apply writes r into m, a row the desk stored before the append: its target takes r's
// Content, Redacted and Revised, and, when r is a redaction, a correction of the target is
// erased (Content "", Redacted set). Any other row is left alone. A store that keeps its
// rows in memory applies each Revision to its rows so.
func (r Revision) Apply(m *transcript.Message) {
	switch {
	case m.Seq == r.Target:
		m.Content, m.Redacted, m.Revised = r.Content, r.Redacted, r.Revised
	case r.Redacted && m.Corrects == r.Target:
		m.Content, m.Redacted = "", true
	}
}

// settler is one Batch.Settle call's state.
type settler struct {
	msgs   []transcript.Message
	base   transcript.Sequence
	stored map[transcript.Sequence]transcript.Message
	rows   []transcript.Message
	next   transcript.Sequence // the Seq of the next new row
	// fresh[k] is the index in msgs of the new row base+1+k, once a message is skipped
	fresh []int
	// revised holds the stored rows the batch corrected, as corrected, by Seq.
	revised map[transcript.Sequence]*transcript.Message
	// corrections holds the indexes in rows of the new corrections, by target.
	corrections map[transcript.Sequence][]int
	restored    bool // the batch's Restore
}

// find returns the row seq names for the i-th message, as settled so far: an earlier
// message of the batch (by BatchParent or by its new Seq) or a stored row; nil when there
// is none. A seq not older than the message's row is an error.
func (s *settler) find(seq transcript.Sequence, i int, what string) (*transcript.Message, error) {
	j, batch := seq.BatchIndex()
	switch {
	case batch:
		if err := checkBatchParent(seq, i); err != nil {
			return nil, err
		}
		if r, ok := s.revised[s.rows[j].Seq]; ok { // a replayed row the batch corrected
			return r, nil
		}
		return &s.rows[j], nil
	case seq == 0:
		return nil, nil
	case seq >= s.next && seq > s.base && s.next == s.base+1:
		return nil, Invalidf(transcript.ErrNoParent, "%s %d is not a row of the desk (its newest row is %d)", what, seq, s.base)
	case seq >= s.next:
		return nil, Invalidf(transcript.ErrNoParent, "%s %d is not older than the message, which would be row %d (the desk's newest row is %d)", what, seq, s.next, s.base)
	case seq > s.base:
		k := int(seq - s.base - 1)
		if s.fresh != nil {
			k = s.fresh[k]
		}
		return &s.rows[k], nil
	}
	if r, ok := s.revised[seq]; ok {
		return r, nil
	}
	p, ok := s.stored[seq]
	if !ok {
		return nil, nil
	}
	return &p, nil
}

// decide settles the i-th message, m.
func (s *settler) decide(i int, m transcript.Message, present map[string]*transcript.Message) error {
	var held *transcript.Message
	if m.Key != "" {
		held = present[m.Key]
	}
	related, err := s.related(i, m)
	if err != nil {
		return err
	}
	if m.IsCorrection() {
		m.Corrects = s.seqOf(m.Corrects, related)
		err = s.decideCorrection(&m, related, held)
	} else {
		if related != nil {
			m.Parent = related.Seq
		}
		m.Audience, err = m.ResolveAudience(related)
	}
	if err != nil {
		return err
	}
	if held != nil {
		if r, ok := s.revised[held.Seq]; ok { // corrected by an earlier message of the batch
			held = r
		}
		if err := MatchKey(*held, m); err != nil {
			return err
		}
		s.skip(i)
		s.rows[i] = *held
		return nil
	}
	m.Seq = s.next
	s.next++
	if s.restored && m.Revised != 0 && m.Revised <= m.Seq {
		return Invalidf(transcript.ErrInvalidMessage, "revised %d is not newer than the row, row %d", m.Revised, m.Seq)
	}
	if s.fresh != nil {
		s.fresh = append(s.fresh, i)
	}
	s.rows[i] = m
	switch {
	case m.IsCorrection() && s.restored && related.Seq > s.base:
		return checkRestored(m, related)
	case m.IsCorrection() && s.restored && related.Redacted && !m.Redacted:
		return Invalidf(transcript.ErrInvalidMessage, "correction %d of row %d, which was redacted, is not erased: an export erases every correction of an erased row", m.Seq, related.Seq)
	case m.IsCorrection():
		s.apply(i, related)
	}
	return nil
}

// checkRestored reports whether the restored correction c agrees with its target, a row
// restored with it, as the export holds it: the target was revised by c or a later
// correction, c is erased exactly when the target is, and the newest edit's content is the
// target's.
func checkRestored(c transcript.Message, target *transcript.Message) error {
	switch {
	case target.Revised < c.Seq:
		return Invalidf(transcript.ErrInvalidMessage, "row %d, which correction %d corrects, has revised %d: an export's correction is restored with the row it corrects, as the export holds it", target.Seq, c.Seq, target.Revised)
	case c.Redacted != target.Redacted:
		return Invalidf(transcript.ErrInvalidMessage, "correction %d is redacted %v, row %d, which it corrects, redacted %v: every correction of an erased row is erased, and only those", c.Seq, c.Redacted, target.Seq, target.Redacted)
	case target.Revised == c.Seq && c.Content != target.Content:
		return Invalidf(transcript.ErrInvalidMessage, "row %d does not hold the content of its newest correction, row %d", target.Seq, c.Seq)
	}
	return nil
}

// checkRevised reports the first restored row whose Revised names no correction of it
// among the new rows, as the index of its message.
func (s *settler) checkRevised() (int, error) {
	var bySeq map[transcript.Sequence]*transcript.Message
	for i := range s.rows {
		r := &s.rows[i]
		if r.Revised == 0 || r.Seq <= s.base {
			continue
		}
		if bySeq == nil {
			bySeq = make(map[transcript.Sequence]*transcript.Message, len(s.rows))
			for k := range s.rows {
				bySeq[s.rows[k].Seq] = &s.rows[k]
			}
		}
		if c, ok := bySeq[r.Revised]; !ok || c.Seq <= s.base || c.Corrects != r.Seq {
			return i, Invalidf(transcript.ErrInvalidMessage, "revised %d of row %d names no correction of it among the rows restored with it", r.Revised, r.Seq)
		}
	}
	return -1, nil
}

// related returns the row m's Parent, or for a correction its Corrects, names; nil for none.
func (s *settler) related(i int, m transcript.Message) (*transcript.Message, error) {
	if m.IsCorrection() {
		target, err := s.find(m.Corrects, i, "target")
		if err != nil { // the correction rule's refusal of a target that is no row
			_, err = m.ResolveCorrection(nil)
			return nil, err
		}
		return target, nil
	}
	p, err := s.find(m.Parent, i, "parent")
	if err == nil && p == nil && m.Parent != 0 {
		err = Invalidf(transcript.ErrNoParent, "parent %d is not a row of the desk", m.Parent)
	}
	return p, err
}

// seqOf returns the Seq a reference resolves to: related's, or seq itself when it names
// no row.
func (s *settler) seqOf(seq transcript.Sequence, related *transcript.Message) transcript.Sequence {
	if related != nil {
		return related.Seq
	}
	return seq
}

// decideCorrection applies the correction rule (transcript.Message.ResolveCorrection) to m
// against target, setting m's audience: a correction whose key present holds is matched
// once its author may read the target (the target may have been redacted since); a restored
// one may correct a redacted target (transcript.WriteRules).
func (s *settler) decideCorrection(m *transcript.Message, target, held *transcript.Message) error {
	var err error
	m.Audience, err = transcript.WriteRules{Restore: s.restored, Replay: held != nil}.ResolveCorrection(*m, target)
	return err
}

// skip notes that the i-th message is a replay, which takes no Seq.
func (s *settler) skip(i int) {
	if s.fresh != nil {
		return
	}
	s.fresh = make([]int, 0, len(s.msgs))
	for k := range i { // every message before the first skipped one is new
		s.fresh = append(s.fresh, k)
	}
}

// apply applies the new correction rows[i] (see Revise) to target, a new row of the batch or
// a stored row, whose corrected copy the settler keeps, and to the earlier corrections of
// target the batch holds.
func (s *settler) apply(i int, target *transcript.Message) {
	c := s.rows[i]
	if target.Seq <= s.base {
		if _, ok := s.revised[target.Seq]; !ok {
			if s.revised == nil {
				s.revised = make(map[transcript.Sequence]*transcript.Message)
			}
			t := *target
			target = &t
			s.revised[t.Seq] = target
		}
	}
	Revise(target, &c)
	if c.Redacted {
		for _, k := range s.corrections[target.Seq] {
			Revise(&s.rows[k], &c)
		}
	}
	if s.corrections == nil {
		s.corrections = make(map[transcript.Sequence][]int)
	}
	s.corrections[target.Seq] = append(s.corrections[target.Seq], i)
}

func (s *settler) settlement() Settlement {
	for i := range s.rows { // a replayed row as the batch leaves it
		r := &s.rows[i]
		if r.Seq > s.base {
			continue
		}
		if t, ok := s.revised[r.Seq]; ok {
			*r = *t
		}
		if t, ok := s.revised[r.Corrects]; ok && r.IsCorrection() && t.Redacted && t.Revised != r.Seq {
			r.Content, r.Redacted = "", true
		}
	}
	out := Settlement{Rows: s.rows, Added: s.rows}
	if s.fresh != nil {
		out.Added = make([]transcript.Message, len(s.fresh))
		for k, i := range s.fresh {
			out.Added[k] = s.rows[i]
		}
	}
	if len(s.revised) > 0 {
		out.Revisions = make([]Revision, 0, len(s.revised))
		for _, t := range s.revised {
			out.Revisions = append(out.Revisions, Revision{Target: t.Seq, Content: t.Content, Redacted: t.Redacted, Revised: t.Revised})
		}
		slices.SortFunc(out.Revisions, func(a, b Revision) int { return cmp.Compare(a.Target, b.Target) })
	}
	return out
}
