package pgstore

import "github.com/sharedesk/transcript"

// storable reports whether s is text PostgreSQL can hold: one transcript.ValidateText
// accepts (valid UTF-8 without a NUL byte).
func storable(s string) bool { return transcript.ValidateText("text", s) == nil }
