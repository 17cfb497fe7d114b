package pgstore

import (
	"strings"
	"unicode/utf8"
)

// storable reports whether s is text PostgreSQL can hold: valid UTF-8 without a NUL byte,
// what transcript.ValidateText accepts.
func storable(s string) bool { return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 }
