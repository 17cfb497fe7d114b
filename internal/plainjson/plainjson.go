// Package plainjson encodes JSON that people and models read: as encoding/json does, but
// with <, > and & written as themselves, not as \u003c, \u003e and \u0026. The bytes are
// valid JSON all the same; escaping only guards JSON pasted into HTML, which these are not.
package plainjson

import (
	"bytes"
	"encoding/json"
)

// Marshal returns what json.Marshal returns for v, without HTML escaping.
func Marshal(v any) ([]byte, error) {
	return MarshalIndent(v, "", "")
}

// MarshalIndent returns what json.MarshalIndent returns for v, without HTML escaping; with
// an empty prefix and indent, what Marshal returns. Like json.Marshal, no newline follows.
func MarshalIndent(v any, prefix, indent string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, indent)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
