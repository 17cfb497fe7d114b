package server

import (
	"bytes"
	"encoding/json"
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/sharedesk/transcript"
)

// audienceEntry is one participant of a new message's audience, in either form the service
// speaks: the command line's syntax ("agent:triage", transcript.ParseAuthor's) or an Author
// object as every answer writes it ({"type":"agent","id":"triage"}), so that a client may
// post back an audience it read.
//
// Decoding never fails on a string or an object: an entry that names no participant keeps
// the reason in err, for the handler to answer with the entry's index (invalid-audience).
// The schema (validated before decoding) refuses anything else.
type audienceEntry struct {
	author transcript.Author
	err    error
}

// UnmarshalJSON decodes a string with transcript.ParseAuthor and an object with
// transcript.Author's UnmarshalJSON.
func (e *audienceEntry) UnmarshalJSON(data []byte) error {
	*e = audienceEntry{}
	if bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte(`"`)) {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		e.author, e.err = transcript.ParseAuthor(s)
		return nil
	}
	e.err = json.Unmarshal(data, &e.author)
	return nil
}

// Schema describes both forms: a oneOf of the participant syntax and the Author object.
func (audienceEntry) Schema(r huma.Registry) *huma.Schema {
	return &huma.Schema{
		Description: "A participant: the command line's syntax (operator, person:ID, agent:ID or system:KIND, each with an optional :LABEL) or an Author object, as answers write it.",
		OneOf: []*huma.Schema{
			{Type: huma.TypeString, Examples: []any{"agent:triage"}},
			r.Schema(reflect.TypeFor[transcript.Author](), true, ""),
		},
	}
}
