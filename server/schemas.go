package server

import (
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/sharing"
)

// authorSchema is how an Author looks on the wire (transcript.Author.MarshalJSON): the
// document describes Author by it, since Author's own fields are not its JSON.
type authorSchema struct {
	Type  string `json:"type" enum:"operator,person,agent,system" doc:"What wrote the row."`
	ID    string `json:"id,omitempty" doc:"The person's or agent's id; absent for the operator and the system."`
	Kind  string `json:"kind,omitempty" doc:"For the system: the notice kind (workflow, alert, ...)."`
	Label string `json:"label,omitempty" doc:"The display name as it was when the row was written."`
}

// stateSchema is how a sharing.State looks on the wire; present, viewer and digest may be
// left out.
type stateSchema struct {
	Conversation conversationSchema    `json:"conversation"`
	Watermark    transcript.Sequence   `json:"watermark" doc:"Every qualifying row at or below it was accepted."`
	Present      []transcript.Sequence `json:"present,omitempty" maxItems:"64" doc:"Rows above the watermark already accepted, ascending."`
	Viewer       *authorSchema         `json:"viewer,omitempty" doc:"The participant the state belongs to: a delta's next names the one it was read for, and a state naming another is conversation_changed. Absent: anyone's."`
	Digest       transcript.Sequence   `json:"digest,omitempty" doc:"The through of the conversation's digest the participant was given with the view the state starts from (a view with digest=true); a delta's next keeps it. Once a row of the delta's range edits or redacts a row that digest may stand for, the delta is digest_corrected: the participant's copy may hold words the desk no longer does. Absent or 0: no digest held."`
}

type conversationSchema struct {
	Desk   string              `json:"desk"`
	Thread transcript.Sequence `json:"thread,omitempty"`
}

// digestSchema documents a transcript.Digest, whose own fields carry no doc tags.
type digestSchema struct {
	Conversation conversationSchema  `json:"conversation"`
	Through      transcript.Sequence `json:"through" doc:"The newest row the digest stands for."`
	Rows         int                 `json:"rows" doc:"How many messages it stands for, every fold together."`
	Generation   int                 `json:"generation" doc:"1 for the conversation's first fold, then 2, 3, ..."`
	Digester     string              `json:"digester" doc:"Who wrote the text: extractive, openai:MODEL, ..."`
	Text         string              `json:"text" doc:"The digest: bounded text standing for the conversation's history up to through, folded only from rows every participant may read."`
}

// schemaNamer names the document's schemas as huma does, and the wire forms above and the
// answers of the library's types (viewAnswer, threadsAnswer) by the types they describe.
func schemaNamer(t reflect.Type, hint string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case reflect.TypeFor[authorSchema]():
		return "Author"
	case reflect.TypeFor[stateSchema]():
		return "State"
	case reflect.TypeFor[conversationSchema]():
		return "Conversation"
	case reflect.TypeFor[digestSchema]():
		return "Digest"
	case reflect.TypeFor[viewAnswer]():
		return "Projection"
	case reflect.TypeFor[threadsAnswer]():
		return "ThreadList"
	}
	return huma.DefaultSchemaNamer(t, hint)
}

// registerSchemas tells the document's registry how the library's types with JSON methods
// of their own look on the wire.
func registerSchemas(r huma.Registry) {
	r.RegisterTypeAlias(reflect.TypeFor[transcript.Author](), reflect.TypeFor[authorSchema]())
	r.RegisterTypeAlias(reflect.TypeFor[sharing.State](), reflect.TypeFor[stateSchema]())
	r.RegisterTypeAlias(reflect.TypeFor[transcript.Conversation](), reflect.TypeFor[conversationSchema]()) // one schema named Conversation
	r.RegisterTypeAlias(reflect.TypeFor[transcript.Digest](), reflect.TypeFor[digestSchema]())
}
