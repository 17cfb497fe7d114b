package storage

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/sharedesk/transcript"
)

// ErrSuperseded is returned by a store's PutDigest that stored nothing because the digest
// it extends is no longer the conversation's newest (another fold stored one, or a
// correction deleted it), because a row it folded was corrected after the fold read it, or
// because the desk it read was deleted since (even when a desk was made anew under its
// name).
// Package digest names it too, as digest.ErrSuperseded.
var ErrSuperseded = errors.New("digest superseded")

// CorrectsFolded reports whether m, a row appended after a fold read its desk, supersedes
// what the fold read through through: m corrects a row at or below through that every
// participant may read (a digest folds no aside, and a correction of one is an aside with
// its target's readers). A store's PutDigest refuses a digest through through when a row
// appended after its read does; a fold checks it before it sends its rows to a digester.
func CorrectsFolded(m *transcript.Message, through transcript.Sequence) bool {
	return m.IsCorrection() && !m.IsAside() && m.Corrects <= through
}

// DigestRead is what a fold reads of its desk before the rows it folds, for the PutDigest
// of what it folded: the desk's head then, and which desk it was.
type DigestRead struct {
	// Head is the Seq of the desk's newest row, 0 when it held none.
	Head transcript.Sequence
	// Desk tells the desk apart from every other desk its store held under its name: a
	// desk deleted and made anew under the same name has another. It means something only
	// to the store that gave it.
	Desk int64
}

// ErrInvalidDigest is matched by the error of a store's PutDigest that refuses a digest no
// fold could have made (CheckDigest).
var ErrInvalidDigest = errors.New("invalid digest")

// CheckDigest reports whether a store of desk may keep d, folded from the rows the desk
// held when its head was read: d names desk, its Generation is at least 1, its Through is
// from 1 to read, a head a store can hold (in a thread, above the thread's root, which is
// never folded), its Rows not below 0, and its Digester and Text are valid UTF-8 without a
// NUL byte (also matching transcript.ErrText). The error matches ErrInvalidDigest and names
// the field at fault, never a part of the text.
func CheckDigest(desk string, d transcript.Digest, read transcript.Sequence) error {
	if err := CheckDigestDesk(desk, d.Conversation); err != nil {
		return err
	}
	c := ConversationName(d.Conversation)
	switch {
	case d.Generation < 1:
		return fmt.Errorf("%w: digest of %s: generation %d, want 1 or more", ErrInvalidDigest, c, d.Generation)
	case d.Through < 1 || d.Through > read || read > math.MaxInt64:
		return fmt.Errorf("%w: digest of %s: through %d, want a row from 1 to %d, the head its fold read", ErrInvalidDigest, c, d.Through, read)
	case d.Through <= d.Conversation.Thread:
		return fmt.Errorf("%w: digest of %s: through %d, want a reply after the thread's root", ErrInvalidDigest, c, d.Through)
	case d.Rows < 0:
		return fmt.Errorf("%w: digest of %s: rows %d, want 0 or more", ErrInvalidDigest, c, d.Rows)
	}
	for _, f := range []struct{ what, s string }{{"digester", d.Digester}, {"text", d.Text}} {
		if !utf8.ValidString(f.s) {
			return fmt.Errorf("%w: digest of %s: %s is not valid UTF-8: %w", ErrInvalidDigest, c, f.what, transcript.ErrText)
		}
		if i := strings.IndexByte(f.s, 0); i >= 0 {
			return fmt.Errorf("%w: digest of %s: %s holds a NUL byte at offset %d, which the stores refuse: %w", ErrInvalidDigest, c, f.what, i, transcript.ErrText)
		}
	}
	return nil
}

// CheckDigestDesk reports whether c, the conversation of a digest read or stored through
// desk's log, is one of desk's: c.Desk is desk, or empty (the log's own desk, as a Query's
// Conversation may leave it); the error matches ErrInvalidDigest.
func CheckDigestDesk(desk string, c transcript.Conversation) error {
	if c.Desk != "" && c.Desk != desk {
		return fmt.Errorf("%w: a digest of desk %q through the log of desk %q", ErrInvalidDigest, c.Desk, desk)
	}
	return nil
}

// ConversationName names c in a store's error: "the channel" or "thread N".
func ConversationName(c transcript.Conversation) string {
	if c.IsChannel() {
		return "the channel"
	}
	return fmt.Sprintf("thread %d", c.Thread)
}
