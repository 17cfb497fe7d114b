package server

import (
	"reflect"

	"github.com/danielgtaylor/huma/v2"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/sharedesk/transcript"
)

// audienceEntry is one participant of a new message's audience, in either form the service
// speaks: the command line's syntax ("agent:triage", transcript.ParseAuthor's) or an Author
// object as every answer writes it ({"type":"agent","id":"triage"}), so that a client may
// post back an audience it read.
//
// Decoding (UnmarshalJSONFrom) never fails on a string or on an object of the Author's
// members: an entry that names no participant keeps the reason in err, for the handler to
// answer with the entry's index (invalid-audience). An object is decoded as the body is
// (unmarshalBody): a member given twice, in another case or unknown is an error, and so is
// anything but a string or an object (the schema, validated before decoding, says so
// first).
type audienceEntry struct {
	author transcript.Author
	err    error
}

// UnmarshalJSONFrom decodes a string with transcript.ParseAuthor and an object with
// transcript.Author's UnmarshalJSON, once it holds only an Author's members (wireMembers).
func (e *audienceEntry) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	*e = audienceEntry{}
	if dec.PeekKind() == '"' {
		var s string
		if err := json.UnmarshalDecode(dec, &s); err != nil {
			return err
		}
		e.author, e.err = transcript.ParseAuthor(s)
		return nil
	}
	members, err := wireMembers[authorSchema](dec)
	if err != nil {
		return err
	}
	e.err = e.author.UnmarshalJSON(members)
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
