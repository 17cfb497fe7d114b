package importer

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sharedesk/transcript"
)

func TestDecodeLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		line string
		want decoded
	}{
		{"operator", `{"author":{"type":"operator"},"content":"hi"}`, decoded{M: transcript.Message{Author: transcript.Author{Kind: transcript.KindOperator}, Content: "hi"}}},
		{"string ids", `{"id":"a","author":{"type":"person","id":"ana","label":"Ana"},"content":"","parent":"b"}`,
			decoded{ID: "a", M: transcript.Message{Author: transcript.Person("ana", "Ana"), Content: "", Key: "a"}, Parent: "b"}},
		{"number ids", `{"id":12,"author":{"type":"agent","id":"x"},"content":"c","parent":3}`,
			decoded{ID: "12", M: transcript.Message{Author: transcript.Agent("x", ""), Content: "c", Key: "12"}, Parent: "3"}},
		{"seqs", `{"seq":5,"author":{"type":"operator"},"content":"c","parent_seq":2}`,
			decoded{Seq: 5, ParentSeq: 2, M: transcript.Message{Author: transcript.Operator(), Content: "c"}}},
		{"null seqs", `{"seq":null,"author":{"type":"operator"},"content":"c","parent_seq":null}`, decoded{M: transcript.Message{Author: transcript.Operator(), Content: "c"}}},
		{"a printable key of 256 bytes", `{"id":"` + strings.Repeat("ü", 128) + `","author":{"type":"operator"},"content":"c"}`,
			decoded{ID: lineID(strings.Repeat("ü", 128)), M: transcript.Message{Author: transcript.Operator(), Content: "c", Key: strings.Repeat("ü", 128)}}},
		{"system and time", `{"author":{"type":"system","kind":"workflow","label":"CI"},"content":"c","at":"2026-11-30T09:00:00+01:00"}`,
			decoded{M: transcript.Message{Author: transcript.System("workflow", "CI"), Content: "c", At: time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)}}},
		{"null ids", `{"id":null,"author":{"type":"operator"},"content":"x","parent":null}`, decoded{M: transcript.Message{Author: transcript.Operator(), Content: "x"}}},
		{"aside", `{"author":{"type":"agent","id":"x"},"content":"psst","audience":[{"type":"operator"},{"type":"person","id":"ana","label":"Ana"},{"type":"system","kind":"workflow"}]}`,
			decoded{M: transcript.Message{Author: transcript.Agent("x", ""), Content: "psst", Audience: []transcript.Author{transcript.Operator(), transcript.Person("ana", "Ana"), transcript.System("workflow", "")}}}},
		{"null audience", `{"author":{"type":"operator"},"content":"x","audience":null}`, decoded{M: transcript.Message{Author: transcript.Operator(), Content: "x"}}},
		{"empty audience", `{"author":{"type":"operator"},"content":"x","audience":[]}`, decoded{M: transcript.Message{Author: transcript.Operator(), Content: "x"}}},
		{"surrounding space", " \t{\"author\":{\"type\":\"operator\"},\"content\":\"x\"}\r", decoded{M: transcript.Message{Author: transcript.Operator(), Content: "x"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeFields([]byte(tc.line))
			if err != nil {
				t.Fatalf("decodeLine(%s): %v", tc.line, err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
				t.Errorf("decodeLine(%s) (-want +got):\n%s", tc.line, diff)
			}
		})
	}
	for _, tc := range []struct{ name, line, err string }{
		{"empty object", `{}`, `missing "author"`},
		{"null", `null`, `missing "author"`},
		{"negative id", `{"id":-1,"author":{"type":"operator"},"content":"x"}`, "whole number"},
		{"id an object", `{"id":{},"author":{"type":"operator"},"content":"x"}`, "string or a number"},
		{"content a number", `{"author":{"type":"operator"},"content":7}`, `"/content": unexpected JSON number`},
		{"author id under kind", `{"author":{"type":"agent","kind":"x"},"content":"x"}`, "invalid author"},
		{"trailing garbage", `{"author":{"type":"operator"},"content":"x"}x`, "invalid JSON at column 45: invalid character 'x' after top-level value"},
		{"second value", `{"author":{"type":"operator"},"content":"x"} {}`, "after top-level value"},
		{"invalid UTF-8", "{\"author\":{\"type\":\"operator\"},\"content\":\"\xff\"}", "UTF-8"},
		{"a bad surrogate pair", `{"author":{"type":"operator"},"content":"pw \ud800hunter2"}`, "invalid JSON at column 45: invalid surrogate pair in string"},
		{"a bad escape", `{"author":{"type":"operator"},"content":"pw \qhunter2"}`, "invalid JSON at column 45: invalid escape sequence in string"},
		{"unknown key", `{"author":{"type":"operator"},"content":"x","extra":1}`, `unknown key "extra"`},
		{"unknown author key", `{"author":{"type":"operator","x":1},"content":"x"}`, `"/author": unknown key "x"`},
		{"key in another case", `{"Author":{"type":"operator"},"content":"x"}`, `unknown key "Author"`},
		{"duplicate key", `{"author":{"type":"operator"},"content":"x","content":"y"}`, "duplicate"},
		{"bad time", `{"author":{"type":"operator"},"content":"x","at":"yesterday"}`, `"/at": not an RFC 3339 time`},
		{"a time holding a secret", `{"author":{"type":"operator"},"content":"x","at":"hunter2"}`, `"/at": not an RFC 3339 time`},
		{"an unknown key like a token", `{"author":{"type":"operator"},"content":"x","trs_hunter2":1}`, `an unknown key (not quoted`},
		{"an unknown key with spaces", `{"author":{"type":"operator"},"content":"x","pw hunter2":1}`, `an unknown key (not quoted`},
		{"cut short", `{"author":{"type":"operator"},"content":"x"`, "the line ends inside a value"},
		{"an array", `[1]`, "unexpected JSON array"},
		{"empty unknown key", `{"":1,"author":{"type":"operator"},"content":"x"}`, `an unknown key (not quoted`},
		{"fractional id", `{"id":1.5,"author":{"type":"operator"},"content":"x"}`, "id 1.5 is not a whole number"},
		{"audience entry null", `{"author":{"type":"operator"},"content":"x","audience":[null]}`, `"/audience/0": invalid author: unknown author type ""`},
		{"audience entry with the wrong id key", `{"author":{"type":"operator"},"content":"x","audience":[{"type":"system","kind":"ci","id":"x"}]}`, `"/audience/0": invalid author: system with a "id" key`},
		{"audience key in another case", `{"author":{"type":"operator"},"content":"x","Audience":[]}`, `unknown key "Audience"`},
		{"seq 0", `{"seq":0,"author":{"type":"operator"},"content":"x"}`, `"/seq": 0 is not a sequence`},
		{"seq negative", `{"seq":-3,"author":{"type":"operator"},"content":"x"}`, `"/seq": -3 is not a sequence`},
		{"seq fractional", `{"seq":1.5,"author":{"type":"operator"},"content":"x"}`, `"/seq": 1.5 is not a sequence`},
		{"seq over 2^63-1", `{"seq":9223372036854775808,"author":{"type":"operator"},"content":"x"}`, `is not a sequence`},
		{"seq a string", `{"seq":"3","author":{"type":"operator"},"content":"x"}`, `"/seq": a sequence is a number`},
		{"parent_seq 0", `{"author":{"type":"operator"},"content":"x","parent_seq":0}`, `"/parent_seq": 0 is not a sequence`},
		{"parent twice", `{"author":{"type":"operator"},"content":"x","parent":"a","parent_seq":1}`, `"parent" and "parent_seq" both given`},
		{"id over 256 bytes", `{"id":"` + strings.Repeat("k", 257) + `","author":{"type":"operator"},"content":"x"}`, `"/id": key of 257 bytes, over the limit of 256`},
		{"id with a line break", `{"id":"a\nb","author":{"type":"operator"},"content":"x"}`, `"/id": key holds the unprintable character U+000A`},
		{"id with an escape", `{"id":"\u001b[2J","author":{"type":"operator"},"content":"x"}`, `unprintable`},
		{"audience twice", `{"author":{"type":"operator"},"content":"x","audience":[],"audience":[]}`, "duplicate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := decodeLine([]byte(tc.line))
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("decodeLine(%s) = %v, want an error saying %q", tc.line, err, tc.err)
			}
			if err != nil && strings.Contains(err.Error(), "hunter") {
				t.Errorf("decodeLine(%s) = %v, which quotes the content", tc.line, err)
			}
		})
	}
}

// decoded is what decodeLine gives, in one value.
type decoded struct {
	ID, Parent     lineID
	Seq, ParentSeq lineSeq
	M              transcript.Message
}

func decodeFields(data []byte) (decoded, error) {
	l, m, err := decodeLine(data)
	return decoded{ID: l.ID, Parent: l.Parent, Seq: l.Seq, ParentSeq: l.ParentSeq, M: m}, err
}

// TestReadJSONLines: ids become keys, parents stay named as the line names them (by id or by
// seq), blank lines are skipped but counted, and each row is named by its line number.
func TestReadJSONLines(t *testing.T) {
	in := `{"id":"r","author":{"type":"operator"},"content":"root"}

{"id":7,"author":{"type":"agent","id":"x"},"content":"reply","parent":"r"}
   
{"author":{"type":"agent","id":"y"},"content":"reply to reply","parent":"7"}
{"seq":12,"author":{"type":"agent","id":"y"},"content":"by seq","parent_seq":3}`
	rows, _, err := readJSONLines(strings.NewReader(in), int64(len(in)))
	if err != nil {
		t.Fatal(err)
	}
	want := []importRow{
		{Message: transcript.Message{Author: transcript.Operator(), Content: "root", Key: "r"}, Where: "line 1"},
		{Message: transcript.Message{Author: transcript.Agent("x", ""), Content: "reply", Key: "7"}, ParentKey: "r", Where: "line 3"},
		{Message: transcript.Message{Author: transcript.Agent("y", ""), Content: "reply to reply"}, ParentKey: "7", Where: "line 5"},
		{Message: transcript.Message{Author: transcript.Agent("y", ""), Content: "by seq"}, ParentSeq: 3, Seq: 12, Where: "line 6"},
	}
	if diff := cmp.Diff(want, rows, cmp.AllowUnexported(importRow{})); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

func TestReadLinesTooLong(t *testing.T) {
	long := `{"author":{"type":"operator"},"content":"` + strings.Repeat("x", maxLine) + `"}`
	_, prep, err := readJSONLines(strings.NewReader(`{"author":{"type":"operator"},"content":"ok"}`+"\n"+long+"\n"), 0)
	if err == nil {
		err = prep.bad.err(prep.noun)
	}
	if err == nil || !strings.Contains(err.Error(), "line 2: longer than") {
		t.Errorf("a line over %d bytes: got %v, want line 2 reported as too long", maxLine, err)
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestReadLinesReadError(t *testing.T) {
	if _, _, err := readJSONLines(failingReader{}, 0); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("a failing reader: got %v", err)
	}
}

// TestEncodeLine: export's lines decode to the rows they came from: the seq, the key as the
// id, the parent as parent_seq.
func TestEncodeLine(t *testing.T) {
	rows := []transcript.Message{
		{Seq: 1, Author: transcript.Operator(), Content: "a", At: time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)},
		{Seq: 2, Parent: 1, Author: transcript.System("alert", "Pager \"P\""), Content: "<b>\n\u2028", Key: "msg-2 ✓"},
		{Seq: 9223372036854775807, Parent: 9223372036854775806, Author: transcript.Agent("a", ""), Content: ""},
		{Seq: 4, Parent: 1, Author: transcript.Person("ana", "Ana"), Content: "psst", Audience: []transcript.Author{transcript.Operator(), transcript.Agent("triage", "Triage"), transcript.System("alert", "")}, Key: "17"},
	}
	for _, m := range rows {
		data, err := MarshalLine(m)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.ContainsAny(data, "\n\r\u2028\u2029") {
			t.Errorf("MarshalLine(%+v) = %s: a line break inside a line (U+2028 and U+2029 count: some tools split lines there)", m, data)
		}
		l, got, err := decodeLine(data)
		if err != nil {
			t.Fatalf("decodeLine(MarshalLine(%+v)) = %s: %v", m, data, err)
		}
		if l.Parent != "" || transcript.Sequence(l.ParentSeq) != m.Parent || transcript.Sequence(l.Seq) != m.Seq {
			t.Errorf("MarshalLine(%+v) = %s: seq %d, parent %q, parent_seq %d; want seq %d, parent_seq %d", m, data, l.Seq, l.Parent, l.ParentSeq, m.Seq, m.Parent)
		}
		if string(l.ID) != m.Key {
			t.Errorf("MarshalLine(%+v) = %s: id %q, want the key %q", m, data, l.ID, m.Key)
		}
		if got := bytes.Contains(data, []byte(`"audience"`)); got != m.IsAside() {
			t.Errorf("MarshalLine(%+v) = %s: holds an audience: %v, want %v (only for an aside)", m, data, got, m.IsAside())
		}
		got.Seq, got.Parent = m.Seq, m.Parent
		if diff := cmp.Diff(m, got); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	}
}

// FuzzDecodeLine: no input makes decodeLine panic, and whatever it accepts encodes and
// decodes back to the same message.
func FuzzDecodeLine(f *testing.F) {
	for _, s := range []string{
		`{"id":"1","author":{"type":"person","id":"ana","label":"Ana"},"content":"hi","at":"2026-11-30T09:00:00Z"}`,
		`{"id":2,"author":{"type":"agent","id":"triage"},"content":"hello","parent":"1"}`,
		`{"author":{"type":"system","kind":"workflow"},"content":""}`,
		`{"author":{"type":"operator","label":"\u2028"},"content":"\u003c/message\u003e"}`,
		`{"author":{"type":"agent","id":"x"},"content":"psst","audience":[{"type":"operator"},{"type":"person","id":"ana","label":"Ana"}]}`,
		`{"seq":3,"id":"k","author":{"type":"operator"},"content":"x","parent_seq":1}`,
		`{"author":null,"content":null}`,
		`[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, m, err := decodeLine(data)
		if err != nil {
			return
		}
		m.Seq = 1
		enc, err := MarshalLine(m)
		if err != nil {
			t.Fatalf("MarshalLine of a decoded line %q: %v", data, err)
		}
		_, got, err := decodeLine(enc)
		if err != nil {
			t.Fatalf("decodeLine(%s), encoded from %q: %v", enc, data, err)
		}
		got.Seq = 1
		if !got.At.Equal(m.At) || got.Author != m.Author || got.Content != m.Content || !slices.Equal(got.Audience, m.Audience) || got.Key != m.Key {
			t.Fatalf("round trip of %q: got %+v, want %+v", data, got, m)
		}
	})
}

// TestReadJSONLinesSizeHint: the rows are the same whatever the file's size says about how
// many lines follow its first ones, too few or too many.
func TestReadJSONLinesSizeHint(t *testing.T) {
	line := func(i int, content string) string {
		return fmt.Sprintf(`{"id":"%d","author":{"type":"operator"},"content":%q}`+"\n", i, content)
	}
	for _, tc := range []struct{ name, first, rest string }{
		{"later lines shorter", strings.Repeat("long ", 40), "s"},
		{"later lines longer", "s", strings.Repeat("long ", 40)},
		{"all alike", "same", "same"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var file strings.Builder
			for i := range 3*blockLines + 7 {
				content := tc.rest
				if i < blockLines {
					content = tc.first
				}
				if i%1000 == 999 { // a key repeated, and a parent no line has
					file.WriteString(fmt.Sprintf(`{"id":"%d","author":{"type":"operator"},"content":"again","parent":"elsewhere"}`+"\n", i-1))
					continue
				}
				file.WriteString(line(i, content))
			}
			want, _, err := readJSONLines(strings.NewReader(file.String()), 0)
			if err != nil {
				t.Fatal(err)
			}
			got, prep, err := readJSONLines(strings.NewReader(file.String()), int64(file.Len()))
			if err != nil {
				t.Fatal(err)
			}
			keys := prep.keys
			keys.finish()
			if want := keysOf(got); !cmp.Equal(want, keys, cmp.AllowUnexported(keyIndex{}), cmpopts.EquateEmpty()) {
				t.Errorf("the index readJSONLines built differs from the rows':\n%s", cmp.Diff(want, keys, cmp.AllowUnexported(keyIndex{}), cmpopts.EquateEmpty()))
			}
			if len(got) != 3*blockLines+7 {
				t.Fatalf("%d rows, want %d", len(got), 3*blockLines+7)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("rows read with the size hint (-without +with):\n%s", diff)
			}
		})
	}
}
