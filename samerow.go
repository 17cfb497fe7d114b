package transcript

import "slices"

// SameRow reports whether m and o, two reads of a row under one Seq, are the same row: the
// same author, parent, target, key, time and audience, and, when neither was corrected or
// erased, the same content. A correction changes only a row's Content, Redacted and
// Revised, so a row read again after one is still the same row; a row of a desk deleted and
// made anew under the same name, at the same Seq, is not.
func (m *Message) SameRow(o *Message) bool {
	if m.Seq != o.Seq || m.Parent != o.Parent || m.Corrects != o.Corrects || m.Key != o.Key ||
		m.Author.Kind != o.Author.Kind || m.Author.ID != o.Author.ID || !m.At.Equal(o.At) ||
		!slices.EqualFunc(m.Audience, o.Audience, func(x, y Author) bool { return x.Kind == y.Kind && x.ID == y.ID }) {
		return false
	}
	if m.Revised != 0 || o.Revised != 0 || m.Redacted || o.Redacted {
		return true // corrected since, or erased: a redaction erases its target's earlier corrections
	}
	return m.Content == o.Content
}
