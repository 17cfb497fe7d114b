package main

import (
	"fmt"
	"io"

	"github.com/sharedesk/transcript/internal/cliflag"
	"github.com/sharedesk/transcript/internal/plainjson"
)

// listFormatUsage is --format's help for the commands that list things (desks, token list).
const listFormatUsage = "output `format`: text (an aligned table) or json (an array of objects, for scripts)"

// checkListFormat refuses a --format that desks and token list do not write (cliflag.OneOf).
func checkListFormat(command, format string) error {
	return cliflag.OneOf(command+" --format", format, "text", "json")
}

// deskJSON is one desk as desks --format json writes it.
type deskJSON struct {
	Desk   string `json:"desk"`
	Rows   uint64 `json:"rows"`
	Newest uint64 `json:"newest"` // the newest row's seq: a desk holds rows 1 to newest
}

// writeJSON writes v as indented JSON and a line break.
func writeJSON(w io.Writer, v any) error {
	data, err := plainjson.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}
