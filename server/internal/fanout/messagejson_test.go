package fanout

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
)

// encodedEvent returns what SSEWriter.Event adds for a message event of m, and the error.
func encodedEvent(m *transcript.Message) (string, error) {
	var s SSEWriter
	err := s.Event("message", m.Seq, m)
	return s.buf.String(), err
}

// jsonEvent is encodedEvent's event as encoding/json writes it, and its error.
func jsonEvent(m *transcript.Message) (string, error) {
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(m); err != nil {
		return "", err
	}
	id := ""
	if m.Seq != 0 {
		id = "\nid: " + strconv.FormatUint(uint64(m.Seq), 10)
	}
	return "event: message" + id + "\ndata: " + b.String() + "\n", nil
}

// checkSameEvent fails t unless Event writes m as encoding/json does, or fails as it does,
// leaving the buffer empty.
func checkSameEvent(t *testing.T, m *transcript.Message) {
	t.Helper()
	got, gotErr := encodedEvent(m)
	want, wantErr := jsonEvent(m)
	switch {
	case (gotErr != nil) != (wantErr != nil):
		t.Fatalf("%+v: error %v, encoding/json's %v", m, gotErr, wantErr)
	case gotErr != nil && (got != "" || gotErr.Error() != wantErr.Error()):
		t.Fatalf("%+v: error %v with %q buffered, want encoding/json's %v and none", m, gotErr, got, wantErr)
	case got != want:
		t.Fatalf("%+v:\n got %q\nwant %q", m, got, want)
	}
}

// awkwardStrings are strings whose JSON needs escapes, or encoding/json's replacements.
var awkwardStrings = []string{
	"", "plain", `quote " and \ backslash`, "<b>&amp;</b>", "tab\tnew\nline\rret\bback\fform",
	"\x00\x01\x1f\x7f", "é ü 日本 🎉", "\u2028 and \u2029", "bad \xff\xfe utf-8 \xe2\x82",
	"trailing \xe2", "'single' /slash/",
}

// TestEventMessageJSON: Event writes a message's data as encoding/json writes it, HTML
// escaping on, for every field set or not, awkward strings, times of any zone, and
// audiences; and what encoding/json refuses (an invalid author, a year past 9999) it
// refuses with encoding/json's error, adding nothing.
func TestEventMessageJSON(t *testing.T) {
	at := time.Date(2025, 3, 4, 5, 6, 7, 891000000, time.UTC)
	zone := time.FixedZone("x", -(3*3600 + 30*60))
	base := transcript.Message{Seq: 42, Author: transcript.Agent("triage", "Triage")}
	msgs := []transcript.Message{
		base,
		{Seq: 1, Author: transcript.Operator()},
		{
			Seq: 7, Parent: 3, Content: "hi", At: at, Key: "k-1", Corrects: 2, Redacted: true, Revised: 9,
			Author:   transcript.Author{Kind: transcript.KindSystem, ID: "workflow", Label: "Flow"},
			Audience: []transcript.Author{transcript.Operator(), {Kind: transcript.KindPerson, ID: "ana", Label: "Ana <A&B>"}},
		},
		{Seq: 8, Author: transcript.Author{Kind: transcript.KindPerson, ID: "bo"}, At: at.In(zone)},
		{Seq: 9, Author: transcript.Author{Kind: transcript.KindPerson, ID: "bo"}, At: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)},
		{Seq: 10, Author: transcript.Author{Kind: transcript.KindPerson, ID: "bo"}, At: time.Date(2025, 1, 1, 0, 0, 0, 1, time.Local)},
		{Seq: 1 << 63, Parent: 1<<63 - 1, Author: transcript.Operator(), Revised: 1<<64 - 1},
	}
	for _, s := range awkwardStrings {
		m := base
		m.Content, m.Key = s, s
		m.Author.Label = s
		m.Audience = []transcript.Author{{Kind: transcript.KindAgent, ID: s + "x", Label: s}}
		msgs = append(msgs, m)
	}
	for i := range msgs {
		checkSameEvent(t, &msgs[i])
	}

	refused := []transcript.Message{
		{Seq: 3, Author: transcript.Author{}},
		{Seq: 3, Author: transcript.Author{Kind: transcript.KindOperator, ID: "x"}},
		{Seq: 3, Author: transcript.Operator(), Audience: []transcript.Author{{Kind: transcript.KindAgent}}},
		{Seq: 3, Author: transcript.Operator(), At: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{Seq: 3, Author: transcript.Operator(), At: time.Date(2025, 1, 1, 0, 0, 0, 0, time.FixedZone("far", 25*3600))},
	}
	for i := range refused {
		if _, err := jsonEvent(&refused[i]); err == nil {
			t.Fatalf("%+v: encoding/json takes it, want a message it refuses", refused[i])
		}
		checkSameEvent(t, &refused[i])
	}
}

// FuzzEventMessageJSON: Event writes any message as encoding/json writes it, or refuses it
// as encoding/json does.
func FuzzEventMessageJSON(f *testing.F) {
	for _, s := range awkwardStrings {
		f.Add(uint64(5), uint64(2), uint8(3), "id", s, s, int64(1741064767891000000), int32(0), true)
	}
	f.Fuzz(func(t *testing.T, seq, parent uint64, kind uint8, id, label, content string, unixNano int64, offset int32, flag bool) {
		m := transcript.Message{
			Seq: transcript.Sequence(seq), Parent: transcript.Sequence(parent),
			Author:  transcript.Author{Kind: transcript.AuthorKind(kind % 6), ID: id, Label: label},
			Content: content, Key: label, Redacted: flag,
		}
		if flag {
			m.At = time.Unix(0, unixNano).In(time.FixedZone("z", int(offset%(30*3600))))
			m.Audience = []transcript.Author{{Kind: transcript.AuthorKind(kind % 5), ID: content, Label: id}}
			m.Corrects, m.Revised = transcript.Sequence(parent/2), transcript.Sequence(seq/3)
		}
		checkSameEvent(t, &m)
	})
}
