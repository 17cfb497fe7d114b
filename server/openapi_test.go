package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/sharing"
)

type openAPIDoc struct {
	OpenAPI string                                 `json:"openapi"`
	Paths   map[string]map[string]openAPIOperation `json:"paths"`
}

type openAPIOperation struct {
	OperationID string                     `json:"operationId"`
	Security    []map[string][]string      `json:"security"`
	RequestBody *struct{ Required bool }   `json:"requestBody"`
	Responses   map[string]openAPIResponse `json:"responses"`
}

type openAPIResponse struct {
	Content map[string]json.RawMessage `json:"content"`
}

// TestOpenAPI: GET /openapi.json is an OpenAPI 3.1 document, and every operation in it
// answers as it documents: a valid request, one without a token (for those that need
// one) and one with an unknown parameter each get a status the document lists for the
// operation, with the content type it lists for that status.
func TestOpenAPI(t *testing.T) {
	f := newFixture(t, sqliteStore(t), server.Options{Rate: rate.Inf, Digester: digest.Extractive{}})
	r := f.do("GET", "/openapi.json", "", nil)
	if r.status != 200 {
		t.Fatalf("GET /openapi.json: %d", r.status)
	}
	var doc openAPIDoc
	if err := json.Unmarshal(r.body, &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1.") {
		t.Fatalf("openapi %q, want 3.1.x", doc.OpenAPI)
	}
	validBodies := map[string]any{
		"appendMessage": map[string]any{"content": "documented"},
		"delta":         map[string]any{"state": sharing.Initialized(transcript.Conversation{Desk: "eng"}, 0)},
		"elisionLines":  map[string]any{"elided": []transcript.Elision{{From: 3, Through: 3, Count: 1, Readers: []transcript.Author{operator, triage}}}},
		"editMessage":   map[string]any{"content": "documented edit"},
	}
	// An edit and a redaction of coder's rows: the reply, and a row of its own for the
	// redaction, so that the edit finds its row unredacted whichever comes first.
	redactable := f.post(f.coder, map[string]any{"content": "to redact"})
	validSeqs := map[string]transcript.Sequence{"editMessage": f.reply.Seq, "redactMessage": redactable.Seq}
	// The inspector's operations are the operator's; the model route needs its format.
	operatorOnly := map[string]bool{"signIn": true, "rows": true, "rowEvents": true, "participants": true, "foldDigest": true}
	validQueries := map[string]string{"modelInput": "?format=anthropic", "search": "?q=deploy"}
	seen := 0
	for path, methods := range doc.Paths {
		for method, op := range methods {
			seen++
			method = strings.ToUpper(method)
			query := validQueries[op.OperationID]
			path := strings.ReplaceAll(path, "{seq}", fmt.Sprint(validSeqs[op.OperationID]))
			url := strings.ReplaceAll(path, "{desk}", "eng") + query
			body := validBodies[op.OperationID]
			if op.RequestBody != nil && op.RequestBody.Required && body == nil {
				t.Errorf("%s %s: no valid body in the test for %s", method, path, op.OperationID)
			}
			check := func(what string, status int, ct string) {
				t.Helper()
				resp, ok := op.Responses[strconv.Itoa(status)]
				if !ok {
					t.Errorf("%s %s (%s): status %d is not documented", method, path, what, status)
					return
				}
				mt, _, _ := mime.ParseMediaType(ct)
				found := len(resp.Content) == 0 && ct == ""
				for c := range resp.Content {
					if m, _, _ := mime.ParseMediaType(c); m == mt {
						found = true
					}
				}
				if !found {
					t.Errorf("%s %s (%s): status %d with content type %q, documented %v", method, path, what, status, ct, keys(resp.Content))
				}
			}
			secret := ""
			if len(op.Security) > 0 {
				secret = f.coder
			}
			if operatorOnly[op.OperationID] {
				secret = f.op
			}
			status, ct := f.request(method, url, secret, body)
			check("valid", status, ct)
			if status >= 300 {
				t.Errorf("%s %s: a valid request got %d", method, path, status)
			}
			if len(op.Security) > 0 {
				status, ct = f.request(method, url, "", body)
				check("no token", status, ct)
				unknown := "?unknown=1"
				if query != "" {
					unknown = "&unknown=1"
				}
				status, ct = f.request(method, url+unknown, secret, body)
				check("unknown parameter", status, ct)
				status, ct = f.request(method, strings.ReplaceAll(path, "{desk}", "other")+query, secret, body)
				if strings.Contains(path, "{desk}") {
					check("another desk", status, ct)
				}
			}
		}
	}
	if seen != 19 {
		t.Errorf("%d operations documented, want 19: healthz, metrics, the nine /v1/ routes every client uses, the operator's fold and the inspector's seven", seen)
	}
}

// TestServedTextCitesNoSpec: what the service serves a user, the OpenAPI document and the
// page's files, cites no document this repository does not hold ("SPEC §12"): each states
// its contract itself.
func TestServedTextCitesNoSpec(t *testing.T) {
	f := newFixture(t, sqliteStore(t), server.Options{Rate: rate.Inf})
	for _, path := range []string{"/openapi.json", "/", "/static/inspector.js", "/static/inspector.css"} {
		r := f.do("GET", path, "", nil)
		if r.status != http.StatusOK {
			t.Fatalf("GET %s: %d", path, r.status)
		}
		if i := strings.Index(string(r.body), "SPEC"); i >= 0 {
			t.Errorf("GET %s cites SPEC: …%s…", path, r.body[max(0, i-60):min(len(r.body), i+40)])
		}
	}
}

// request sends a request and returns its status and content type, without reading more
// of the body than its start (a stream never ends).
func (e *env) request(method, url, secret string, body any) (int, string) {
	e.t.Helper()
	ctx, cancel := context.WithCancel(e.t.Context())
	defer cancel()
	var rd *strings.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = strings.NewReader(string(b))
	}
	var req *http.Request
	var err error
	if rd != nil {
		req, err = http.NewRequestWithContext(ctx, method, e.ts.URL+url, rd)
	} else {
		req, err = http.NewRequestWithContext(ctx, method, e.ts.URL+url, nil)
	}
	if err != nil {
		e.t.Fatal(err)
	}
	if secret != "" {
		req.Header.Set("Authorization", "Bearer "+secret)
	}
	res, err := e.ts.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode, res.Header.Get("Content-Type")
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestOpenAPIAudienceForms: the document says an append's audience entry is either form
// the route takes: a oneOf of the participant syntax (a string) and the Author object.
func TestOpenAPIAudienceForms(t *testing.T) {
	e := newEnv(t, sqliteStore(t), server.Options{})
	var doc struct {
		Paths map[string]map[string]struct {
			RequestBody struct {
				Content map[string]struct{ Schema schemaRef } `json:"content"`
			} `json:"requestBody"`
		} `json:"paths"`
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Items struct {
						OneOf []schemaRef `json:"oneOf"`
					} `json:"items"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(e.do("GET", "/openapi.json", "", nil).body, &doc); err != nil {
		t.Fatal(err)
	}
	ref := doc.Paths["/v1/desks/{desk}/messages"]["post"].RequestBody.Content["application/json"].Schema.Ref
	body := doc.Components.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")]
	forms := body.Properties["audience"].Items.OneOf
	if len(forms) != 2 || forms[0].Type != "string" || forms[1].Ref != "#/components/schemas/Author" {
		t.Errorf("the append body (%s) documents an audience entry as %+v, want a oneOf of a string and the Author schema", ref, forms)
	}
}

// schemaRef is a schema in the document, by its type or its reference.
type schemaRef struct {
	Type string `json:"type"`
	Ref  string `json:"$ref"`
}

// TestOpenAPIRefsResolve: every $ref in GET /openapi.json names a schema the document holds,
// so that a generator (openapi-typescript, datamodel-code-generator) can read it whole.
func TestOpenAPIRefsResolve(t *testing.T) {
	f := newFixture(t, sqliteStore(t), server.Options{Rate: rate.Inf})
	r := f.do("GET", "/openapi.json", "", nil)
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(r.body, &doc); err != nil {
		t.Fatal(err)
	}
	refs := regexp.MustCompile(`"\$ref":"#/components/schemas/([^"]+)"`).FindAllSubmatch(r.body, -1)
	if len(refs) == 0 {
		t.Fatal("no $ref in the document")
	}
	for _, m := range refs {
		if _, ok := doc.Components.Schemas[string(m[1])]; !ok {
			t.Errorf("$ref to %s, which components.schemas does not hold", m[1])
		}
	}
}
