// Package console draws the transcript command's output on a terminal: ANSI colours for
// headers and headings, and a progress line on standard error. Everything it draws is for a
// person at a terminal, which Detect tells; through a pipe it paints and draws nothing. A
// name printed in a line of it is quoted where it would not print as one plain cell
// (QuoteIfNeeded).
package console

import (
	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/render"
)

// ANSI colours, which Paint writes only on a colour terminal.
const (
	Reset  = "\x1b[0m"
	Bold   = "\x1b[1m"
	Dim    = "\x1b[2m"
	Green  = "\x1b[32m"
	Yellow = "\x1b[33m"
	Cyan   = "\x1b[36m"
	Red    = "\x1b[31m"
)

// Paint returns s in color, followed by Reset, when on (the output is a colour terminal) and
// color is not empty; else s as it is.
func Paint(on bool, color, s string) string {
	if !on || color == "" {
		return s
	}
	return color + s + Reset
}

// AuthorColor is the colour of a message's author: the viewer's own bold green, agents cyan,
// people yellow, system notices dim, and dim too for an elision, which render.Style gives as
// the zero Message (Kind 0).
func AuthorColor(m transcript.Message, own bool) string {
	switch {
	case own:
		return Bold + Green
	case m.Author.Kind == 0:
		return Dim
	case m.Author.Kind == transcript.KindAgent:
		return Cyan
	case m.Author.Kind == transcript.KindPerson:
		return Yellow
	case m.Author.Kind == transcript.KindSystem:
		return Dim
	}
	return Bold
}

// Style colours render.Text's headers and elision lines by AuthorColor when on; nil (no
// colour) when not.
func Style(on bool) render.Style {
	if !on {
		return nil
	}
	return func(header string, m transcript.Message, own bool) string {
		return Paint(true, AuthorColor(m, own), header)
	}
}
