package server

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
)

// TestWireMessageIsMessage: wireMessage has Message's members, in Message's order, with
// Message's options, so that a member added to Message cannot go missing from answers.
func TestWireMessageIsMessage(t *testing.T) {
	tags := func(typ reflect.Type) []string {
		var out []string
		for f := range typ.Fields() {
			out = append(out, f.Tag.Get("json"))
		}
		return out
	}
	at := tags(reflect.TypeFor[transcript.Message]())
	for i, tag := range at {
		if tag == "at,omitzero" {
			at[i] = "at,omitempty" // a string: "" for the zero time
		}
	}
	if diff := cmp.Diff(at, tags(reflect.TypeFor[wireMessage]())); diff != "" {
		t.Errorf("wireMessage's members are not Message's (-Message +wireMessage):\n%s", diff)
	}
}

// encodeJSON is v as encoding/json writes it, HTML escaped or not.
func encodeJSON(t *testing.T, v any, escapeHTML bool) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(v); err != nil {
		t.Fatalf("encoding %#v: %v", v, err)
	}
	return b.Bytes()
}

// randomWireMessages draws n messages with every member set or not, authors of every kind
// with labels that need escaping, and times in and out of UTC.
func randomWireMessages(r *rand.Rand, n int) []transcript.Message {
	texts := []string{"", "plain", `<b>&"quoted"\</b>`, "naïve — 中文 😀", "line\nbreak\ttab\u2028", "\x01\x7f"}
	text := func() string { return texts[r.IntN(len(texts))] }
	author := func() transcript.Author {
		label := text()
		switch r.IntN(4) {
		case 0:
			return transcript.Operator()
		case 1:
			return transcript.Person("p"+string(rune('a'+r.IntN(3))), label)
		case 2:
			return transcript.Agent("a1", label)
		default:
			return transcript.System("notice", label)
		}
	}
	zones := []*time.Location{time.UTC, time.FixedZone("", 5*3600+30*60), time.FixedZone("", -8*3600)}
	msgs := make([]transcript.Message, n)
	for i := range msgs {
		m := transcript.Message{Seq: transcript.Sequence(r.Uint64N(1 << 40)), Author: author(), Content: text()}
		if r.IntN(2) == 0 {
			m.Parent = transcript.Sequence(r.Uint64N(100) + 1)
		}
		if r.IntN(3) > 0 {
			m.At = time.Unix(r.Int64N(4e9), r.Int64N(1e9)*int64(r.IntN(2))).In(zones[r.IntN(len(zones))])
		}
		if r.IntN(3) == 0 {
			m.Audience = []transcript.Author{author(), author()}
		}
		if r.IntN(2) == 0 {
			m.Key = "k" + text()
		}
		if r.IntN(4) == 0 {
			m.Corrects, m.Redacted = transcript.Sequence(r.Uint64N(50)+1), r.IntN(2) == 0
		}
		if r.IntN(4) == 0 {
			m.Revised = transcript.Sequence(r.Uint64N(1<<40) + 1)
		}
		msgs[i] = m
	}
	return msgs
}

// TestWireEncodesAsMessages: the service writes a view and a search in wire form; an
// answer's wire form is the answer's JSON byte for byte (both HTML escaped, as a message's
// author is by its MarshalJSON) and the same JSON as the service wrote before (HTML not
// escaped), over messages that set every member of Message among them; an answer holding a
// message with no wire form is written by Message's methods, and fails as they do.
func TestWireEncodesAsMessages(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	set := map[string]bool{} // the Message members some drawn message sets
	for i := range 300 {
		msgs := randomWireMessages(r, r.IntN(6))
		if i == 0 {
			msgs = nil
		}
		for _, m := range msgs {
			v := reflect.ValueOf(m)
			for j := range v.NumField() {
				if !v.Field(j).IsZero() {
					set[v.Type().Field(j).Name] = true
				}
			}
		}
		digest := &transcript.Digest{Conversation: transcript.Conversation{Desk: "eng"}, Through: 3, Rows: 2, Generation: 1, Digester: "extractive", Text: "<t>"}
		elided := []transcript.Elision{{From: 4, Through: 5, Count: 2, Readers: []transcript.Author{transcript.Agent("a1", "<A>")}}}
		rendered := &Rendered{Messages: []string{"<m>"}, Elided: []string{"<e>"}, Digest: "<d>"}
		answers := []any{
			viewAnswer{Messages: msgs, Head: 9, Partial: i%2 == 0, Scanned: i, Dropped: i % 3, Digest: digest, Elided: elided, Rendered: rendered},
			SearchAnswer{Messages: msgs, Next: transcript.Sequence(i)},
		}
		for _, a := range answers {
			var written bytes.Buffer // as the service writes it
			if err := jsonFormat.Marshal(&written, a); err != nil {
				t.Fatal(err)
			}
			if want := encodeJSON(t, toWrite(a), false); !bytes.Equal(written.Bytes(), want) {
				t.Fatalf("the service does not write %T in wire form:\n got %s\nwant %s", a, written.Bytes(), want)
			}
			if got, want := encodeJSON(t, toWrite(a), true), encodeJSON(t, a, true); !bytes.Equal(got, want) {
				t.Fatalf("wire form of %T:\n got %s\nwant %s", a, got, want)
			}
			var got, was any
			if err := json.Unmarshal(encodeJSON(t, toWrite(a), false), &got); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(encodeJSON(t, a, false), &was); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(was, got); diff != "" {
				t.Fatalf("the service's JSON of %T changed (-before +now):\n%s", a, diff)
			}
		}
	}
	for f := range reflect.TypeFor[transcript.Message]().Fields() {
		if !set[f.Name] {
			t.Errorf("no drawn message sets Message.%s: randomWireMessages must draw it, so that a member wireMessages does not copy fails", f.Name)
		}
	}
	for name, m := range map[string]transcript.Message{
		"invalid author":            {Seq: 1, Author: transcript.Author{Kind: transcript.KindAgent}},
		"invalid audience":          {Seq: 1, Author: transcript.Operator(), Audience: []transcript.Author{{Kind: transcript.KindPerson}}},
		"year RFC 3339 cannot hold": {Seq: 1, Author: transcript.Operator(), At: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		a := viewAnswer{Messages: []transcript.Message{m}}
		if w, ok := toWrite(a).(viewAnswer); !ok || !reflect.DeepEqual(w, a) {
			t.Errorf("%s: toWrite = %#v, want the answer itself", name, toWrite(a))
		}
		if err := marshalAnswer(&bytes.Buffer{}, a); err == nil {
			t.Errorf("%s: marshalAnswer wrote it", name)
		}
	}
	type embedding struct {
		viewAnswer
		State string `json:"state"`
	}
	if e := (embedding{State: "s"}); !reflect.DeepEqual(toWrite(e), any(e)) {
		t.Errorf("toWrite rewrote a type embedding a view's answer: %#v", toWrite(e))
	}
}
