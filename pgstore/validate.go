package pgstore

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sharedesk/transcript"
)

// checkDesk reports whether an append may write to the desk named name:
// transcript.ValidateDesk accepts it (and so PostgreSQL's text holds it). The error matches
// transcript.ErrInvalidMessage and ErrDeskName.
func checkDesk(name string) error {
	if err := transcript.ValidateDesk(name); err != nil {
		return transcript.InvalidMessage(err)
	}
	return nil
}

// prepare validates the i-th message of an append (i is -1 for Append) and returns it ready
// to store: At stamped with now when zero, in UTC and rounded down to the microsecond, as
// PostgreSQL keeps it. What a store may keep is transcript.ValidateNewWithin's rule, with
// the store's content limit. Its Seq, a BatchParent's Parent and the Audience it is stored
// with (the reply rule's, see resolveAudiences) are set later. When restored, m is a row an
// export wrote, checked by transcript.ValidateRestoredWithin instead.
func (s *Store) prepare(m transcript.Message, i int, now time.Time, restored bool) (transcript.Message, error) {
	validate := transcript.ValidateNewWithin
	if restored {
		validate = transcript.ValidateRestoredWithin
	}
	if err := validate(m, s.maxContent); err != nil {
		return m, err
	}
	if err := transcript.CheckBatchParent(m.Parent, i); err != nil {
		return m, err
	}
	if err := transcript.CheckBatchParent(m.Corrects, i); err != nil {
		return m, err
	}
	if m.At.IsZero() {
		m.At = now
	}
	m.At = m.At.Truncate(time.Microsecond).UTC()
	return m, nil
}

// storable reports whether s is text PostgreSQL can hold: what transcript.ValidateText
// accepts.
func storable(s string) bool { return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 }
