package storage

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
//
// Han, Hiragana, Katakana and Hangul are written without spaces between words, so a run
// of their letters (of unicode.Han, unicode.Hiragana, unicode.Katakana and unicode.Hangul)
// is not one word: each of its characters, with the marks that follow it, is a word of
// one character, and each two adjacent characters are a word of two, in the order first
// character, first pair, second character, second pair, and so on. Such a run ends where
// any other character starts, and a word of other letters ends where such a run starts:
// "22時に" is "22", "時", "時に" and "に". The letters of script Common written only inside
// Japanese words belong to such a run as its other letters do: the prolonged sound mark ー
// and its half-width form ｰ, the half-width voiced sound marks ﾞ and ﾟ, the kana repeat
// marks 〱 to 〵, 〆 and 〼; so "スーパー" holds "スー", "ーパ" and "パー". The iteration marks
// 々, 〻, ゝ, ゞ, ヽ and ヾ are letters of these scripts. Their characters that are not
// letters (〇, ㈀, ㋐) separate words, as other numbers and symbols do. Form C keeps
// widths apart: "ｶﾀｶﾅ" and "カタカナ" share no word, as "ＡＢＣ" and "abc" share none.
func Terms(s string) []string {
	s = norm.NFC.String(s)
	w := words{terms: make([]string, 0, min(len(s)/5+1, 32))} // a word and a separator: about 5 bytes or more
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if !asciiWord[c] {
				i++
				continue
			}
		} else if r, size := utf8.DecodeRuneInString(s[i:]); !startsWord(r) {
			i += size
			continue
		} else if unspaced(r) {
			i = w.addUnspaced(s, i)
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
			if !inWord(r) || unspaced(r) {
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
			t = lowerNFC(t)
		}
		w.add(t)
	}
	if len(w.terms) == 0 {
		return nil
	}
	return w.terms
}

// words collects the terms of a text, each once, in the order of their first use.
type words struct {
	terms []string
	seen  map[string]bool // the terms, once there are too many to scan
}

// add appends t to w's terms unless they hold it already.
func (w *words) add(t string) {
	switch {
	case w.seen != nil:
		if w.seen[t] {
			return
		}
		w.seen[t] = true
	case contains(w.terms, t):
		return
	case len(w.terms) == 32:
		w.seen = make(map[string]bool, 2*cap(w.terms))
		for _, u := range w.terms {
			w.seen[u] = true
		}
		w.seen[t] = true
	}
	w.terms = append(w.terms, t)
}

// addUnspaced adds the words of the run of unspaced characters that starts at s[i], s
// in form C, and returns where the run ends: each character with the marks that follow
// it, and each two adjacent ones, in the order of Terms.
func (w *words) addUnspaced(s string, i int) int {
	prevStart, prev, prevLower := -1, "", true
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r < utf8.RuneSelf || !unspaced(r) {
			break
		}
		start, lower := i, true // the letters of these scripts have no case
		for i += size; i < len(s) && s[i] >= utf8.RuneSelf; i += size {
			var m rune
			if m, size = utf8.DecodeRuneInString(s[i:]); !unicode.IsMark(m) {
				break
			}
			lower = lower && unicode.ToLower(m) == m
		}
		t := s[start:i]
		if !lower {
			t = lowerNFC(t)
		}
		if prevStart >= 0 {
			if prevLower && lower {
				w.add(s[prevStart:i])
			} else {
				w.add(norm.NFC.String(prev + t))
			}
		}
		w.add(t)
		prevStart, prev, prevLower = start, t, lower
	}
	return i
}

// lowerNFC returns t with every character lower-cased, in form C again: lower case can
// compose where upper case did not (Y and a ring above).
func lowerNFC(t string) string {
	return norm.NFC.String(strings.Map(unicode.ToLower, t))
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

// unspaced reports whether r is a character of a run Terms reads in words of one and two
// characters: a letter of Han, Hiragana, Katakana or Hangul, or one of the letters of
// script Common written only inside Japanese words.
func unspaced(r rune) bool {
	switch {
	case 0x4e00 <= r && r <= 0x9fff, 0xac00 <= r && r <= 0xd7a3:
		return true // CJK Unified Ideographs and Hangul Syllables: every one a letter
	case 0x3041 <= r && r <= 0x3096, 0x309d <= r && r <= 0x309f, 0x30a1 <= r && r <= 0x30ff && r != 0x30fb:
		return true // the letters of Hiragana and Katakana, and ー
	case r < 0x1100, 0x1200 <= r && r < 0x2e80:
		return false // below Hangul Jamo, or between it and CJK Radicals: none of these
	}
	switch r {
	case 0x3006, 0x3031, 0x3032, 0x3033, 0x3034, 0x3035, 0x303c, 0x30fc, 0xff70, 0xff9e, 0xff9f:
		return true // 〆, 〱〲〳〴〵, 〼, ー, ｰ, ﾞ, ﾟ
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) && unicode.IsLetter(r)
}

// unspacedPair returns the characters of t, a term, when it is a word of two unspaced
// characters (see Terms).
func unspacedPair(t string) (first, second string, ok bool) {
	r, i := utf8.DecodeRuneInString(t)
	if !unspaced(r) {
		return "", "", false
	}
	for i < len(t) {
		m, size := utf8.DecodeRuneInString(t[i:])
		if !unicode.IsMark(m) {
			break
		}
		i += size
	}
	if i == len(t) {
		return "", "", false
	}
	return t[:i], t[i:], true
}

// queryTerms returns the words a search for s holds: Terms(s) without the words of one
// unspaced character that a word of two of Terms(s) holds, which it implies.
func queryTerms(s string) []string {
	terms := Terms(s)
	var implied map[string]bool
	for _, t := range terms {
		if first, second, ok := unspacedPair(t); ok {
			if implied == nil {
				implied = make(map[string]bool)
			}
			implied[first], implied[second] = true, true
		}
	}
	if implied == nil {
		return terms
	}
	kept := terms[:0]
	for _, t := range terms {
		if !implied[t] {
			kept = append(kept, t)
		}
	}
	return kept
}
