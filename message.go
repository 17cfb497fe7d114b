package transcript

import (
	"time"
	"unicode"
	"unicode/utf8"
)

// Sequence is a row's position in one desk's log: assigned by the host, strictly increasing
// within the log. Valid rows have Seq >= 1; 0 means "none" (no parent, no bound, no cursor).
type Sequence uint64

// Message is one row of a desk's log, and one message of a projection.
type Message struct {
	Seq Sequence `json:"seq"`
	// Parent is 0 for a root at channel level; otherwise the row this one directly replies
	// to, which is older (Parent < Seq).
	Parent  Sequence  `json:"parent,omitempty"`
	Author  Author    `json:"author"`
	Content string    `json:"content"`
	At      time.Time `json:"at,omitzero"` // when the host accepted the row; optional
	// Audience is empty for a row the whole desk reads. Otherwise the row is an aside: only
	// its author, the participants listed (identity by Kind and ID; labels are informational)
	// and the operator read it (see ReadableBy). Stores keep it in canonical order, by Kind
	// and then ID. A Message holding an Audience shares that slice when copied: a Log that
	// hands out its own storage must copy it too.
	Audience []Author `json:"audience,omitempty"`
	// Key is empty, or a name the writer chose for the row, unique within its desk: at most
	// MaxKeyLen bytes of printable UTF-8. An append whose Key the desk holds already writes
	// nothing: it returns the stored row when that row is the same message (see storage.MatchKey),
	// and fails with ErrKeyConflict otherwise. A retry after a lost answer is harmless.
	Key string `json:"key,omitempty"`
	// Corrects is 0, or on a correction the row it corrects (its target, older than it): an
	// edit, whose Content is the target's new content, or a redaction, which erases the
	// target's content. A correction replies to nothing (Parent == 0), is never a message
	// of a view, and no row replies to it. See Message.ResolveCorrection.
	Corrects Sequence `json:"corrects,omitempty"`
	// Redacted is set on a redaction, and by the log on every row whose content a
	// redaction erased: the target and its earlier corrections, whose Content is then "".
	Redacted bool `json:"redacted,omitempty"`
	// Revised is set by the log, never by a writer: the Seq of the newest correction
	// applied to this row, 0 for a row never corrected.
	Revised Sequence `json:"revised,omitempty"`
}

// IsRoot reports whether m is a root at channel level (it replies to nothing).
func (m Message) IsRoot() bool { return m.Parent == 0 }

// IsCorrection reports whether m is a correction: an edit or a redaction of the row
// m.Corrects.
func (m Message) IsCorrection() bool { return m.Corrects != 0 }

// Blank reports whether m counts toward a walk's scan but never qualifies for a view: its
// content is empty after trimming white space, or it is a correction. A redacted row is not
// blank: it keeps the place it had, its content erased. As a root, a blank row still
// anchors replies.
func (m Message) Blank() bool { return m.blank() }

func (m *Message) blank() bool {
	return m.Corrects != 0 || (!m.Redacted && isBlank(m.Content))
}

// visibility is how a row stands for one viewer.
type visibility uint8

const (
	hidden  visibility = iota // blank: shown to no one, elided for no one
	shown                     // non-blank, and the viewer may read it
	unshown                   // non-blank, and the viewer may not read it: an elided row at the view's level
)

// visibilityFor classifies m for viewer. It costs a blank check on a desk row.
func (m *Message) visibilityFor(viewer Author) visibility {
	switch {
	case m.blank():
		return hidden
	case len(m.Audience) == 0 || m.asideReadableBy(viewer):
		return shown
	}
	return unshown
}

// isBlank is strings.TrimSpace(s) == "" without building the trimmed string; it stops at
// the first character that is not white space, so it costs O(1) for ordinary content.
func isBlank(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c != ' ' && (c < '\t' || c > '\r') {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			return false
		}
		i += size
	}
	return true
}

// Conversation names where a turn happens: a desk's channel (Thread == 0) or the thread
// rooted at row Thread of that desk.
type Conversation struct {
	Desk   string   `json:"desk"`
	Thread Sequence `json:"thread,omitempty"`
}

// IsChannel reports whether c is a desk's channel rather than one of its threads.
func (c Conversation) IsChannel() bool { return c.Thread == 0 }

// AtLevel reports whether m sits at the level of c's view: in the channel a root (Parent
// == 0), in a thread the root itself or one of its direct replies. Such a row qualifies for
// the view when it is non-blank and its viewer may read it, and is elided when non-blank
// and unreadable; in the channel a root's first reply qualifies too (see Project).
func (c Conversation) AtLevel(m *Message) bool {
	if c.Thread == 0 {
		return m.Parent == 0
	}
	return m.Seq == c.Thread || m.Parent == c.Thread
}

// ValidateNew reports whether m can be appended as a new row, as every log checks it: its
// Seq is unset (the log assigns it); its Content at most MaxContent bytes (ErrTooLarge);
// its Content and its author's and audience's ids and labels valid UTF-8 without a NUL byte
// (ErrText); its Author valid; its Audience lists at most MaxAudience valid participants,
// each once, without m's author; its Key is empty or at most MaxKeyLen bytes of printable
// UTF-8; and its At zero or within the years 1 to 9999 (ErrAt). Revised is never set, and
// Redacted only on a correction; a correction replies to nothing, and is an edit (non-blank
// Content) or a redaction (Redacted, empty Content). Whether the Parent or the target
// exists, the reply rule (Message.ResolveAudience), the correction rule
// (Message.ResolveCorrection) and whether the Key is taken (storage.MatchKey) are the log's
// to check. The error matches ErrInvalidMessage, the sentinel named, ErrInvalidAuthor for a
// bad author and ErrInvalidAudience for a bad audience; it is an *InvalidMessageError,
// whose message says what is wrong once ("audience lists agent:triage twice") and never
// quotes content.
func (m Message) ValidateNew() error { return validateNew(m, MaxContent, false) }

func validateNew(m Message, maxContent int, restored bool) error {
	if m.Seq != 0 {
		return invalidf(ErrInvalidMessage, "seq %d set by the caller (the log assigns it)", m.Seq)
	}
	if err := m.Author.Validate(); err != nil {
		return &InvalidMessageError{Kind: ErrInvalidAuthor, Reason: err.Error(), Cause: err}
	}
	if err := validateStorable(m, maxContent); err != nil {
		return err
	}
	if err := validateAudience(m.Author, m.Audience); err != nil {
		return err
	}
	if err := validateAudienceText(m.Audience); err != nil {
		return err
	}
	if err := validateKey(m.Key); err != nil {
		return err
	}
	if err := validateCorrection(m, restored); err != nil {
		return err
	}
	if !m.At.IsZero() {
		return validateTime("at", m.At)
	}
	return nil
}
