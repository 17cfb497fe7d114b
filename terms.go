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
	for i := 0; i < len(s); {
		if r, size := decodeRune(s, i); !startsWord(r) {
			i += size
			continue
		}
		start, lower := i, true
		for i < len(s) {
			r, size := decodeRune(s, i)
			if !inWord(r) {
				break
			}
			lower = lower && (r < utf8.RuneSelf && (r < 'A' || r > 'Z') || r >= utf8.RuneSelf && unicode.ToLower(r) == r)
			i += size
		}
		t := s[start:i]
		if !lower {
			// Lower case can compose where upper case did not: Y and a ring above.
			t = norm.NFC.String(strings.Map(unicode.ToLower, t))
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

// startsWord reports whether r may start a word: a letter or a digit.
func startsWord(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// inWord reports whether r may go on a word: a letter, a digit or a mark.
func inWord(r rune) bool {
	return startsWord(r) || r >= utf8.RuneSelf && unicode.IsMark(r)
}

// decodeRune is utf8.DecodeRuneInString(s[i:]), without a call for ASCII.
func decodeRune(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}
