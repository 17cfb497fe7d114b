package render

import (
	"iter"
	"strconv"
	"strings"

	"github.com/sharedesk/transcript"
)

// ElisionTag returns the user-side content an elision renders as in the model formats:
//
//	<elided from="12" through="19" count="3" readers="operator,agent:triage"/>
//
// Readers are named kind:id, comma-separated, in the elision's order. Attribute values are
// escaped as envelope attributes are, and a comma inside an id too, so no id can add a reader
// to the list; message content is escaped so that it cannot open an element, so no message can
// pass for an elision.
func ElisionTag(e transcript.Elision) string {
	var b strings.Builder
	b.WriteString(`<elided from="`)
	b.WriteString(strconv.FormatUint(uint64(e.From), 10))
	b.WriteString(`" through="`)
	b.WriteString(strconv.FormatUint(uint64(e.Through), 10))
	b.WriteString(`" count="`)
	b.WriteString(strconv.Itoa(e.Count))
	b.WriteString(`" readers="`)
	writeReaders(&b, e.Readers)
	b.WriteString(`"/>`)
	return b.String()
}

// writeReaders writes readers as a readers attribute's value: kind:id, comma-separated.
func writeReaders(b *strings.Builder, readers []transcript.Author) {
	for i, a := range readers {
		if i > 0 {
			b.WriteByte(',')
		}
		escapeAttr(b, a.Kind.String())
		if a.ID != "" {
			b.WriteByte(':')
			escapeListItem(b, a.ID)
		}
	}
}

// escapeListItem is escapeAttr for one item of a comma-separated attribute: commas too
// become numeric references.
func escapeListItem(b *strings.Builder, s string) {
	for i, part := range strings.Split(s, ",") {
		if i > 0 {
			b.WriteString("&#44;")
		}
		escapeAttr(b, part)
	}
}

// entry is one item of a rendered view: a message, or an elision when m is nil.
type entry struct {
	m *transcript.Message
	e *transcript.Elision
}

// entries merges msgs and elided, both in ascending sequence, into one sequence order. An
// elision never shares a sequence with a message; it goes before every message above its
// From.
func entries(msgs []transcript.Message, elided []transcript.Elision) iter.Seq[entry] {
	return func(yield func(entry) bool) {
		j := 0
		for i := range msgs {
			for j < len(elided) && elided[j].From < msgs[i].Seq {
				if !yield(entry{e: &elided[j]}) {
					return
				}
				j++
			}
			if !yield(entry{m: &msgs[i]}) {
				return
			}
		}
		for ; j < len(elided); j++ {
			if !yield(entry{e: &elided[j]}) {
				return
			}
		}
	}
}
