package transcript

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// KeyConflictError reports an append whose Key names a stored row that differs from it.
type KeyConflictError struct {
	Key string   // the key both rows carry
	Seq Sequence // the stored row's
}

func (e *KeyConflictError) Error() string {
	return fmt.Sprintf("key %q already names row %d, which differs in author, parent, audience or content", e.Key, e.Seq)
}

// Is reports that every *KeyConflictError matches ErrKeyConflict.
func (e *KeyConflictError) Is(target error) bool { return target == ErrKeyConflict }

// validateKey reports whether key can be a row's Key: empty (no key), or at most MaxKeyLen
// bytes of valid UTF-8 whose every character is printable (letters, marks, numbers,
// punctuation, symbols and the ASCII space).
func validateKey(key string) error {
	if len(key) > MaxKeyLen {
		return invalidf(ErrInvalidMessage, "key of %d bytes, over the limit of %d", len(key), MaxKeyLen)
	}
	if !utf8.ValidString(key) {
		return invalidf(ErrInvalidMessage, "key is not valid UTF-8")
	}
	for i, r := range key {
		if !unicode.IsPrint(r) {
			return invalidf(ErrInvalidMessage, "key holds the unprintable character %U at byte %d", r, i)
		}
	}
	return nil
}
