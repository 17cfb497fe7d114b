package storage

import (
	"time"

	"github.com/sharedesk/transcript"
)

// ValidateText reports whether s, the text named what ("token label"), is one a store
// keeps: valid UTF-8 without a NUL byte, the rule of every text of a row
// (transcript.WriteRules.ValidateText). A store applies it to what it keeps beside the rows
// too (a token's label, a digest's text), so that what one store keeps every other can.
// The error is a *transcript.InvalidMessageError of kind transcript.ErrText that names
// what and the offending offset, never a part of s.
func ValidateText(what, s string) error { return transcript.WriteRules{}.ValidateText(what, s) }

// ValidateTime reports whether at, the time named what ("expiry"), lies in the years 1 to
// 9999, the times a store keeps, as a row's At does (transcript.WriteRules.ValidateTime).
// The error is a *transcript.InvalidMessageError of kind transcript.ErrAt.
func ValidateTime(what string, at time.Time) error {
	return transcript.WriteRules{}.ValidateTime(what, at)
}
