package transcript_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/sharedesk/transcript"
)

func TestAuthorJSON(t *testing.T) {
	tests := []struct {
		author transcript.Author
		json   string
	}{
		{transcript.Operator(), `{"type":"operator"}`},
		{transcript.Person("ana", "Ana"), `{"type":"person","id":"ana","label":"Ana"}`},
		{transcript.Agent("triage", "Triage"), `{"type":"agent","id":"triage","label":"Triage"}`},
		{transcript.System("workflow", "CI"), `{"type":"system","kind":"workflow","label":"CI"}`},
		{transcript.Agent("quiet", ""), `{"type":"agent","id":"quiet"}`},
	}
	for _, tt := range tests {
		got, err := json.Marshal(tt.author)
		if err != nil || string(got) != tt.json {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", tt.author, got, err, tt.json)
		}
		var back transcript.Author
		if err := json.Unmarshal([]byte(tt.json), &back); err != nil || back != tt.author {
			t.Errorf("Unmarshal(%s) = %+v, %v; want %+v", tt.json, back, err, tt.author)
		}
	}
}

func TestAuthorJSONRejects(t *testing.T) {
	for _, in := range []string{
		`{"type":"robot","id":"r2"}`,
		`{"type":""}`,
		`{}`,
		`{"type":"person","label":"Ana"}`,
		`{"type":"agent","id":""}`,
		`{"type":"system","label":"CI"}`,
		`{"type":"system","id":"workflow"}`,
		`{"type":"person","kind":"ana"}`,
		`{"type":"operator","id":"boss"}`,
		`{"type":7}`,
		`"agent"`,
	} {
		a := transcript.Agent("keep", "me")
		err := json.Unmarshal([]byte(in), &a)
		if !errors.Is(err, transcript.ErrInvalidAuthor) {
			t.Errorf("Unmarshal(%s): err = %v, want ErrInvalidAuthor", in, err)
		}
		if a != transcript.Agent("keep", "me") {
			t.Errorf("Unmarshal(%s) changed the author on error: %+v", in, a)
		}
	}
	if _, err := json.Marshal(transcript.Author{Kind: transcript.KindAgent}); !errors.Is(err, transcript.ErrInvalidAuthor) {
		t.Errorf("Marshal of an agent without id: err = %v, want ErrInvalidAuthor", err)
	}
}

func TestAuthorValidateAndSame(t *testing.T) {
	valid := []transcript.Author{transcript.Operator(), transcript.Person("p", ""), transcript.Agent("a", "A"), transcript.System("alert", "")}
	for _, a := range valid {
		if err := a.Validate(); err != nil {
			t.Errorf("%+v.Validate() = %v", a, err)
		}
	}
	invalid := []transcript.Author{{}, {Kind: 9, ID: "x"}, {Kind: transcript.KindOperator, ID: "x"}, transcript.Person("", "P"), transcript.Agent("", ""), transcript.System("", "CI")}
	for _, a := range invalid {
		if err := a.Validate(); !errors.Is(err, transcript.ErrInvalidAuthor) {
			t.Errorf("%+v.Validate() = %v, want ErrInvalidAuthor", a, err)
		}
	}
	if !transcript.Agent("a", "Old name").Same(transcript.Agent("a", "New name")) {
		t.Error("a renamed agent is not Same")
	}
	if transcript.Agent("a", "").Same(transcript.Person("a", "")) {
		t.Error("an agent and a person with one id are Same")
	}
	if got := transcript.KindSystem.String(); got != "system" {
		t.Errorf("KindSystem.String() = %q", got)
	}
	if got := transcript.AuthorKind(0).String(); got != "AuthorKind(0)" {
		t.Errorf("AuthorKind(0).String() = %q", got)
	}
}

func TestParseAuthor(t *testing.T) {
	for _, c := range []struct {
		in   string
		want transcript.Author
		ok   bool
	}{
		{"operator", transcript.Operator(), true},
		{"operator:The Op", transcript.Author{Kind: transcript.KindOperator, Label: "The Op"}, true},
		{"agent:triage", transcript.Agent("triage", ""), true},
		{"agent:triage:Triage: the bot", transcript.Agent("triage", "Triage: the bot"), true},
		{"person:ana:Ana", transcript.Person("ana", "Ana"), true},
		{"system:workflow:CI", transcript.System("workflow", "CI"), true},
		{"agent", transcript.Author{}, false},
		{"agent:", transcript.Author{}, false},
		{"robot:x", transcript.Author{}, false},
		{"", transcript.Author{}, false},
	} {
		got, err := transcript.ParseAuthor(c.in)
		if c.ok != (err == nil) || got != c.want || (err != nil && !errors.Is(err, transcript.ErrInvalidAuthor)) {
			t.Errorf("ParseAuthor(%q) = %+v, %v; want %+v, ok %v", c.in, got, err, c.want, c.ok)
		}
		if c.ok && c.want.Label == "" {
			if back, _ := transcript.ParseAuthor(got.String()); back != got {
				t.Errorf("ParseAuthor(%q).String() does not read back", c.in)
			}
		}
	}
}

// TestAuthorErrorSaysWhatIsWrong: every refusal of an author is an *InvalidError that
// matches ErrInvalidAuthor, says what is wrong in Reason, and sets Cause only when the JSON
// is no author object at all.
func TestAuthorErrorSaysWhatIsWrong(t *testing.T) {
	var a transcript.Author
	_, parseErr := transcript.ParseAuthor("robot:r2")
	var kind transcript.AuthorKind
	kindErr := kind.UnmarshalText([]byte("robot"))
	cases := []struct {
		name   string
		err    error
		reason string
		json   bool
	}{
		{"Validate", transcript.Agent("", "x").Validate(), "agent without id", false},
		{"ParseAuthor", parseErr, `"robot:r2" is not operator, person:ID, agent:ID or system:KIND`, false},
		{"AuthorKind.UnmarshalText", kindErr, `unknown author type "robot"`, false},
		{"a wrong key", json.Unmarshal([]byte(`{"type":"agent","id":"x","kind":"k"}`), &a), `agent with a "kind" key`, false},
		{"no object", json.Unmarshal([]byte(`"agent:x"`), &a), "", true},
	}
	for _, c := range cases {
		ae, ok := errors.AsType[*transcript.InvalidError](c.err)
		switch {
		case !ok:
			t.Errorf("%s: %#v, want an *InvalidError", c.name, c.err)
		case !errors.Is(c.err, transcript.ErrInvalidAuthor):
			t.Errorf("%s: %v does not match ErrInvalidAuthor", c.name, c.err)
		case c.json != (ae.Cause != nil):
			t.Errorf("%s: Cause = %v, want it set only for JSON that is no author object", c.name, ae.Cause)
		case !c.json && (ae.Reason != c.reason || c.err.Error() != "invalid author: "+c.reason):
			t.Errorf("%s: Reason %q, message %q; want %q", c.name, ae.Reason, c.err, c.reason)
		}
	}
}

// TestAuthorKindText: a kind's text is its String, and reads back as the kind; an invalid
// kind has no text, and an unknown text leaves the kind as it was.
func TestAuthorKindText(t *testing.T) {
	for _, k := range []transcript.AuthorKind{transcript.KindOperator, transcript.KindPerson, transcript.KindAgent, transcript.KindSystem} {
		text, err := k.MarshalText()
		var got transcript.AuthorKind
		if err != nil || string(text) != k.String() {
			t.Errorf("%v.MarshalText() = %q, %v; want %q", k, text, err, k.String())
		}
		if err := got.UnmarshalText(text); err != nil || got != k {
			t.Errorf("UnmarshalText(%q) = %v, %v; want %v", text, got, err, k)
		}
	}
	if _, err := transcript.AuthorKind(0).MarshalText(); !errors.Is(err, transcript.ErrInvalidAuthor) {
		t.Errorf("AuthorKind(0).MarshalText() = %v, want ErrInvalidAuthor", err)
	}
	k := transcript.KindAgent
	if err := k.UnmarshalText([]byte("robot")); !errors.Is(err, transcript.ErrInvalidAuthor) || k != transcript.KindAgent {
		t.Errorf("UnmarshalText(robot) = %v, kind %v; want ErrInvalidAuthor and agent", err, k)
	}
}
