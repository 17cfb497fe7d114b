package authorjson

import "testing"

func TestAuthorID(t *testing.T) {
	for _, tt := range []struct {
		f           Form
		system      bool
		id, refused string
	}{
		{Form{Type: "agent", ID: "triage"}, false, "triage", ""},
		{Form{Type: "system", Kind: "workflow"}, true, "workflow", ""},
		{Form{Type: "operator"}, false, "", ""},
		{Form{Type: "agent", ID: "x", Kind: "k"}, false, "", `agent with a "kind" key`},
		{Form{Type: "system", Kind: "ci", ID: "x"}, true, "", `system with a "id" key`},
		{Form{Type: "system", ID: "x"}, true, "", `system with a "id" key`},
	} {
		id, refused := tt.f.AuthorID(tt.system)
		if id != tt.id || refused != tt.refused {
			t.Errorf("%+v.AuthorID(%v) = %q, %q; want %q, %q", tt.f, tt.system, id, refused, tt.id, tt.refused)
		}
	}
}

func TestMake(t *testing.T) {
	if got, want := Make("system", true, "ci", "CI"), (Form{Type: "system", Kind: "ci", Label: "CI"}); got != want {
		t.Errorf("Make system = %+v, want %+v", got, want)
	}
	if got, want := Make("person", false, "ana", "Ana"), (Form{Type: "person", ID: "ana", Label: "Ana"}); got != want {
		t.Errorf("Make person = %+v, want %+v", got, want)
	}
	if IDKey(true) != "kind" || IDKey(false) != "id" {
		t.Errorf("IDKey(true), IDKey(false) = %q, %q; want kind, id", IDKey(true), IDKey(false))
	}
}
