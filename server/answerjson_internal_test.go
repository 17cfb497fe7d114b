package server

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/sharing"
)

// encodingJSON is what huma writes for v: encoding/json's Encoder, HTML not escaped.
func encodingJSON(t *testing.T, v any) ([]byte, error) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return buf.Bytes(), err
}

// FuzzAnswerJSON: marshalAnswer writes every answer's shape byte for byte as
// encoding/json (HTML not escaped) does, whatever text the rows hold (HTML, U+2028,
// control characters, invalid UTF-8), and refuses what it refuses.
func FuzzAnswerJSON(f *testing.F) {
	f.Add("a plain message", "a1", "Agent", "key-1", int64(1767323045000006000), uint8(2), uint64(7))
	f.Add("<b>&amp;</b> \u2028\u2029 \x00\x1f\x7f", "ana", "", "", int64(0), uint8(1), uint64(0))
	f.Add("invalid \xff\xfe UTF-8 \xed\xa0\x80", "bot\xff", "L\u2028", "k\"\\", int64(-1), uint8(3), uint64(1<<63))
	f.Add("é 日本 🎉 \t\n\r", "", "Op", "", int64(1), uint8(0), uint64(3))
	f.Add("x", "deploy", "Deploy", "", int64(42), uint8(3), uint64(9))
	f.Add("<p>", "a<b", "R&D", "k&", int64(42), uint8(1), uint64(9))
	f.Fuzz(func(t *testing.T, content, id, label, key string, at int64, kind uint8, seq uint64) {
		author := transcript.Author{Kind: transcript.AuthorKind(kind % 5), ID: id, Label: label}
		m := transcript.Message{
			Seq: transcript.Sequence(seq), Parent: transcript.Sequence(seq / 2), Author: author, Content: content,
			Audience: []transcript.Author{transcript.Operator(), author}, Key: key,
		}
		if at != 0 {
			m.At = time.Unix(0, at).UTC()
		}
		edit := m
		edit.Parent, edit.Corrects, edit.Revised, edit.Redacted, edit.Audience = 0, m.Seq, m.Seq+1, kind%2 == 0, nil
		p := transcript.Projection{
			Messages: []transcript.Message{m, {Seq: 1, Author: transcript.Operator()}},
			Head:     transcript.Sequence(seq), Scanned: int(seq % 1000), Dropped: int(kind),
			Elided: []transcript.Elision{{From: 1, Through: 2, Count: 2, Readers: []transcript.Author{author}}},
		}
		for _, v := range []any{
			p,
			&p,
			transcript.Projection{Messages: []transcript.Message{}},
			edit,
			transcript.ThreadList{Threads: []transcript.Thread{{Root: m, Replies: 3, Newest: 9}}},
			sharing.Initialized(transcript.Conversation{Desk: "eng", Thread: m.Seq}, m.Seq),
			huma.ErrorModel{Type: "urn:x", Title: "Bad", Status: 400, Detail: content, Errors: []*huma.ErrorDetail{{Message: label, Location: key, Value: content}}},
			map[string]any{"content": content, "n": seq, "ok": true},
		} {
			want, werr := encodingJSON(t, v)
			var got bytes.Buffer
			gerr := marshalAnswer(&got, v)
			if (werr != nil) != (gerr != nil) {
				t.Fatalf("%T: marshalAnswer error %v, encoding/json's %v", v, gerr, werr)
			}
			if werr == nil && !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("%T:\n got %q\nwant %q", v, got.Bytes(), want)
			}
			if werr != nil && got.Len() != 0 {
				t.Fatalf("%T: %q written on error", v, got.Bytes())
			}
		}
	})
}
