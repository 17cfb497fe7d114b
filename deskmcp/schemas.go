package deskmcp

import (
	"fmt"
	"reflect"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/sharing"
)

// toolSchemas are the tools' input and output schemas, made once: every Server registers
// the same pointers, so the SDK's SchemaCache resolves each only once however many servers
// (one per HTTP request) are made.
type toolSchemas struct {
	readIn, postIn, editIn, redactIn, viewIn, threadsIn, searchIn *jsonschema.Schema
	// postOut, a stored Message, is edit_message's and redact_message's too.
	readOut, postOut, viewOut, threadsOut, searchOut *jsonschema.Schema
	// The input schemas resolved, for checking arguments (addTool).
	readArgs, postArgs, editArgs, redactArgs, viewArgs, threadsArgs, searchArgs *jsonschema.Resolved
}

// schemas returns the tools' schemas, or the error that made them impossible (a bug: a
// test builds them).
var schemas = sync.OnceValues(func() (*toolSchemas, error) {
	var s toolSchemas
	var err error
	for _, x := range []struct {
		dst **jsonschema.Schema
		t   reflect.Type
	}{
		{&s.readIn, reflect.TypeFor[ReadDeskArgs]()},
		{&s.postIn, reflect.TypeFor[PostMessageArgs]()},
		{&s.editIn, reflect.TypeFor[EditMessageArgs]()},
		{&s.redactIn, reflect.TypeFor[RedactMessageArgs]()},
		{&s.viewIn, reflect.TypeFor[ViewArgs]()},
		{&s.threadsIn, reflect.TypeFor[ListThreadsArgs]()},
		{&s.searchIn, reflect.TypeFor[SearchDeskArgs]()},
		{&s.readOut, reflect.TypeFor[ReadDeskResult]()},
		{&s.postOut, reflect.TypeFor[transcript.Message]()},
		{&s.viewOut, reflect.TypeFor[ViewResult]()},
		{&s.threadsOut, reflect.TypeFor[ThreadsResult]()},
		{&s.searchOut, reflect.TypeFor[SearchDeskResult]()},
	} {
		if *x.dst, err = jsonschema.ForType(x.t, &jsonschema.ForOptions{TypeSchemas: wireSchemas}); err != nil {
			return nil, fmt.Errorf("deskmcp: the schema of %v: %w", x.t, err)
		}
	}
	bound(s.readIn, "max_tokens", 0, 0)
	bound(s.viewIn, "max_tokens", 0, 0)
	bound(s.viewIn, "window", 0, transcript.ScanLimit)
	bound(s.threadsIn, "limit", 0, transcript.MaxThreadLimit)
	bound(s.searchIn, "max_tokens", 0, 0)
	s.postIn.Properties["audience"].MaxItems = ptr(transcript.MaxAudience)
	s.postIn.Properties["key"].MaxLength = ptr(transcript.MaxKeyLen)
	for _, in := range []*jsonschema.Schema{s.editIn, s.redactIn} {
		bound(in, "seq", 1, 0)
		in.Properties["key"].MaxLength = ptr(transcript.MaxKeyLen)
	}
	s.readOut.Properties["reinitialized"].Enum = reinitializedNames()
	for _, x := range []struct {
		dst **jsonschema.Resolved
		s   *jsonschema.Schema
	}{{&s.readArgs, s.readIn}, {&s.postArgs, s.postIn}, {&s.editArgs, s.editIn}, {&s.redactArgs, s.redactIn}, {&s.viewArgs, s.viewIn}, {&s.threadsArgs, s.threadsIn}, {&s.searchArgs, s.searchIn}} {
		if *x.dst, err = x.s.Resolve(nil); err != nil {
			return nil, fmt.Errorf("deskmcp: resolving an input schema: %w", err)
		}
	}
	return &s, nil
})

// wireSchemas describe the library's types whose JSON is their own (Author.MarshalJSON),
// not their fields.
var wireSchemas = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[transcript.Author](): {
		Type:        "object",
		Description: `A participant: {"type":"operator"}, {"type":"person","id":..}, {"type":"agent","id":..} or {"type":"system","kind":..}, each with an optional label.`,
		Properties: map[string]*jsonschema.Schema{
			"type":  {Type: "string", Enum: []any{"operator", "person", "agent", "system"}},
			"id":    {Type: "string", Description: "The person's or agent's id."},
			"kind":  {Type: "string", Description: "The system notice's kind."},
			"label": {Type: "string", Description: "The display name as it was when the row was written."},
		},
		Required:             []string{"type"},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	},
}

// bound sets an integer property's minimum, and its maximum when max > 0.
func bound(s *jsonschema.Schema, name string, lo, hi int) {
	p := s.Properties[name]
	p.Minimum = ptr(float64(lo))
	if hi > 0 {
		p.Maximum = ptr(float64(hi))
	}
}

func ptr[T any](v T) *T { return &v }

// reinitializedNames are the values of ReadDeskResult.Reinitialized.
func reinitializedNames() []any {
	out := []any{firstRead}
	for _, r := range []sharing.Reason{sharing.StateEvicted, sharing.GapTooLarge, sharing.WatermarkUnavailable, sharing.ConversationChanged, sharing.DigestCorrected} {
		out = append(out, r.String())
	}
	return out
}

// firstRead is ReadDeskResult.Reinitialized for a conversation the participant never read
// (sharing.Book.Lookup's reason 0).
const firstRead = "first_read"
