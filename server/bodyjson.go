package server

import (
	"errors"
	"strings"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/validation"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/sharing"
)

// jsonFormat is the service's JSON: answers are written by marshalAnswer and request bodies
// are read by unmarshalBody.
var jsonFormat = huma.Format{Marshal: marshalAnswer, Unmarshal: unmarshalBody}

// unmarshalBody decodes a request body strictly, with github.com/go-json-experiment/json as
// import reads JSON Lines: member names match case-sensitively, and a name given twice, a
// member the type does not have and invalid UTF-8 are errors, where encoding/json would keep
// the last of two names (so that a proxy or a log reading the first would see another
// aside's reader than the store), match "Content" to content, or mangle the text. Types with
// JSON methods of their own (transcript.Author, sharing.State) are held to the same rules
// through their wire forms (strictly). huma calls it twice a body: into an any, which it
// validates against the schema, then into the operation's input. Every error is a
// *bodyError.
func unmarshalBody(data []byte, v any) error {
	err := json.Unmarshal(data, v, json.RejectUnknownMembers(true), json.WithUnmarshalers(strictTypes))
	if err == nil {
		return nil
	}
	return decodeError(err)
}

// strictTypes decodes the library's types with JSON methods of their own strictly: as the
// wire forms the document describes them by (schemas.go).
var strictTypes = json.JoinUnmarshalers(
	strictly[authorSchema, transcript.Author](),
	strictly[stateSchema, sharing.State](),
)

// strictly returns an unmarshaler of T that decodes the value as W, T's wire form
// (wireMembers), and gives the members to T's own UnmarshalJSON, whose rules and errors
// stand. A null is left to T's UnmarshalJSON.
func strictly[W, T any, PT interface {
	*T
	json.Unmarshaler
}]() *json.Unmarshalers {
	return json.UnmarshalFromFunc(func(dec *jsontext.Decoder, t PT) error {
		if dec.PeekKind() == 'n' {
			return errors.ErrUnsupported // the default: T's UnmarshalJSON
		}
		members, err := wireMembers[W](dec)
		if err != nil {
			return err
		}
		return t.UnmarshalJSON(members)
	})
}

// wireMembers decodes dec's next value into W with dec's options, and returns W marshalled
// again: the members a type's UnmarshalJSON may then read, with nothing the body's rules
// refuse.
func wireMembers[W any](dec *jsontext.Decoder) ([]byte, error) {
	var w W
	if err := json.UnmarshalDecode(dec, &w); err != nil {
		return nil, err
	}
	return json.Marshal(w)
}

// msgDuplicateProperty is the error message for a member name given twice, as huma's
// validation.MsgUnexpectedProperty is for a name the schema does not have.
const msgDuplicateProperty = "duplicate property"

// bodyError is what unmarshalBody found wrong, and where, as a location of the problem's
// errors ("body.audience[0].id"). huma keeps only an unmarshaler's text, at the location
// "body", so Error joins the two and cleanProblem takes them apart again (splitBodyError).
// Its message is fixed text: never the body's.
type bodyError struct {
	location string
	message  string
}

// bodyErrorAt separates a bodyError's location from its message in its text.
const bodyErrorAt = " at body"

func (e *bodyError) Error() string { return e.message + " at " + e.location }

// splitBodyError returns the location and message of a bodyError's text, or ok false for
// any other text.
func splitBodyError(text string) (location, message string, ok bool) {
	message, rest, ok := strings.Cut(text, bodyErrorAt)
	if !ok || rest != "" && rest[0] != '.' && rest[0] != '[' {
		return "", "", false
	}
	return "body" + rest, message, true
}

// decodeError is the *bodyError for what the decoder found: a name given twice or unknown,
// at the member; anything else, fixed text at the body or the value it found wrong (for a
// state, its member a *sharing.StateError names).
func decodeError(err error) *bodyError {
	if serr, ok := errors.AsType[*jsontext.SyntacticError](err); ok {
		if errors.Is(serr.Err, jsontext.ErrDuplicateName) {
			return &bodyError{location: bodyLocation(serr.JSONPointer), message: msgDuplicateProperty}
		}
		return &bodyError{location: "body", message: "the body is not JSON (RFC 8259, in UTF-8)"}
	}
	// A decoder's error inside a type's unmarshaler comes wrapped in one for the value: the
	// innermost says where.
	var inner *json.SemanticError
	for e := err; e != nil; e = errors.Unwrap(e) {
		if s, ok := e.(*json.SemanticError); ok {
			inner = s
		}
	}
	if inner == nil {
		return &bodyError{location: "body", message: notOfTheSchema}
	}
	if errors.Is(inner.Err, json.ErrUnknownName) {
		return &bodyError{location: bodyLocation(inner.JSONPointer), message: validation.MsgUnexpectedProperty}
	}
	location := bodyLocation(inner.JSONPointer)
	if se, ok := errors.AsType[*sharing.StateError](err); ok && se.Member != "" {
		location += "." + se.Member // the state's member at fault: "body.state.viewer"
	}
	return &bodyError{location: location, message: notOfTheSchema}
}

// notOfTheSchema is the message for a body whose JSON the operation cannot take.
const notOfTheSchema = "the body is not JSON of the operation's schema"

// bodyLocation is the location of the value p points to, as huma writes one:
// "/audience/0/id" is "body.audience[0].id".
func bodyLocation(p jsontext.Pointer) string {
	var b strings.Builder
	b.WriteString("body")
	for tok := range p.Tokens() {
		if tok != "" && strings.Trim(tok, "0123456789") == "" {
			b.WriteString("[" + tok + "]")
		} else {
			b.WriteString("." + tok)
		}
	}
	return b.String()
}
