package deskmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	strictjson "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sharedesk/transcript/internal/plainjson"
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
			return argumentsError(err)
		}
	}
	if err := schema.Validate(args); err != nil {
		return fmt.Errorf("validating \"arguments\": %w", err)
	}
	if len(raw) > 0 && string(raw) != "null" {
		if err := strictjson.Unmarshal(raw, in); err != nil {
			return fmt.Errorf("arguments: %w", err)
		}
	}
	return nil
}

// argumentsError is the refusal of arguments the decoder found wrong, in fixed text: a
// name given twice is not quoted (it could be a secret pasted in the wrong place).
func argumentsError(err error) error {
	if errors.Is(err, jsontext.ErrDuplicateName) {
		return errors.New("arguments are not a JSON object: a name is given twice")
	}
	return errors.New("arguments are not a JSON object in UTF-8 (RFC 8259): bytes that are not UTF-8 and escaped lone surrogates are refused, not replaced")
}

// toolError is the result of a refused call: the refusal's text for a model (toolText), as
// a tool error.
func toolError(err error) *mcp.CallToolResult {
	res := mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: toolText(err)}}}
	res.SetError(err)
	return &res
}
