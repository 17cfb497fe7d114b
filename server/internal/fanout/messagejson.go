package fanout

import (
	"strconv"
	"unicode/utf8"

	"github.com/sharedesk/transcript"
)

// appendMessage appends m as encoding/json's Encoder, HTML escaping on, encodes it, the
// trailing newline left out: the same bytes, field by field in Message's order, without
// reflection or the per-field allocations of Author's and time.Time's MarshalJSON. It
// reports false, with dst as given, for what encoding/json would refuse (an invalid author,
// a time RFC 3339 cannot hold): the caller then has encoding/json say why.
func appendMessage(dst []byte, m *transcript.Message) ([]byte, bool) {
	b := append(dst, `{"seq":`...)
	b = strconv.AppendUint(b, uint64(m.Seq), 10)
	if m.Parent != 0 {
		b = append(b, `,"parent":`...)
		b = strconv.AppendUint(b, uint64(m.Parent), 10)
	}
	b = append(b, `,"author":`...)
	b, ok := appendAuthor(b, m.Author)
	if !ok {
		return dst, false
	}
	b = append(b, `,"content":`...)
	b = appendJSONString(b, m.Content)
	if !m.At.IsZero() {
		b = append(b, `,"at":"`...)
		at, err := m.At.AppendText(b)
		if err != nil {
			return dst, false
		}
		b = append(at, '"')
	}
	if len(m.Audience) > 0 {
		b = append(b, `,"audience":[`...)
		for i, a := range m.Audience {
			if i > 0 {
				b = append(b, ',')
			}
			if b, ok = appendAuthor(b, a); !ok {
				return dst, false
			}
		}
		b = append(b, ']')
	}
	if m.Key != "" {
		b = append(b, `,"key":`...)
		b = appendJSONString(b, m.Key)
	}
	if m.Corrects != 0 {
		b = append(b, `,"corrects":`...)
		b = strconv.AppendUint(b, uint64(m.Corrects), 10)
	}
	if m.Redacted {
		b = append(b, `,"redacted":true`...)
	}
	if m.Revised != 0 {
		b = append(b, `,"revised":`...)
		b = strconv.AppendUint(b, uint64(m.Revised), 10)
	}
	return append(b, '}'), true
}

// appendAuthor appends a as Author.MarshalJSON encodes it, or reports false for an author
// it refuses.
func appendAuthor(b []byte, a transcript.Author) ([]byte, bool) {
	if a.Validate() != nil {
		return b, false
	}
	b = append(b, `{"type":`...)
	b = appendJSONString(b, a.Kind.String())
	if a.ID != "" {
		if a.Kind == transcript.KindSystem {
			b = append(b, `,"kind":`...)
		} else {
			b = append(b, `,"id":`...)
		}
		b = appendJSONString(b, a.ID)
	}
	if a.Label != "" {
		b = append(b, `,"label":`...)
		b = appendJSONString(b, a.Label)
	}
	return append(b, '}'), true
}

// appendJSONString appends s quoted as encoding/json quotes a string with HTML escaping on:
// ", \ and the controls \b, \f, \n, \r, \t escaped by their short forms, other controls and
// <, >, & as \u00XX, U+2028 and U+2029 as \u2028 and \u2029, and each byte of invalid UTF-8
// as \ufffd.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
