package plainjson

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestNoHTMLEscaping: <, > and & come out as themselves, and the bytes are the JSON of the
// same value, without json.Marshal's trailing-newline-free form changing.
func TestNoHTMLEscaping(t *testing.T) {
	type doc struct {
		Content string `json:"content"`
	}
	in := doc{Content: `<message seq="2"> a & b </message>`}
	for name, marshal := range map[string]func(any) ([]byte, error){
		"Marshal":       Marshal,
		"MarshalIndent": func(v any) ([]byte, error) { return MarshalIndent(v, "", "  ") },
	} {
		got, err := marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(got), `"<message seq=\"2\"> a & b </message>"`) {
			t.Errorf("%s = %s, want <, > and & as themselves", name, got)
		}
		var back doc
		if err := json.Unmarshal(got, &back); err != nil || back != in {
			t.Errorf("%s = %s: decodes to %+v, %v; want %+v", name, got, back, err, in)
		}
		if strings.HasSuffix(string(got), "\n") {
			t.Errorf("%s = %q ends in a newline, unlike json.Marshal's", name, got)
		}
	}
	indented, _ := MarshalIndent(in, "", "  ")
	if want := "{\n  \"content\": "; !strings.HasPrefix(string(indented), want) {
		t.Errorf("MarshalIndent = %s, want it indented", indented)
	}
}
