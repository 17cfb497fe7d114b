package console

import (
	"strconv"
	"strings"
	"unicode"
)

// QuoteIfNeeded returns s as it is when it prints as one plain cell of a line, else quoted
// (Go syntax): an empty name, a tab, a line break, a control or other unprintable
// character, or a double quote, which would make a quoted s ambiguous otherwise.
func QuoteIfNeeded(s string) string {
	if s == "" || strings.ContainsFunc(s, func(r rune) bool { return r == '"' || !unicode.IsPrint(r) }) {
		return strconv.Quote(s)
	}
	return s
}
