package transcript

import (
	"cmp"
	"fmt"
	"slices"
)

// IsAside reports whether m is an aside: a row only its readers (see Readers) and the
// operator may read.
func (m Message) IsAside() bool { return len(m.Audience) > 0 }

// ReadableBy reports whether viewer may read m: m is not an aside, or viewer is the
// operator, m's author or listed in m's Audience (identity by Kind and ID, as Author.Same).
// A viewer that fails Author.Validate, the zero Author among them, reads desk rows only.
func (m Message) ReadableBy(viewer Author) bool {
	return len(m.Audience) == 0 || m.asideReadableBy(viewer)
}

// asideReadableBy is ReadableBy for a row whose Audience is not empty. Keeping it apart
// keeps ReadableBy small enough to inline where a walk meets a desk row.
func (m *Message) asideReadableBy(viewer Author) bool {
	if !viewer.valid() {
		return false
	}
	if viewer.Kind == KindOperator || viewer.Same(m.Author) {
		return true
	}
	for _, a := range m.Audience {
		if a.Same(viewer) {
			return true
		}
	}
	return false
}

// Readers returns who may read the aside m besides the operator: its author and its
// Audience, each identity once, in canonical order (by Kind, then ID). Of an identity listed
// twice, the author's label is kept, else the first listed. It returns nil when m is not an
// aside. The slice is new: the caller owns it.
func (m Message) Readers() []Author {
	if len(m.Audience) == 0 {
		return nil
	}
	return m.appendReaders(make([]Author, 0, len(m.Audience)+1))
}

// appendReaders appends Readers() to dst and returns the extended slice, so that a caller
// listing the readers of many rows can keep them in one array.
func (m *Message) appendReaders(dst []Author) []Author {
	start := len(dst)
	dst = append(dst, m.Author)
	dst = append(dst, m.Audience...)
	slices.SortStableFunc(dst[start:], compareIdentity)
	return dst[:start+len(slices.CompactFunc(dst[start:], Author.Same))]
}

// compareIdentity orders authors canonically: by Kind, then by ID. Labels play no part.
func compareIdentity(a, b Author) int {
	if c := cmp.Compare(a.Kind, b.Kind); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// sameReaders reports whether the asides a and b have the same readers (Readers, by
// identity) without building either list: the walk compares neighbouring elided rows with
// it, and allocating there would cost an allocation per row.
func sameReaders(a, b *Message) bool {
	return readersWithin(a, b) && readersWithin(b, a)
}

// readersWithin reports whether every reader of a is a reader of b.
func readersWithin(a, b *Message) bool {
	if !isReaderOf(a.Author, b) {
		return false
	}
	for _, x := range a.Audience {
		if !isReaderOf(x, b) {
			return false
		}
	}
	return true
}

// isReaderOf reports whether x is m's author or listed in m's Audience.
func isReaderOf(x Author, m *Message) bool {
	if x.Same(m.Author) {
		return true
	}
	for _, a := range m.Audience {
		if x.Same(a) {
			return true
		}
	}
	return false
}

// validateAudience reports what is wrong with the Audience a writer lists for a new row by
// author: an invalid entry, the author itself, an identity listed twice, or more than
// MaxAudience entries. The error is an *InvalidMessageError of ErrInvalidAudience, and
// matches ErrInvalidAuthor too for an invalid entry; it names entries by position and
// identity, which the writer chose.
func validateAudience(author Author, audience []Author) error {
	if len(audience) > MaxAudience {
		return invalidf(ErrInvalidAudience, "audience of %d entries, over the limit of %d", len(audience), MaxAudience)
	}
	for i, a := range audience {
		if err := a.Validate(); err != nil {
			return &InvalidMessageError{Kind: ErrInvalidAudience, Reason: fmt.Sprintf("audience entry %d: %v", i, err), Cause: err}
		}
		if a.Same(author) {
			return invalidf(ErrInvalidAudience, "audience entry %d (%s) is the author itself", i, a)
		}
		for _, b := range audience[:i] {
			if a.Same(b) {
				return invalidf(ErrInvalidAudience, "audience lists %s twice", a)
			}
		}
	}
	return nil
}

// ResolveAudience applies the reply rule to m, a new row that Message.ValidateNew accepts,
// and returns the Audience m is stored with, in canonical order (by Kind, then ID), in a
// new slice; nil for a row the whole desk reads. Every log that appends calls it for every
// new row: memlog, sqlitestore and pgstore. parent is the row m replies to, as stored, or
// nil for a root.
//
// The rule, checked in this order, so that a refusal tells an outsider nothing about an
// aside's readers:
//
//   - m's author may not read parent (see ReadableBy): ErrNotReadable;
//   - parent is a correction, which no row replies to: ErrInvalidMessage;
//   - parent is an aside: m is an aside with parent's readers. An empty Audience is filled
//     in with parent.Readers() minus m's author (never refused for its size); any other set
//     of identities is refused (ErrInvalidAudience). A parent whose readers are only m's
//     author leaves no audience to reply to, and is refused too;
//   - otherwise (a root, or a reply to a desk row) m keeps its own Audience: a reply to a
//     desk row may be an aside.
//
// Errors match ErrInvalidMessage as well as the sentinel named, and name parent by its Seq
// only.
func (m Message) ResolveAudience(parent *Message) ([]Author, error) {
	switch {
	case parent == nil:
		return canonicalAudience(m.Audience), nil
	case !parent.ReadableBy(m.Author):
		return nil, invalidf(ErrNotReadable, "parent not readable by the reply's author: row %d", parent.Seq)
	case parent.IsCorrection():
		return nil, invalidf(ErrInvalidMessage, "parent %d is a correction, which no row replies to", parent.Seq)
	case !parent.IsAside():
		return canonicalAudience(m.Audience), nil
	}
	return inheritedAudience(m, parent, "a reply to the aside %d must keep its readers (leave the audience empty to reply to them)")
}

// canonicalAudience returns audience sorted by Kind, then ID, in a new slice; nil when
// audience is empty.
func canonicalAudience(audience []Author) []Author {
	if len(audience) == 0 {
		return nil
	}
	return slices.SortedStableFunc(slices.Values(audience), compareIdentity)
}
