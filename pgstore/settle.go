package pgstore

import "github.com/sharedesk/transcript"

// settle decides msgs, the prepared messages of one append, in order, above base, the
// desk's head before them: for each its parent, its audience by the reply rule and, when
// its Key names a stored row, whether it is that row again. It returns every message as the
// append returns it, and the new rows, the ones to insert (rows itself when no message is
// skipped); or the index of the first message refused, and why. msgs are not modified: an
// append that fails to settle its rows ahead settles them again under the lock.
//
// A message's parent is, by its Parent: none (0); an earlier message of msgs, as settled (a
// transcript.BatchParent, replaced with that message's Seq; or a Seq above base, a new row
// of the append); or stored[Parent], the stored row it names. A Parent that is not older
// than the message's row, or not found, is ErrParent. The reply rule is
// transcript.ResolveAudience, against the parent as settled. Then a message whose Key
// present holds (the stored rows with the append's keys, by key) is handed with it to
// transcript.MatchKey: the same message is skipped, settled as the stored row, and takes no
// Seq; a different one fails the append with MatchKey's *transcript.KeyConflictError. Every
// other message is a new row, numbered base+1, base+2, ... in order, its Audience a new
// slice (nil for a desk row).
//
// A message checked against a present key is checked as the next new row would be, so a
// message is refused for what is wrong with it before it is matched: the order memlog
// follows.
func settle(msgs []transcript.Message, base transcript.Sequence, stored map[transcript.Sequence]transcript.Message, present map[string]*transcript.Message) (rows, added []transcript.Message, _ int, _ error) {
	rows = make([]transcript.Message, len(msgs))
	var fresh []int // fresh[k] is the index in msgs of the new row base+1+k, once a row is skipped
	next := base + 1
	for i, m := range msgs {
		var parent *transcript.Message
		j, batch := m.Parent.BatchIndex()
		switch {
		case batch:
			parent = &rows[j]
			m.Parent = parent.Seq
		case m.Parent == 0:
			// a root
		case m.Parent >= next:
			return nil, nil, i, transcript.Invalidf(ErrParent, "parent %d is not an older row of the desk (the new row is %d)", m.Parent, next)
		case m.Parent > base:
			k := int(m.Parent - base - 1)
			if fresh != nil {
				k = fresh[k]
			}
			parent = &rows[k]
		default:
			p, ok := stored[m.Parent]
			if !ok {
				return nil, nil, i, transcript.Invalidf(ErrParent, "parent %d is not a row of the desk", m.Parent)
			}
			parent = &p
		}
		audience, err := transcript.ResolveAudience(m, parent)
		if err != nil {
			return nil, nil, i, err
		}
		m.Audience = audience
		if held, ok := present[m.Key]; ok && m.Key != "" {
			if err := transcript.MatchKey(*held, m); err != nil {
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
	added = make([]transcript.Message, len(fresh))
	for k, i := range fresh {
		added[k] = rows[i]
	}
	return rows, added, -1, nil
}
