package main

import (
	"fmt"
	"io"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/plainjson"
	"github.com/sharedesk/transcript/token"
)

// listFormatUsage is --format's help for the commands that list things (desks, token list).
const listFormatUsage = "output `format`: text (an aligned table) or json (an array of objects, for scripts)"

// checkListFormat refuses a --format that desks and token list do not write.
func checkListFormat(command, format string) error {
	if format != "text" && format != "json" {
		return usageErrorf("%s --format %q: want text or json", command, format)
	}
	return nil
}

// deskJSON is one desk as desks --format json writes it.
type deskJSON struct {
	Desk   string `json:"desk"`
	Rows   uint64 `json:"rows"`
	Newest uint64 `json:"newest"` // the newest row's seq: a desk holds rows 1 to newest
}

// tokenJSON is one token as token list --format json writes it: never a secret or a hash
// (the database holds no secret; the ID is a hash of the hash, which grants nothing).
type tokenJSON struct {
	ID          string            `json:"id"`
	Desk        string            `json:"desk"`
	Participant transcript.Author `json:"participant"`
	Created     time.Time         `json:"created"`
	Revoked     *time.Time        `json:"revoked"` // null while it is not
}

// writeJSONList writes v, a list, as indented JSON and a line break: [] for none.
func writeJSONList(w io.Writer, v any) error {
	data, err := plainjson.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

// writeTokenJSON writes tokens as token list --format json does.
func writeTokenJSON(w io.Writer, tokens []token.Token) error {
	list := make([]tokenJSON, 0, len(tokens))
	for _, t := range tokens {
		j := tokenJSON{ID: t.ID, Desk: t.Desk, Participant: t.Participant, Created: t.Created.UTC()}
		if t.IsRevoked() {
			r := t.Revoked.UTC()
			j.Revoked = &r
		}
		list = append(list, j)
	}
	return writeJSONList(w, list)
}
