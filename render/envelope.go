package render

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sharedesk/transcript"
)

// Envelope returns m's content inside a <message> element that states its author's kind, id
// and label, its sequence, for a reply its parent, and for an aside its readers (as
// ElisionTag names them), so the viewer knows the message was private. A corrected row
// states its newest correction (revised="SEQ"); a redacted row says redacted="true" and
// is an empty element, without content:
//
//	<message seq="3" kind="person" id="ana" label="Ana" revised="9" redacted="true"/>
//
// A correction (a delta's, see WithCorrections) names its target (corrects="TARGET") and
// holds the target's new content, or, for a redaction, none. Content and attributes are
// escaped so that nothing inside can end the element, start another, or add an attribute.
func Envelope(m transcript.Message) string {
	var b strings.Builder
	writeEnvelope(&b, m)
	return b.String()
}

func writeEnvelope(b *strings.Builder, m transcript.Message) {
	b.WriteString(`<message seq="`)
	b.WriteString(strconv.FormatUint(uint64(m.Seq), 10))
	if m.Parent != 0 {
		b.WriteString(`" parent="`)
		b.WriteString(strconv.FormatUint(uint64(m.Parent), 10))
	}
	if m.Corrects != 0 {
		b.WriteString(`" corrects="`)
		b.WriteString(strconv.FormatUint(uint64(m.Corrects), 10))
	}
	b.WriteString(`" kind="`)
	escapeAttr(b, m.Author.Kind.String())
	if m.Author.ID != "" {
		b.WriteString(`" id="`)
		escapeAttr(b, m.Author.ID)
	}
	if m.Author.Label != "" {
		b.WriteString(`" label="`)
		escapeAttr(b, m.Author.Label)
	}
	if m.IsAside() {
		b.WriteString(`" readers="`)
		writeReaders(b, m.Readers())
	}
	if m.Revised != 0 {
		b.WriteString(`" revised="`)
		b.WriteString(strconv.FormatUint(uint64(m.Revised), 10))
	}
	if m.Redacted {
		b.WriteString(`" redacted="true"/>`) // its content is erased: a log holds none
		return
	}
	b.WriteString("\">\n")
	escapeContent(b, m.Content)
	b.WriteString("\n</message>")
}

// escapeContent writes s with &, < and > as entities, and invalid UTF-8 as U+FFFD.
func escapeContent(b *strings.Builder, s string) {
	for _, r := range validUTF8(s) {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		default:
			b.WriteRune(r)
		}
	}
}

// escapeAttr writes s for a double-quoted attribute: the content escapes, plus the quote and
// every character that could break the line or the terminal as a numeric reference.
func escapeAttr(b *strings.Builder, s string) {
	for _, r := range validUTF8(s) {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"':
			b.WriteString("&quot;")
		case isControl(r):
			b.WriteString("&#")
			b.WriteString(strconv.Itoa(int(r)))
			b.WriteByte(';')
		default:
			b.WriteRune(r)
		}
	}
}

// isControl reports C0 and C1 controls, DEL, and the Unicode line and paragraph separators.
func isControl(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r <= 0x9f) || r == '\u2028' || r == '\u2029'
}

func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
