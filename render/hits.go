package render

import (
	"bufio"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sharedesk/transcript"
)

// Marks around a word a search found, in MarkTerms and HitText: plain characters, which
// read alike on a terminal, in a log and in a pipe.
const (
	MarkOpen  = "«"
	MarkClose = "»"
)

// MarkTerms returns content with each of its words whose transcript.Terms form is among
// terms (a transcript.SearchPlan's) between MarkOpen and MarkClose: "Deploy at «noon»" for
// the term "noon". A word is a run of letters and digits with the marks inside it, as
// transcript.Terms reads one, so "Café" is marked for "café" and "don't" for "don" only in
// its first part. Invalid UTF-8 is replaced with U+FFFD; nothing else changes.
func MarkTerms(content string, terms []string) string {
	content = validUTF8(content)
	var b strings.Builder
	for i := 0; i < len(content); {
		start := i
		r, size := utf8.DecodeRuneInString(content[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			b.WriteString(content[i : i+size])
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
		word := content[start:i]
		if found(transcript.Terms(word), terms) {
			b.WriteString(MarkOpen)
			b.WriteString(word)
			b.WriteString(MarkClose)
		} else {
			b.WriteString(word)
		}
	}
	return b.String()
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
