package server

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/sharedesk/transcript/sqlitestore"
)

// TestLocationNamesOfEveryOperation: a problem's location quotes the name of every
// parameter of every operation the OpenAPI document holds, and never a name the service
// does not know, plain or not.
func TestLocationNamesOfEveryOperation(t *testing.T) {
	st, err := sqlitestore.Open(t.Context(), filepath.Join(t.TempDir(), "desk.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s, err := New(st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct{ Name, In string } `json:"parameters"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(s.openapi, &doc); err != nil {
		t.Fatal(err)
	}
	params := 0
	for path, methods := range doc.Paths {
		for method, op := range methods {
			for _, p := range op.Parameters {
				params++
				if loc := p.In + "." + p.Name; s.names.safeLocation(loc) != loc {
					t.Errorf("%s %s: a problem's location %q reads %q", method, path, loc, s.names.safeLocation(loc))
				}
			}
		}
	}
	if params == 0 {
		t.Fatal("no parameter in the OpenAPI document")
	}
	for loc, want := range map[string]string{
		"query.secret-trs_abc":     "query.*",
		"query.plain":              "query.*",
		"path.plain":               "path.*",
		"header.X-Secret":          "header.*",
		"body.text":                "body.text",
		"body.audience[3].trs_abc": "body.audience[3].*",
	} {
		if got := s.names.safeLocation(loc); got != want {
			t.Errorf("a problem's location %q reads %q, want %q", loc, got, want)
		}
	}
}
