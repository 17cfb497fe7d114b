package main

import (
	"fmt"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/console"
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
		return render.StyledText(e.stdout, viewer, msgs, console.Style(e.color), elided...)
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
