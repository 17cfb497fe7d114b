package render

import (
	"bufio"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

// Marks around a word a search found, in MarkTerms and HitText: plain characters, which
// read alike on a terminal, in a log and in a pipe.
const (
	MarkOpen  = "«"
	MarkClose = "»"
)

// MarkTerms returns content with each of its words whose storage.Terms form is among
// terms (a storage.SearchPlan's) between MarkOpen and MarkClose: "Deploy at «noon»" for
// the term "noon". A word is a run of letters and digits with the marks inside it, as
// storage.Terms reads one, so "Café" is marked for "café" and "don't" for "don" only in
// its first part. In a run of Han, Hiragana, Katakana or Hangul, which Terms reads as its
// characters and each two adjacent ones, the characters of each word found are marked,
// and marks that touch are one: "«移行»は«22時»に" for the terms "移行", "22" and "時".
// Invalid UTF-8 is replaced with U+FFFD; nothing else changes.
func MarkTerms(content string, terms []string) string {
	content = validUTF8(content)
	m := marker{terms: terms}
	for i := 0; i < len(content); {
		start := i
		r, size := utf8.DecodeRuneInString(content[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			m.write(content[i:i+size], false)
			i += size
			continue
		}
		for i < len(content) {
			r, size = utf8.DecodeRuneInString(content[i:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r) {
				break
			}
			i += size
		}
		m.run(content[start:i])
	}
	return m.String()
}

// marker writes MarkTerms's answer: text, marked or not, each mark closed where the marked
// text ends, so that marked pieces that touch share one.
type marker struct {
	b      strings.Builder
	terms  []string
	open   bool            // the last text written was marked
	unpair map[string]bool // by character: whether Terms reads it as a word of its own
}

// write appends text, between marks when marked.
func (m *marker) write(text string, marked bool) {
	if marked != m.open {
		if marked {
			m.b.WriteString(MarkOpen)
		} else {
			m.b.WriteString(MarkClose)
		}
		m.open = marked
	}
	m.b.WriteString(text)
}

// String returns what m wrote, its last mark closed.
func (m *marker) String() string {
	m.write("", false)
	return m.b.String()
}

// run writes a run of letters, digits and marks that starts with a letter or a digit: as
// one word, unless Terms reads more than one in it; then each character Terms reads as a
// word of its own is marked when that word is among m's terms or when the pair it makes
// with a neighbour is, and each word of other characters between them as a word is.
func (m *marker) run(run string) {
	words := storage.Terms(run)
	if len(words) <= 1 {
		m.write(run, found(words, m.terms))
		return
	}
	chars := characters(run)
	alone := make([]bool, len(chars))
	for k, c := range chars {
		alone[k] = m.ownWord(c)
	}
	marked := make([]bool, len(chars))
	for k := 0; k < len(chars); {
		if alone[k] {
			marked[k] = marked[k] || found(storage.Terms(chars[k]), m.terms)
			if k+1 < len(chars) && alone[k+1] && found(pairWords(chars[k], chars[k+1]), m.terms) {
				marked[k], marked[k+1] = true, true
			}
			k++
			continue
		}
		j := k + 1
		for j < len(chars) && !alone[j] {
			j++
		}
		f := found(storage.Terms(strings.Join(chars[k:j], "")), m.terms)
		for ; k < j; k++ {
			marked[k] = f
		}
	}
	for k, c := range chars {
		m.write(c, marked[k])
	}
}

// ownWord reports whether Terms reads the character c as a word of its own beside
// another, as it reads Han, Hiragana, Katakana and Hangul: c twice is then two words, c
// and the pair, where a character of any other word would make one.
func (m *marker) ownWord(c string) bool {
	own, ok := m.unpair[c]
	if !ok {
		own = len(storage.Terms(c+c)) == 2
		if m.unpair == nil {
			m.unpair = make(map[string]bool)
		}
		m.unpair[c] = own
	}
	return own
}

// characters splits s into its characters as form C composes them: each a letter or a
// digit with the marks after it, joined to the one before when form C makes one of the
// two (conjoining Hangul jamo).
func characters(s string) []string {
	var chars []string
	for i := 0; i < len(s); {
		start := i
		_, size := utf8.DecodeRuneInString(s[i:])
		for i += size; i < len(s); i += size {
			var r rune
			if r, size = utf8.DecodeRuneInString(s[i:]); !unicode.IsMark(r) {
				break
			}
		}
		c := s[start:i]
		if k := len(chars) - 1; k >= 0 && bases(norm.NFC.String(chars[k]+c)) == 1 {
			chars[k] += c
		} else {
			chars = append(chars, c)
		}
	}
	return chars
}

// bases counts the characters of s that are not marks.
func bases(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.IsMark(r) {
			n++
		}
	}
	return n
}

// pairWords returns the words Terms reads in a and b together that it reads in neither
// alone: the pair of two characters it reads as words of their own.
func pairWords(a, b string) []string {
	var pair []string
	own := append(storage.Terms(a), storage.Terms(b)...)
	for _, t := range storage.Terms(a + b) {
		if !slices.Contains(own, t) {
			pair = append(pair, t)
		}
	}
	return pair
}

// found reports whether one of a word's terms is among terms.
func found(wordTerms, terms []string) bool {
	for _, t := range wordTerms {
		if slices.Contains(terms, t) {
			return true
		}
	}
	return false
}

// HitText writes a search's hits for a person to read, one line a hit in the order given:
// the header Text writes above a message (see TextHeader), passed through style (nil:
// plain), then ": " and the content on the same line with the words of terms marked (see
// MarkTerms). A line break in the content is shown as " ↵ ", so every line starts with a
// header; control characters are shown as U+FFFD, as in Text. A redacted message, which no
// search finds, has no content after its header.
func HitText(w io.Writer, viewer transcript.Author, hits []transcript.Message, terms []string, style Style) error {
	bw := bufio.NewWriter(w)
	for _, m := range hits {
		header := TextHeader(viewer, m)
		if style != nil {
			header = style(header, m, viewer.Same(m.Author))
		}
		bw.WriteString(header)
		if !m.Redacted {
			bw.WriteString(": ")
			bw.WriteString(oneLine(MarkTerms(m.Content, terms)))
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// oneLine returns s on one printable line: each line break as " ↵ ", a tab kept, every
// other control character as U+FFFD.
func oneLine(s string) string {
	var b strings.Builder
	first := true
	for line := range strings.Lines(s) {
		if !first {
			b.WriteString(" ↵ ")
		}
		first = false
		b.WriteString(printable(strings.TrimRight(line, "\r\n"), true))
	}
	return b.String()
}
