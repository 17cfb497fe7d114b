package transcript

// CheckBatchParent reports whether parent may be the Parent of the i-th (0-based) message
// of a batch (i is -1 for a single append): a Parent made by BatchParent must name an
// earlier message of the batch. Any other parent is accepted here: SettleBatch checks it
// against the desk. The error matches ErrInvalidMessage and ErrNoParent.
func CheckBatchParent(parent Sequence, i int) error {
	j, ok := parent.BatchIndex()
	switch {
	case !ok:
		return nil
	case i < 0:
		return Invalidf(ErrNoParent, "parent BatchParent(%d) outside a batch (only a batch append resolves one)", j)
	case j >= i:
		return Invalidf(ErrNoParent, "parent BatchParent(%d) is batch message %d, not an earlier message of the batch", j, j)
	}
	return nil
}

// SettleBatch decides msgs, the messages of one append (ValidateNew accepts each), in order,
// as the rows after base, the desk's newest row before them: for each its parent, its
// audience by the reply rule and, when its Key names a stored row, whether it is that row
// again. It returns every message as the append returns it, and the new rows, the ones to
// insert, in order (rows itself when no message is skipped); or the index of the first
// message refused, and why. A log calls it inside the transaction that holds the desk's
// head; msgs are not modified.
//
// A message's parent is, by its Parent: none (0); an earlier message of msgs, as settled (a
// BatchParent, replaced with that message's Seq; or a Seq above base, a new row of the
// append); or stored[Parent], the stored row it names, which the log reads first (every
// Parent from 1 to base). A Parent that is not older than the message's row, or not found,
// is refused with ErrNoParent; so is a BatchParent that CheckBatchParent refuses. The reply
// rule is ResolveAudience, against the parent as settled. Then a message whose Key present
// holds (the stored rows with the append's keys, by key) is handed with it to MatchKey: the
// same message is skipped, settled as the stored row, and takes no Seq; a different one
// fails the append with MatchKey's *KeyConflictError. Every other message is a new row,
// numbered base+1, base+2, ... in order, its Audience a new slice (nil for a desk row).
//
// A message checked against a present key is checked as the next new row would be, so a
// message is refused for what is wrong with it before it is matched. Errors name rows by
// their Seq only.
func SettleBatch(msgs []Message, base Sequence, stored map[Sequence]Message, present map[string]*Message) (rows, added []Message, index int, err error) {
	rows = make([]Message, len(msgs))
	var fresh []int // fresh[k] is the index in msgs of the new row base+1+k, once a row is skipped
	next := base + 1
	for i, m := range msgs {
		var parent *Message
		j, batch := m.Parent.BatchIndex()
		switch {
		case batch:
			if err := CheckBatchParent(m.Parent, i); err != nil {
				return nil, nil, i, err
			}
			parent = &rows[j]
			m.Parent = parent.Seq
		case m.Parent == 0:
			// a root
		case m.Parent >= next && m.Parent > base && next == base+1:
			return nil, nil, i, Invalidf(ErrNoParent, "parent %d is not a row of the desk (its newest row is %d)", m.Parent, base)
		case m.Parent >= next:
			return nil, nil, i, Invalidf(ErrNoParent, "parent %d is not older than the message, which would be row %d (the desk's newest row is %d)", m.Parent, next, base)
		case m.Parent > base:
			k := int(m.Parent - base - 1)
			if fresh != nil {
				k = fresh[k]
			}
			parent = &rows[k]
		default:
			p, ok := stored[m.Parent]
			if !ok {
				return nil, nil, i, Invalidf(ErrNoParent, "parent %d is not a row of the desk", m.Parent)
			}
			parent = &p
		}
		audience, err := ResolveAudience(m, parent)
		if err != nil {
			return nil, nil, i, err
		}
		m.Audience = audience
		if held, ok := present[m.Key]; ok && m.Key != "" {
			if err := MatchKey(*held, m); err != nil {
				return nil, nil, i, err
			}
			if fresh == nil {
				fresh = make([]int, 0, len(msgs))
				for k := range i { // every message before the first skipped one is new
					fresh = append(fresh, k)
				}
			}
			rows[i] = *held
			continue
		}
		m.Seq = next
		next++
		if fresh != nil {
			fresh = append(fresh, i)
		}
		rows[i] = m
	}
	if fresh == nil {
		return rows, rows, -1, nil
	}
	added = make([]Message, len(fresh))
	for k, i := range fresh {
		added[k] = rows[i]
	}
	return rows, added, -1, nil
}
