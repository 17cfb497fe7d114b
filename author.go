package transcript

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sharedesk/transcript/internal/authorjson"
)

// AuthorKind says what wrote a row: the operator, a person, an agent or the system.
type AuthorKind uint8

// The four kinds of author. The zero AuthorKind is invalid.
const (
	KindOperator AuthorKind = iota + 1
	KindPerson
	KindAgent
	KindSystem
)

var kindNames = [...]string{
	KindOperator: "operator",
	KindPerson:   "person",
	KindAgent:    "agent",
	KindSystem:   "system",
}

// String returns the kind's JSON name ("operator", "person", "agent", "system"), or
// "AuthorKind(n)" for an invalid kind.
func (k AuthorKind) String() string {
	if k.valid() {
		return kindNames[k]
	}
	return fmt.Sprintf("AuthorKind(%d)", uint8(k))
}

func (k AuthorKind) valid() bool { return k >= KindOperator && k <= KindSystem }

// MarshalText returns k's name, as String gives it ("agent"); an invalid kind is an error
// matching ErrInvalidAuthor.
func (k AuthorKind) MarshalText() ([]byte, error) {
	if !k.valid() {
		return nil, refusedf(ErrInvalidAuthor, "unknown kind %d", uint8(k))
	}
	return []byte(kindNames[k]), nil
}

// UnmarshalText sets k to the kind whose name is text, as String gives it ("operator",
// "person", "agent", "system"). Any other text is an error matching ErrInvalidAuthor, and
// k is unchanged.
func (k *AuthorKind) UnmarshalText(text []byte) error {
	kind, err := parseAuthorKind(string(text))
	if err != nil {
		return err
	}
	*k = kind
	return nil
}

// parseAuthorKind returns the kind whose String is name.
func parseAuthorKind(name string) (AuthorKind, error) {
	for k := KindOperator; k <= KindSystem; k++ {
		if kindNames[k] == name {
			return k, nil
		}
	}
	return 0, refusedf(ErrInvalidAuthor, "unknown author type %q", name)
}

// Author is who wrote a row. The label is captured with the row, never looked up later, so a
// rename does not rewrite history.
type Author struct {
	Kind AuthorKind
	// ID is the person's or agent's id; for System, the notice kind ("workflow", "alert", ...);
	// empty for Operator.
	ID string
	// Label is the display name as it was when the row was written. It may be empty.
	Label string
}

// Operator returns the desk's operator.
func Operator() Author { return Author{Kind: KindOperator} }

// Person returns a human participant with a stable id and a display label.
func Person(id, label string) Author { return Author{Kind: KindPerson, ID: id, Label: label} }

// Agent returns an AI agent with a stable id and a display label.
func Agent(id, label string) Author { return Author{Kind: KindAgent, ID: id, Label: label} }

// System returns a system notice of the given kind ("workflow", "join", "alert", ...).
func System(kind, label string) Author { return Author{Kind: KindSystem, ID: kind, Label: label} }

// Same reports whether a and b are the same identity: same Kind and ID. Labels are ignored, so
// a participant who was renamed is still the same author.
func (a Author) Same(b Author) bool { return a.Kind == b.Kind && a.ID == b.ID }

// Validate reports whether a is a well-formed author: a known Kind, a non-empty ID for
// Person, Agent and System, and an empty ID for Operator. The error matches ErrInvalidAuthor.
func (a Author) Validate() error {
	switch {
	case !a.Kind.valid():
		return refusedf(ErrInvalidAuthor, "unknown kind %d", uint8(a.Kind))
	case a.Kind == KindOperator && a.ID != "":
		return refusedf(ErrInvalidAuthor, "operator with id %q", a.ID)
	case a.Kind != KindOperator && a.ID == "":
		return refusedf(ErrInvalidAuthor, "%s without %s", a.Kind, a.idName())
	}
	return nil
}

// valid is Validate without building an error: the walk asks it of a viewer once per aside.
func (a Author) valid() bool {
	return a.Kind.valid() && (a.Kind == KindOperator) == (a.ID == "")
}

// idName is the JSON key that carries ID for a's kind.
func (a Author) idName() string { return authorjson.IDKey(a.Kind == KindSystem) }

// String returns "kind:id" ("agent:triage", "system:workflow", "operator").
func (a Author) String() string {
	if a.ID == "" {
		return a.Kind.String()
	}
	return a.Kind.String() + ":" + a.ID
}

// ParseAuthor reads an author in the participant syntax the command line, the service and
// the MCP tools share: "operator[:LABEL]", "person:ID[:LABEL]", "agent:ID[:LABEL]" or
// "system:KIND[:LABEL]" — String's form, with an optional label after a second colon (the
// rest of s, colons included). An unknown kind or a missing id is an error matching
// ErrInvalidAuthor.
func ParseAuthor(s string) (Author, error) {
	kind, rest, _ := strings.Cut(s, ":")
	k, err := parseAuthorKind(kind)
	if err != nil {
		return Author{}, refusedf(ErrInvalidAuthor, "%q is not operator, person:ID, agent:ID or system:KIND", s)
	}
	a := Author{Kind: k}
	if k == KindOperator {
		a.Label = rest
	} else {
		a.ID, a.Label, _ = strings.Cut(rest, ":")
	}
	if err := a.Validate(); err != nil {
		return Author{}, refusedf(ErrInvalidAuthor, "%q is not operator, person:ID, agent:ID or system:KIND", s)
	}
	return a, nil
}

// authorJSON is the wire form of an Author.
type authorJSON authorjson.Form

// MarshalJSON encodes a as {"type":"operator"}, {"type":"person","id":..,"label":..},
// {"type":"agent","id":..,"label":..} or {"type":"system","kind":..,"label":..}. An empty
// label is omitted. An invalid author is an error.
func (a Author) MarshalJSON() ([]byte, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	return json.Marshal(authorJSON(authorjson.Make(a.Kind.String(), a.Kind == KindSystem, a.ID, a.Label)))
}

// UnmarshalJSON decodes the form MarshalJSON writes. An unknown type, a person, agent or
// system without its id (kind for system), or an id under the wrong key is an error matching
// ErrInvalidAuthor; a is unchanged on error.
func (a *Author) UnmarshalJSON(data []byte) error {
	var w authorJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return &InvalidError{Kind: ErrInvalidAuthor, Reason: err.Error(), Cause: err}
	}
	kind, err := parseAuthorKind(w.Type)
	if err != nil {
		return err
	}
	id, refused := authorjson.Form(w).AuthorID(kind == KindSystem)
	if refused != "" {
		return &InvalidError{Kind: ErrInvalidAuthor, Reason: refused}
	}
	got := Author{Kind: kind, ID: id, Label: w.Label}
	if err := got.Validate(); err != nil {
		return err
	}
	*a = got
	return nil
}
