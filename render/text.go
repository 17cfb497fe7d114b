package render

import (
	"bufio"
	"io"
	"strconv"
	"strings"

	"github.com/sharedesk/transcript"
)

// Text writes msgs for a person to read, one header line per message and its content
// indented below it:
//
//	#2 Triage (agent:triage) ↳ #1
//	    The migration step timed out.
//
// The viewer's own messages are marked "you". A corrected message's header says so
// ("· revised #9"), a redacted one's "· redacted #9", and a redacted message has no content
// lines; a correction (see WithCorrections) is its author's row whose header names its
// target ("edits #3", "redacts #3"), with the new content below, or none. Each elision is one line of its own, in
// sequence order among the messages (see ElisionLine). Every content line is indented, so no
// content can pass for a header or an elision, and control characters (terminal escapes
// included) in labels, ids and content are shown as U+FFFD.
func Text(w io.Writer, viewer transcript.Author, msgs []transcript.Message, elided ...transcript.Elision) error {
	return StyledText(w, viewer, msgs, nil, elided...)
}

// Style decorates a header line Text writes, for instance with terminal colours; own
// reports whether the viewer wrote m. The header it is given is already safe to print. For
// an elision's line and a digest's, m is the zero Message (its Author's Kind is 0).
type Style func(header string, m transcript.Message, own bool) string

// StyledText writes what Text writes, with each header line and elision line passed through
// style (nil: plain).
func StyledText(w io.Writer, viewer transcript.Author, msgs []transcript.Message, style Style, elided ...transcript.Elision) error {
	return View{Messages: msgs, Elided: elided}.Text(w, viewer, style)
}

// Text writes what StyledText writes for v's messages and elisions (style nil: plain),
// after v's digest, when it has one, as a block of its own: a line naming it a digest,
// its conversation, its through and how many messages it stands for, passed through
// style as an elision's line is, and its text indented below it as content is:
//
//	Digest of the channel through #812 · 780 messages · extractive
//	    Ana (person:ana) asked for the migration plan; …
func (v View) Text(w io.Writer, viewer transcript.Author, style Style) error {
	bw := bufio.NewWriter(w)
	if v.Digest != nil {
		line := digestLine(*v.Digest)
		if style != nil {
			line = style(line, transcript.Message{}, false)
		}
		bw.WriteString(line)
		bw.WriteByte('\n')
		writeIndented(bw, v.Digest.Text)
	}
	for x := range entries(v.Messages, v.Elided) {
		if x.e != nil {
			line := ElisionLine(*x.e)
			if style != nil {
				line = style(line, transcript.Message{}, false)
			}
			bw.WriteString(line)
			bw.WriteByte('\n')
			continue
		}
		m := *x.m
		header := TextHeader(viewer, m)
		if style != nil {
			header = style(header, m, viewer.Same(m.Author))
		}
		bw.WriteString(header)
		bw.WriteByte('\n')
		if m.Redacted {
			continue // erased: a log holds no content for it
		}
		writeIndented(bw, m.Content)
	}
	return bw.Flush()
}

// writeIndented writes each line of s indented by four spaces, its control characters
// (a tab aside) shown as U+FFFD, so that no line of it can pass for a header.
func writeIndented(bw *bufio.Writer, s string) {
	for line := range strings.Lines(s) {
		bw.WriteString("    ")
		bw.WriteString(printable(strings.TrimRight(line, "\r\n"), true))
		bw.WriteByte('\n')
	}
}

// TextHeader returns the line Text writes above a message: "#seq label (kind:id[, you])",
// " ↳ #parent" for a reply, " edits #target" or " redacts #target" for a correction,
// " · aside of A and B" naming an aside's readers, and " · revised #seq" or
// " · redacted #seq" for a row a correction changed (the newest correction's seq).
func TextHeader(viewer transcript.Author, m transcript.Message) string {
	var b strings.Builder
	b.WriteString("#")
	b.WriteString(strconv.FormatUint(uint64(m.Seq), 10))
	if m.Author.Label != "" {
		b.WriteString(" ")
		b.WriteString(printable(m.Author.Label, false))
	}
	b.WriteString(" (")
	b.WriteString(printable(m.Author.String(), false))
	if viewer.Same(m.Author) {
		b.WriteString(", you")
	}
	b.WriteString(")")
	if m.Parent != 0 {
		b.WriteString(" ↳ #")
		b.WriteString(strconv.FormatUint(uint64(m.Parent), 10))
	}
	switch {
	case m.IsCorrection() && m.Redacted:
		b.WriteString(" redacts #")
		b.WriteString(strconv.FormatUint(uint64(m.Corrects), 10))
	case m.IsCorrection():
		b.WriteString(" edits #")
		b.WriteString(strconv.FormatUint(uint64(m.Corrects), 10))
	}
	if m.IsAside() {
		b.WriteString(" · aside of ")
		writeNames(&b, m.Readers())
	}
	switch {
	case m.Revised != 0 && m.Redacted:
		b.WriteString(" · redacted #")
		b.WriteString(strconv.FormatUint(uint64(m.Revised), 10))
	case m.Revised != 0:
		b.WriteString(" · revised #")
		b.WriteString(strconv.FormatUint(uint64(m.Revised), 10))
	case m.Redacted && !m.IsCorrection():
		b.WriteString(" · redacted")
	}
	return b.String()
}

// writeNames writes readers for a person: each by its label (kind:id when it has none),
// "A, B and C".
func writeNames(b *strings.Builder, readers []transcript.Author) {
	for i, a := range readers {
		switch {
		case i > 0 && i == len(readers)-1:
			b.WriteString(" and ")
		case i > 0:
			b.WriteString(", ")
		}
		name := a.Label
		if name == "" {
			name = a.String()
		}
		b.WriteString(printable(name, false))
	}
}

// ElisionLine returns the line Text writes for an elision:
//
//	#12–19 · 3 messages between Ana and Triage you cannot read
//
// naming each reader by its label (kind:id when it has none).
func ElisionLine(e transcript.Elision) string {
	var b strings.Builder
	b.WriteString("#")
	b.WriteString(strconv.FormatUint(uint64(e.From), 10))
	if e.Through != e.From {
		b.WriteString("–")
		b.WriteString(strconv.FormatUint(uint64(e.Through), 10))
	}
	b.WriteString(" · ")
	b.WriteString(strconv.Itoa(e.Count))
	b.WriteString(" message")
	if e.Count != 1 {
		b.WriteString("s")
	}
	if len(e.Readers) == 1 {
		b.WriteString(" for ") // a host's row with one reader: "between" needs two
	} else {
		b.WriteString(" between ")
	}
	writeNames(&b, e.Readers)
	b.WriteString(" you cannot read")
	return b.String()
}

// printable replaces control characters, the bidirectional controls (which reorder what a
// terminal shows around them: a label could make a header read as another author's) and
// invalid UTF-8 with U+FFFD; with tabs, a tab is kept.
func printable(s string, tabs bool) string {
	return strings.Map(func(r rune) rune {
		if (isControl(r) || isBidiControl(r)) && !(tabs && r == '\t') {
			return '\uFFFD'
		}
		return r
	}, validUTF8(s))
}

// isBidiControl reports whether r is one of Unicode's explicit bidirectional formatting
// characters: the marks, embeddings, overrides and isolates.
func isBidiControl(r rune) bool {
	return r == '\u200e' || r == '\u200f' || r == '\u061c' || (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069')
}
