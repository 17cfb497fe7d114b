package main

import (
	"fmt"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/plainjson"
	"github.com/sharedesk/transcript/render"
)

// formats are the values --format takes.
var formats = []string{"text", "json", "openai", "anthropic"}

func checkFormat(f string) error {
	for _, known := range formats {
		if f == known {
			return nil
		}
	}
	return usageErrorf("--format %q: want text, json, openai or anthropic", f)
}

// writeMessages writes msgs and the elisions among them as viewer sees them in format;
// asJSON is what the json format writes (a projection or a delta, which hold both). The text
// format writes an elision as its line, the openai and anthropic formats as an elided tag.
func writeMessages(e *env, format string, viewer transcript.Author, msgs []transcript.Message, elided []transcript.Elision, asJSON any) error {
	switch format {
	case "text":
		return render.StyledText(e.stdout, viewer, msgs, e.style(), elided...)
	case "json":
		data, err := plainjson.MarshalIndent(asJSON, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(e.stdout, "%s\n", data)
		return err
	case string(render.ModelOpenAI), string(render.ModelAnthropic):
		// The bytes the service's model route serves: one implementation for both.
		data, err := render.ModelInput(render.ModelFormat(format), viewer, msgs, elided...)
		if err != nil {
			return err
		}
		_, err = e.stdout.Write(data)
		return err
	}
	return checkFormat(format)
}

// ANSI colours, used only when stdout is a colour terminal.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
	ansiRed    = "\x1b[31m"
)

// paint returns s in the given colour when e.color is set.
func (e *env) paint(color, s string) string {
	if !e.color || color == "" {
		return s
	}
	return color + s + ansiReset
}

// authorColor is the colour of a message's author: the viewer's own bold green, agents cyan,
// people yellow, system notices dim, and dim too for an elision, which render.Style gives as
// the zero Message (Kind 0).
func authorColor(m transcript.Message, own bool) string {
	switch {
	case own:
		return ansiBold + ansiGreen
	case m.Author.Kind == 0:
		return ansiDim
	case m.Author.Kind == transcript.KindAgent:
		return ansiCyan
	case m.Author.Kind == transcript.KindPerson:
		return ansiYellow
	case m.Author.Kind == transcript.KindSystem:
		return ansiDim
	}
	return ansiBold
}

// style colours render.Text's headers and elision lines on a colour terminal.
func (e *env) style() render.Style {
	if !e.color {
		return nil
	}
	return func(header string, m transcript.Message, own bool) string {
		return e.paint(authorColor(m, own), header)
	}
}
