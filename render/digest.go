package render

import (
	"strconv"
	"strings"

	"github.com/sharedesk/transcript"
)

// DigestTag returns the user-side content a conversation's digest renders as in the model
// formats, before the view's first message:
//
//	<digest of="channel" through="812" rows="780" digester="extractive">
//	Ana (person:ana) asked for the migration plan; …
//	</digest>
//
// A thread's digest says of="thread" root="57", naming the thread's root as a reply's
// envelope names its parent. The text is escaped as an Envelope's content is and the
// digester's name as its attributes are, so that no text can close the element or open a
// message that claims an author.
func DigestTag(d transcript.Digest) string {
	var b strings.Builder
	b.WriteString(`<digest of="`)
	if d.Conversation.IsChannel() {
		b.WriteString(`channel`)
	} else {
		b.WriteString(`thread" root="`)
		b.WriteString(strconv.FormatUint(uint64(d.Conversation.Thread), 10))
	}
	b.WriteString(`" through="`)
	b.WriteString(strconv.FormatUint(uint64(d.Through), 10))
	b.WriteString(`" rows="`)
	b.WriteString(strconv.Itoa(d.Rows))
	b.WriteString(`" digester="`)
	escapeAttr(&b, d.Digester)
	b.WriteString("\">\n")
	escapeContent(&b, d.Text)
	b.WriteString("\n</digest>")
	return b.String()
}

// digestLine returns the line Text writes above a digest's text:
//
//	Digest of the channel through #812 · 780 messages · extractive
//
// or, for a thread, "Digest of thread #57 through #812 · …". It starts with no '#' and no
// indent, so neither a message's header nor its content can pass for it.
func digestLine(d transcript.Digest) string {
	var b strings.Builder
	if d.Conversation.IsChannel() {
		b.WriteString("Digest of the channel through #")
	} else {
		b.WriteString("Digest of thread #")
		b.WriteString(strconv.FormatUint(uint64(d.Conversation.Thread), 10))
		b.WriteString(" through #")
	}
	b.WriteString(strconv.FormatUint(uint64(d.Through), 10))
	b.WriteString(" · ")
	b.WriteString(strconv.Itoa(d.Rows))
	b.WriteString(" message")
	if d.Rows != 1 {
		b.WriteString("s")
	}
	if d.Digester != "" {
		b.WriteString(" · ")
		b.WriteString(printable(d.Digester, false))
	}
	return b.String()
}
