package pgstore

import (
	"fmt"
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
// PostgreSQL keeps it. A given At must lie in the years 1 to 9999 (as in sqlitestore, and
// as time.Time's JSON form requires). Its audience's ids and labels must be text PostgreSQL
// can hold, like the author's. Its Seq, a BatchParent's Parent and the Audience it is stored
// with (the reply rule's, see resolveAudiences) are set later.
func (s *Store) prepare(m transcript.Message, i int, now time.Time) (transcript.Message, error) {
	if err := transcript.ValidateNew(m); err != nil {
		return m, err
	}
	if len(m.Content) > s.maxContent {
		return m, transcript.Invalidf(ErrContentTooLarge, "content is %d bytes, over the limit of %d", len(m.Content), s.maxContent)
	}
	if err := checkText("content", m.Content, ErrText); err != nil {
		return m, err
	}
	if err := checkText("author id", m.Author.ID, ErrText); err != nil {
		return m, err
	}
	if err := checkText("author label", m.Author.Label, ErrText); err != nil {
		return m, err
	}
	if err := checkAudienceText(m.Audience); err != nil {
		return m, err
	}
	if j, ok := m.Parent.BatchIndex(); ok {
		switch {
		case i < 0:
			return m, transcript.Invalidf(ErrParent, "parent is a transcript.BatchParent, which only AppendBatch resolves")
		case j >= i:
			return m, transcript.Invalidf(ErrParent, "parent is batch message %d, not an earlier message of the batch", j)
		}
	}
	if m.At.IsZero() {
		m.At = now
	} else if y := m.At.UTC().Year(); y < 1 || y > 9999 {
		return m, transcript.Invalidf(ErrAt, "at %v is outside the years 1 to 9999", m.At)
	}
	m.At = m.At.Truncate(time.Microsecond).UTC()
	return m, nil
}

// checkAudienceText reports whether the ids and labels audience lists are text PostgreSQL
// can hold, as checkText does, naming the first entry that is not.
func checkAudienceText(audience []transcript.Author) error {
	for i, a := range audience {
		if storable(a.ID) && storable(a.Label) {
			continue
		}
		if err := checkText(fmt.Sprintf("audience entry %d's id", i), a.ID, ErrText); err != nil {
			return err
		}
		return checkText(fmt.Sprintf("audience entry %d's label", i), a.Label, ErrText)
	}
	return nil
}

// storable reports whether s is text PostgreSQL can hold: what checkText checks.
func storable(s string) bool { return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 }

// checkText reports whether s is valid UTF-8 without a NUL byte: PostgreSQL's text type
// holds neither invalid UTF-8 nor NUL (U+0000), so such a string could not be stored as is.
func checkText(what, s string, kind error) error {
	if !utf8.ValidString(s) {
		return transcript.Invalidf(kind, "%s is not valid UTF-8", what)
	}
	if i := strings.IndexByte(s, 0); i >= 0 {
		return transcript.Invalidf(kind, "%s holds a NUL byte at offset %d, which PostgreSQL text cannot store", what, i)
	}
	return nil
}
