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
// a single Append), as far as m alone can tell: transcript.ValidateNewWithin (restored:
// transcript.ValidateRestoredWithin), with the store's content limit, and a BatchParent (as
// Parent or Corrects) only inside a batch, naming an earlier message of it. Whether a
// sequence Parent or target exists and is older, the reply rule and the correction rule are
// for the append's transaction to check. The error matches transcript.ErrInvalidMessage.
func (s *Store) checkMessage(m transcript.Message, index int, restored bool) error {
	validate := transcript.ValidateNewWithin
	if restored {
		validate = transcript.ValidateRestoredWithin
	}
	if err := validate(m, s.maxContent); err != nil {
		return err
	}
	if err := transcript.CheckBatchParent(m.Parent, index); err != nil {
		return err
	}
	return transcript.CheckBatchParent(m.Corrects, index)
}
