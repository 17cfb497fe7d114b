package main

import (
	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/cliflag"
	"github.com/sharedesk/transcript/internal/console"
	"github.com/sharedesk/transcript/render"
)

// formats are the values --format takes.
var formats = []string{"text", "json", "openai", "anthropic"}

// checkFormat refuses a --format that is none of formats (cliflag.OneOf).
func checkFormat(f string) error { return cliflag.OneOf("--format", f, formats...) }

// writeView writes v as viewer sees it in format: its digest first, when it has one, then
// its messages and the elisions among them; asJSON is what the json format writes (a
// projection, a delta or a digest, which hold them). The text format writes the digest as
// its block and an elision as its line, the openai and anthropic formats the digest as its
// tag and an elision as an elided tag.
func writeView(e *env, format string, viewer transcript.Author, v render.View, asJSON any) error {
	switch format {
	case "text":
		return v.Text(e.stdout, viewer, console.Style(e.color))
	case "json":
		return writeJSON(e.stdout, asJSON)
	case string(render.ModelOpenAI), string(render.ModelAnthropic):
		// The bytes the service's model route serves: one implementation for both.
		data, err := v.ModelInput(render.ModelFormat(format), viewer)
		if err != nil {
			return err
		}
		_, err = e.stdout.Write(data)
		return err
	}
	return checkFormat(format)
}
