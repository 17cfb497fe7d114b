package transcript

import (
	"strings"
	"time"
	"unicode/utf8"
)

// The range of times a store keeps: the years 1 to 9999.
var (
	minAt = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	maxAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
)

// validateText is WriteRules.ValidateText.
func validateText(what, s string) error {
	if !utf8.ValidString(s) {
		return invalidf(ErrText, "%s is not valid UTF-8", what)
	}
	if i := strings.IndexByte(s, 0); i >= 0 {
		return invalidf(ErrText, "%s holds a NUL byte at offset %d%s", what, i, nulRefused)
	}
	return nil
}

// nulRefused says why a NUL byte is refused.
const nulRefused = ", which the stores refuse (PostgreSQL text cannot store one)"

// validateTime is WriteRules.ValidateTime.
func validateTime(what string, at time.Time) error {
	if at.Before(minAt) || !at.Before(maxAt) {
		return invalidf(ErrAt, "%s %v is outside the years 1 to 9999", what, at)
	}
	return nil
}

// validateStorable reports whether m's content is at most maxContent bytes, each of its
// texts one validateText accepts, and its At zero or within the years 1 to 9999.
func validateStorable(m Message, maxContent int) error {
	if n := len(m.Content); n > maxContent {
		return invalidf(ErrTooLarge, "content of %d bytes, over the limit of %d", n, maxContent)
	}
	if err := validateText("content", m.Content); err != nil {
		return err
	}
	if err := validateText("author id", m.Author.ID); err != nil {
		return err
	}
	return validateText("author label", m.Author.Label)
}

// validateAudienceText reports whether the ids and labels audience lists are texts
// validateText accepts, naming the first entry that is not ("audience entry 0 holds a NUL
// byte in its label at offset 3").
func validateAudienceText(audience []Author) error {
	for i, a := range audience {
		for _, f := range [...]struct{ name, text string }{{"id", a.ID}, {"label", a.Label}} {
			if !utf8.ValidString(f.text) {
				return invalidf(ErrText, "audience entry %d's %s is not valid UTF-8", i, f.name)
			}
			if j := strings.IndexByte(f.text, 0); j >= 0 {
				return invalidf(ErrText, "audience entry %d holds a NUL byte in its %s at offset %d%s", i, f.name, j, nulRefused)
			}
		}
	}
	return nil
}
