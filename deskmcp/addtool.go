package deskmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	strictjson "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sharedesk/transcript/internal/plainjson"
	"github.com/sharedesk/transcript/internal/quotable"
)

// toolFunc is a tool's own work: its arguments decoded, once they passed the tool's input
// schema; it returns the result's text and its structured content, or a refusal.
type toolFunc[In, Out any] func(ctx context.Context, in In) (text string, out Out, err error)

// addTool registers tool on srv, served by h. It does what mcp.AddTool does for a typed
// handler — the arguments checked against the tool's input schema (args, resolved) and
// decoded, a refusal made a tool error (isError, its text) the model reads, the result's
// Out marshalled as its structured content beside the text (toolResult) — with
// encoding/json, and without checking each result against the tool's output schema again:
// the SDK decodes every value through a decoder with a fresh 32 KiB buffer (three per call
// besides the protocol's own) and re-marshals what it checked (BENCHMARKS.md, "MCP", has what
// that costs a read_desk with no news). That every
// result matches its output schema is for the tests to show: internal/mcptest checks each
// result it receives against the schema the tool list gives.
func addTool[In, Out any](srv *mcp.Server, args *jsonschema.Resolved, tool *mcp.Tool, h toolFunc[In, Out]) {
	srv.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		raw := req.Params.Arguments
		var in In
		if err := checkArguments(raw, args, &in); err != nil {
			return toolError(err), nil
		}
		text, out, err := h(ctx, in)
		if err != nil {
			return toolError(err), nil
		}
		return toolResult(tool.Name, text, out)
	})
}

// toolResult is the result of tool's successful call: text, and out marshalled as its
// structured content without HTML escaping (<, > and & as themselves). The SDK's own
// encoding of a result escapes them on the wire again; a client decodes them back.
func toolResult(tool, text string, out any) (*mcp.CallToolResult, error) {
	structured, err := plainjson.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("deskmcp: marshalling the result of %s: %w", tool, err)
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: json.RawMessage(structured),
	}, nil
}

// checkArguments checks raw, a call's arguments (absent: {}), against schema, and decodes
// them into in. It decodes strictly, as the service decodes a request body: text that is
// not valid UTF-8 (raw bytes or an escaped lone surrogate) and a name given twice are
// refused (errArguments), where encoding/json would put U+FFFD in the text, so that two
// different keys became one, and keep the last of two names; names match case-sensitively.
func checkArguments(raw json.RawMessage, schema *jsonschema.Resolved, in any) error {
	args := map[string]any{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := strictjson.Unmarshal(raw, &args); err != nil {
			return argumentsError(err, schema)
		}
	}
	if err := schema.Validate(args); err != nil {
		return schemaError(err, schema, args)
	}
	if len(raw) > 0 && string(raw) != "null" {
		if err := strictjson.Unmarshal(raw, in); err != nil {
			return argumentsError(err, schema)
		}
	}
	return nil
}

// argumentsError is the refusal of arguments the decoder found wrong, in fixed text and the
// tool's own names: no value is quoted, nor a name given twice or one the tool does not
// take (it could be a secret pasted in the wrong place).
func argumentsError(err error, schema *jsonschema.Resolved) error {
	var value *strictjson.SemanticError
	switch {
	case errors.Is(err, jsontext.ErrDuplicateName):
		return errors.New("arguments are not a JSON object: a name is given twice")
	case errors.As(err, &value):
		if name, ok := argumentAt(value.JSONPointer, schema); ok {
			return fmt.Errorf("argument %q: a value the tool cannot take (a number out of range, or of another kind)", name)
		}
		return errors.New("arguments hold a value the tool cannot take (a number out of range, or of another kind)")
	}
	return errors.New("arguments are not a JSON object in UTF-8 (RFC 8259): bytes that are not UTF-8 and escaped lone surrogates are refused, not replaced")
}

// schemaError is the refusal of arguments that schema refused (err), in fixed text and the
// tool's own names, as argumentsError's: a name the tool does not take is quoted only when
// it is a plain one (quotable.Name), so that a mistyped argument is named, and the argument
// that does not fit is named with what the tool wants of it, never its value.
func schemaError(err error, schema *jsonschema.Resolved, args map[string]any) error {
	s := schema.Schema()
	for _, name := range slices.Sorted(maps.Keys(args)) {
		if _, ok := s.Properties[name]; ok {
			continue
		}
		takes := strings.Join(slices.Sorted(maps.Keys(s.Properties)), ", ")
		if !quotable.Name(name) {
			return fmt.Errorf("arguments hold a name the tool does not take (%s); it takes %s", quotable.NotQuoted, takes)
		}
		return fmt.Errorf("argument %q: the tool does not take it; it takes %s", name, takes)
	}
	for _, name := range s.Required {
		if _, ok := args[name]; !ok {
			return fmt.Errorf("argument %q is required", name)
		}
	}
	if m := schemaPath.FindStringSubmatch(err.Error()); m != nil {
		if p, ok := s.Properties[m[1]]; ok {
			return fmt.Errorf("argument %q does not fit the tool's schema: want %s", m[1], wanted(p))
		}
	}
	return errors.New("arguments do not fit the tool's schema")
}

// schemaPath finds the first argument a schema validation error's path names.
var schemaPath = regexp.MustCompile(`/properties/([^/:\s]+)`)

// argumentAt is the name of the argument a JSON pointer into the arguments lies in, when
// it is one the tool takes.
func argumentAt(pointer jsontext.Pointer, schema *jsonschema.Resolved) (string, bool) {
	for name := range pointer.Tokens() {
		_, ok := schema.Schema().Properties[name]
		return name, ok
	}
	return "", false
}

// wanted says what a property's schema wants, shortly: its type and bounds (numbers,
// lengths, entries).
func wanted(p *jsonschema.Schema) string {
	want := p.Type
	if want == "" {
		want = strings.Join(p.Types, " or ")
	}
	if want == "" {
		want = "a value of its schema"
	}
	if p.Minimum != nil {
		want += fmt.Sprintf(", at least %v", *p.Minimum)
	}
	if p.Maximum != nil {
		want += fmt.Sprintf(", at most %v", *p.Maximum)
	}
	if p.MaxLength != nil {
		want += fmt.Sprintf(", at most %d characters", *p.MaxLength)
	}
	if p.MaxItems != nil {
		want += fmt.Sprintf(", at most %d entries", *p.MaxItems)
	}
	return want
}

// toolError is the result of a refused call: the refusal's text for a model (toolText), as
// a tool error.
func toolError(err error) *mcp.CallToolResult {
	res := mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: toolText(err)}}}
	res.SetError(err)
	return &res
}
