package server

import (
	"io"

	"github.com/danielgtaylor/huma/v2"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/authorjson"
)

// marshalAnswer writes an answer as huma does (encoding/json, HTML not escaped), a view's
// and a search's through their wire forms (toWrite).
func marshalAnswer(w io.Writer, v any) error {
	return huma.DefaultJSONFormat.Marshal(w, toWrite(v))
}

// toWrite returns what to encode for the answer v: the same JSON, written in one pass. A
// view's and a search's answer (matched by type, not by a type embedding one) come back with
// their messages as wireMessages, unless one of those has no wire form; every other answer,
// and one of those, comes back as it is.
func toWrite(v any) any {
	switch a := v.(type) {
	case viewAnswer:
		if msgs, ok := wireMessages(a.Messages); ok {
			return viewWire{Messages: msgs, viewAnswer: a}
		}
	case SearchAnswer:
		if msgs, ok := wireMessages(a.Messages); ok {
			return searchWire{Messages: msgs, SearchAnswer: a}
		}
	}
	return v
}

// wireMessage is a transcript.Message as encoding/json writes it, built of fields with no
// JSON methods of their own. encoding/json checks and compacts the output of every
// MarshalJSON it calls, a message's author's and time's among them, which costs an answer
// of many messages more than the rest of its encoding; this form costs none of that. Its
// members are Message's, in Message's order (TestWireMessageIsMessage).
type wireMessage struct {
	Seq      transcript.Sequence `json:"seq"`
	Parent   transcript.Sequence `json:"parent,omitempty"`
	Author   authorjson.Form     `json:"author"`
	Content  string              `json:"content"`
	At       string              `json:"at,omitempty"`
	Audience []authorjson.Form   `json:"audience,omitempty"`
	Key      string              `json:"key,omitempty"`
	Corrects transcript.Sequence `json:"corrects,omitempty"`
	Redacted bool                `json:"redacted,omitempty"`
	Revised  transcript.Sequence `json:"revised,omitempty"`
}

// wireMessages returns msgs as wireMessages, and false when one of them cannot be written
// so (an invalid author, a time RFC 3339 cannot hold): Message's own methods then write
// them, and report the error.
func wireMessages(msgs []transcript.Message) ([]wireMessage, bool) {
	if msgs == nil {
		return nil, true
	}
	out := make([]wireMessage, len(msgs))
	var at [64]byte // a time's text, before its string
	for i := range msgs {
		m := &msgs[i]
		author, ok := wireAuthor(m.Author)
		if !ok {
			return nil, false
		}
		w := wireMessage{Seq: m.Seq, Parent: m.Parent, Author: author, Content: m.Content, Key: m.Key,
			Corrects: m.Corrects, Redacted: m.Redacted, Revised: m.Revised}
		if !m.At.IsZero() {
			text, err := m.At.AppendText(at[:0]) // MarshalJSON's text, unquoted
			if err != nil {
				return nil, false
			}
			w.At = string(text)
		}
		if m.Audience != nil {
			w.Audience = make([]authorjson.Form, len(m.Audience))
			for j, a := range m.Audience {
				if w.Audience[j], ok = wireAuthor(a); !ok {
					return nil, false
				}
			}
		}
		out[i] = w
	}
	return out, true
}

// wireAuthor is the object Author.MarshalJSON writes for a, and false when a is invalid.
func wireAuthor(a transcript.Author) (authorjson.Form, bool) {
	if a.Validate() != nil {
		return authorjson.Form{}, false
	}
	return authorjson.Make(a.Kind.String(), a.Kind == transcript.KindSystem, a.ID, a.Label), true
}

// viewWire is a viewAnswer with its messages in wire form. Messages comes first, as in
// viewAnswer, and hides the embedded answer's.
type viewWire struct {
	Messages []wireMessage `json:"messages"`
	viewAnswer
}

// searchWire is a SearchAnswer with its messages in wire form.
type searchWire struct {
	Messages []wireMessage `json:"messages"`
	SearchAnswer
}
