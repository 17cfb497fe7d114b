package sqlitestore

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sharedesk/transcript"
)

// The range of At a Store keeps: the years RFC 3339 (and so JSON) can write.
var (
	minAt = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	maxAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
)

// checkDesk reports whether an append may write to desk: transcript.ValidateDesk accepts
// its name. The error matches transcript.ErrInvalidMessage and transcript.ErrInvalidDesk.
func checkDesk(desk string) error {
	if err := transcript.ValidateDesk(desk); err != nil {
		return transcript.InvalidMessage(err)
	}
	return nil
}

// checkText reports whether s, a stored text, is valid UTF-8 without a NUL byte. SQLite could
// keep a NUL, but PostgreSQL's text type cannot, and pgstore refuses it: refusing it here too
// keeps every desk of one store storable in the other (transcript export, then import).
func checkText(what, s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%w: %s is not valid UTF-8", transcript.ErrInvalidMessage, what)
	}
	return checkNUL(what, s)
}

// checkNUL reports whether s holds no NUL byte; checkText says why.
func checkNUL(what, s string) error {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return fmt.Errorf("%w: %s holds a NUL byte at offset %d, which the stores refuse (PostgreSQL text cannot hold one)", transcript.ErrInvalidMessage, what, i)
	}
	return nil
}

// checkMessage reports what is wrong with m as the index-th message of a batch (index -1:
// a single Append), as far as m alone can tell: transcript.ValidateNew, content, the ids and
// labels of the author and of the audience's entries as checkText wants them, content
// within the limit, At within years 1 to 9999, and a BatchParent only inside a batch,
// naming an earlier message of it. The Key needs no check of its own: ValidateNew refuses a
// key that is not UTF-8 or holds an unprintable character, a NUL byte among them, so every
// key is text checkText accepts. Whether a sequence Parent exists and is older, and the
// reply rule, are for the append's transaction to check. The error matches
// transcript.ErrInvalidMessage.
func (s *Store) checkMessage(m transcript.Message, index int) error {
	if err := transcript.ValidateNew(m); err != nil {
		return err
	}
	if err := checkNUL("content", m.Content); err != nil { // ValidateNew checked its UTF-8
		return err
	}
	if err := checkText("author id", m.Author.ID); err != nil {
		return err
	}
	if err := checkText("author label", m.Author.Label); err != nil {
		return err
	}
	for i, a := range m.Audience {
		if err := checkText(fmt.Sprintf("audience entry %d's id", i), a.ID); err != nil {
			return err
		}
		if err := checkText(fmt.Sprintf("audience entry %d's label", i), a.Label); err != nil {
			return err
		}
	}
	switch {
	case len(m.Content) > s.maxContent:
		return fmt.Errorf("%w: content of %d bytes is over the limit of %d bytes", transcript.ErrInvalidMessage, len(m.Content), s.maxContent)
	case !m.At.IsZero() && (m.At.Before(minAt) || !m.At.Before(maxAt)):
		return fmt.Errorf("%w: at %v is outside the years 1 to 9999", transcript.ErrInvalidMessage, m.At)
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
