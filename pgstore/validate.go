package pgstore

import "github.com/sharedesk/transcript/storage"

// storable reports whether s is text PostgreSQL can hold: one storage.ValidateText
// accepts (valid UTF-8 without a NUL byte).
func storable(s string) bool { return storage.ValidateText("text", s) == nil }
