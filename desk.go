package transcript

import (
	"unicode"
	"unicode/utf8"
)

// ValidateDesk reports whether name can name a new desk: 1 to MaxDeskLen characters, each
// a Unicode letter (unicode.IsLetter) or decimal digit (unicode.IsDigit), '.', '_' or '-',
// and neither "." nor "..". Such a name is one segment of a URL path and of a file path as
// it is, so every command, store and route names the desk the same way. The error matches
// ErrInvalidDesk and says what is wrong; it quotes at most the offending character.
//
// Stores and commands apply the rule to what they create and write; a desk an older
// version stored under a name that breaks it can still be read and exported.
func ValidateDesk(name string) error {
	switch n := utf8.RuneCountInString(name); {
	case n == 0:
		return refusedf(ErrInvalidDesk, "empty")
	case n > MaxDeskLen:
		return refusedf(ErrInvalidDesk, "%d characters, over the limit of %d", n, MaxDeskLen)
	case name == "." || name == "..":
		return refusedf(ErrInvalidDesk, "%q names a directory in a path, not a desk", name)
	}
	for i, r := range name {
		if _, size := utf8.DecodeRuneInString(name[i:]); r == utf8.RuneError && size == 1 {
			return refusedf(ErrInvalidDesk, "not valid UTF-8 at byte %d", i)
		}
		if !deskRune(r) {
			return refusedf(ErrInvalidDesk, "character %q at byte %d is not a letter, digit, '.', '_' or '-'", r, i)
		}
	}
	return nil
}

// deskRune reports whether r may appear in a desk name.
func deskRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '_' || r == '-'
}
