package sqlitestore

import "github.com/sharedesk/transcript"

// checkDesk reports whether an append may write to desk: transcript.ValidateDesk accepts
// its name. The error matches transcript.ErrInvalidMessage and transcript.ErrInvalidDesk.
func checkDesk(desk string) error {
	if err := transcript.ValidateDesk(desk); err != nil {
		return transcript.InvalidMessage(err)
	}
	return nil
}

// checkMessage reports what is wrong with m as the index-th message of a batch (index -1:
// a single Append), as far as m alone can tell: transcript.ValidateNewWithin, with the
// store's content limit, and a BatchParent only inside a batch, naming an earlier message
// of it. Whether a sequence Parent exists and is older, and the reply rule, are for the
// append's transaction to check. The error matches transcript.ErrInvalidMessage.
func (s *Store) checkMessage(m transcript.Message, index int) error {
	if err := transcript.ValidateNewWithin(m, s.maxContent); err != nil {
		return err
	}
	if j, ok := m.Parent.BatchIndex(); ok {
		switch {
		case index < 0:
			return transcript.Invalidf(transcript.ErrNoParent, "parent BatchParent(%d) outside a batch", j)
		case j >= index:
			return transcript.Invalidf(transcript.ErrNoParent, "parent BatchParent(%d) does not name an earlier message of the batch", j)
		}
	}
	return nil
}

// checkParent reports whether parent, a sequence (not a BatchParent), can be the parent of
// a new row with Seq seq in a desk whose newest row before the append was head. Sequences
// are dense (every desk holds exactly the rows 1 to head, and a batch's rows take head+1
// on), so parent exists and is older exactly when it is below seq.
func checkParent(parent, seq, head transcript.Sequence) error {
	if parent < seq {
		return nil
	}
	if parent > head && seq == head+1 {
		return transcript.Invalidf(transcript.ErrNoParent, "parent %d is not a row of the desk (its newest row is %d)", parent, head)
	}
	return transcript.Invalidf(transcript.ErrNoParent, "parent %d is not older than the message, which would be row %d (the desk's newest row is %d)", parent, seq, head)
}
