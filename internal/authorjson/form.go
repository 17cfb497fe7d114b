package authorjson

import "fmt"

// Form is an author's JSON object: {"type":"operator"}, {"type":"person","id":..,"label":..},
// {"type":"agent","id":..,"label":..} or {"type":"system","kind":..,"label":..}. Type is
// the author's kind by name; an empty id, kind or label is omitted.
type Form struct {
	Type  string `json:"type"`
	ID    string `json:"id,omitempty"`
	Kind  string `json:"kind,omitempty"`
	Label string `json:"label,omitempty"`
}

// IDKey returns the key that carries an author's id: "kind" for a system author (system
// true), "id" for every other.
func IDKey(system bool) string {
	if system {
		return "kind"
	}
	return "id"
}

// Make returns the Form of an author of type typ with id and label, the id under
// IDKey(system).
func Make(typ string, system bool, id, label string) Form {
	f := Form{Type: typ, Label: label}
	if system {
		f.Kind = id
	} else {
		f.ID = id
	}
	return f
}

// AuthorID returns the id f carries under IDKey(system). When the other of "id" and "kind"
// holds a value too, the id is "" and refused says what is wrong, naming f.Type and that
// key ("agent with a \"kind\" key"); refused is "" otherwise.
func (f Form) AuthorID(system bool) (id, refused string) {
	id, other := f.ID, f.Kind
	if system {
		id, other = f.Kind, f.ID
	}
	if other != "" {
		return "", fmt.Sprintf("%s with a %q key", f.Type, IDKey(!system))
	}
	return id, ""
}
