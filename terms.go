package transcript

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Terms returns the words of s, as a search finds them: after s is put in Unicode
// normalization form C, each maximal run of characters that starts with a letter or a
// digit (unicode.IsLetter, unicode.IsDigit) and goes on with letters, digits and marks
// (unicode.IsMark), every character lower-cased with unicode.ToLower and the word put in
// form C again (lower case can compose where upper case did not: "Y\u030a" lowers to
// "ẙ"); each word once, in the order of its first use. Everything else separates words: white space, punctuation,
// symbols, emoji, and bytes that are not UTF-8. So "Café" and "cafe\u0301" are one word,
// "don't" is two, and "ΣΟΦΙΑ" is "σοφια".
func Terms(s string) []string {
	s = norm.NFC.String(s)
	var terms []string
	var seen map[string]bool // the terms, once there are too many to scan
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			i += size
			continue
		}
		b.Reset()
		for i < len(s) {
			r, size = utf8.DecodeRuneInString(s[i:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r) {
				break
			}
			b.WriteRune(unicode.ToLower(r))
			i += size
		}
		t := b.String()
		if !norm.NFC.IsNormalString(t) {
			t = norm.NFC.String(t) // lower case can compose where upper case did not: Y and a ring above
		}
		switch {
		case seen != nil:
			if seen[t] {
				continue
			}
			seen[t] = true
		case contains(terms, t):
			continue
		case len(terms) == 32:
			seen = make(map[string]bool)
			for _, u := range terms {
				seen[u] = true
			}
			seen[t] = true
		}
		terms = append(terms, t)
	}
	return terms
}
