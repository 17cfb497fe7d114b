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
// "ẙ"); each word once, in the order of its first use. Everything else separates words:
// white space, punctuation, symbols, emoji, and bytes that are not UTF-8. So "Café" and
// "cafe\u0301" are one word, "don't" is two, and "ΣΟΦΙΑ" is "σοφια".
func Terms(s string) []string {
	s = norm.NFC.String(s)
	terms := make([]string, 0, min(len(s)/5+1, 32)) // a word and a separator: about 5 bytes or more
	var seen map[string]bool                        // the terms, once there are too many to scan
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if !asciiWord[c] {
				i++
				continue
			}
		} else if r, size := utf8.DecodeRuneInString(s[i:]); !startsWord(r) {
			i += size
			continue
		}
		start, lower, ascii := i, true, true
		for i < len(s) {
			if c := s[i]; c < utf8.RuneSelf {
				if !asciiWord[c] {
					break
				}
				lower = lower && (c < 'A' || c > 'Z')
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			if !inWord(r) {
				break
			}
			ascii, lower = false, lower && unicode.ToLower(r) == r
			i += size
		}
		t := s[start:i]
		switch {
		case lower:
		case ascii:
			t = strings.ToLower(t) // unicode.ToLower on ASCII, which form C leaves as it is
		default:
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
	if len(terms) == 0 {
		return nil
	}
	return terms
}

// asciiWord reports, by ASCII byte, whether it may start or go on a word: a letter or a
// digit (no ASCII character is a mark).
var asciiWord = func() (in [utf8.RuneSelf]bool) {
	for c := range in {
		in[c] = startsWord(rune(c))
	}
	return in
}()

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
