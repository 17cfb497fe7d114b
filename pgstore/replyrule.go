package pgstore

import "github.com/sharedesk/transcript"

// resolveAudiences applies the reply rule to rows, the messages of one append in order, and
// returns the Audience each is to be stored with, as transcript.ResolveAudience gives it (a
// new slice, or nil for a desk row); or the index of the first row refused, and why. rows
// are not modified.
//
// A row's parent is, by its Parent: none (0); an earlier row of rows, as resolved (a
// transcript.BatchParent, or a Seq above base, the desk's head before the rows); or
// stored[Parent], the stored row it names. A Parent that is not older than its row, or not
// found, is ErrParent. rows must hold their Seqs when any Parent is a plain Seq; otherwise
// base and stored play no part.
func resolveAudiences(rows []transcript.Message, base transcript.Sequence, stored map[transcript.Sequence]transcript.Message) ([][]transcript.Author, int, error) {
	audiences := make([][]transcript.Author, len(rows))
	for i, m := range rows {
		var parent *transcript.Message
		j, batch := m.Parent.BatchIndex()
		switch {
		case batch:
			parent = resolvedRow(rows, audiences, j)
		case m.Parent == 0:
			// a root
		case m.Parent >= m.Seq:
			return nil, i, invalidf(ErrParent, "parent %d is not an older row of the desk (the new row is %d)", m.Parent, m.Seq)
		case m.Parent > base:
			parent = resolvedRow(rows, audiences, int(m.Parent-base-1))
		default:
			p, ok := stored[m.Parent]
			if !ok {
				return nil, i, invalidf(ErrParent, "parent %d is not a row of the desk", m.Parent)
			}
			parent = &p
		}
		audience, err := transcript.ResolveAudience(m, parent)
		if err != nil {
			return nil, i, err
		}
		audiences[i] = audience
	}
	return audiences, -1, nil
}

// resolvedRow returns row j of rows as the reply rule sees it once resolved: with
// audiences[j].
func resolvedRow(rows []transcript.Message, audiences [][]transcript.Author, j int) *transcript.Message {
	p := rows[j]
	p.Audience = audiences[j]
	return &p
}
