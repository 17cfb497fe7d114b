package storage_test

import (
	"reflect"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

// TestRevise: a correction revises its target once, a redaction erases its target and the
// target's older corrections, and nothing else changes.
func TestRevise(t *testing.T) {
	target := transcript.Message{Seq: 3, Content: "draft"}
	edit := transcript.Message{Seq: 5, Corrects: 3, Content: "final"}
	redaction := transcript.Message{Seq: 7, Corrects: 3, Redacted: true}
	for _, c := range []struct {
		name    string
		m, c    transcript.Message
		want    transcript.Message
		changed bool
	}{
		{"an edit of the target", target, edit, transcript.Message{Seq: 3, Content: "final", Revised: 5}, true},
		{"an edit applied already", transcript.Message{Seq: 3, Content: "final", Revised: 5}, edit, transcript.Message{Seq: 3, Content: "final", Revised: 5}, false},
		{"an older edit after a newer one", transcript.Message{Seq: 3, Content: "newer", Revised: 6}, edit, transcript.Message{Seq: 3, Content: "newer", Revised: 6}, false},
		{"a redaction of the target", transcript.Message{Seq: 3, Content: "final", Revised: 5}, redaction, transcript.Message{Seq: 3, Redacted: true, Revised: 7}, true},
		{"a redaction of a target revised since", transcript.Message{Seq: 3, Content: "left", Revised: 8}, redaction, transcript.Message{Seq: 3, Redacted: true, Revised: 8}, true},
		{"a redaction of an older edit", edit, redaction, transcript.Message{Seq: 5, Corrects: 3, Redacted: true}, true},
		{"a redaction of an edit erased already", transcript.Message{Seq: 5, Corrects: 3, Redacted: true}, redaction, transcript.Message{Seq: 5, Corrects: 3, Redacted: true}, false},
		{"a redaction and a newer edit", transcript.Message{Seq: 9, Corrects: 3, Content: "later"}, redaction, transcript.Message{Seq: 9, Corrects: 3, Content: "later"}, false},
		{"an edit and another row", transcript.Message{Seq: 4, Content: "other"}, edit, transcript.Message{Seq: 4, Content: "other"}, false},
		{"an edit and an older edit", transcript.Message{Seq: 4, Corrects: 3, Content: "first"}, edit, transcript.Message{Seq: 4, Corrects: 3, Content: "first"}, false},
		{"a row that is no correction", target, transcript.Message{Seq: 8, Content: "hi"}, target, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := c.m
			changed := storage.Revise(&m, &c.c)
			if changed != c.changed || m.Content != c.want.Content || m.Redacted != c.want.Redacted || m.Revised != c.want.Revised {
				t.Errorf("Revise(%+v, %+v) = %v, %+v; want %v, %+v", c.m, c.c, changed, m, c.changed, c.want)
			}
		})
	}
}

// TestRevisionApply: a Revision writes its target's content, redaction and Revised; a
// redaction erases the target's corrections too; any other row is left alone.
func TestRevisionApply(t *testing.T) {
	rows := func() []transcript.Message {
		return []transcript.Message{
			{Seq: 3, Content: "draft"},
			{Seq: 4, Corrects: 3, Content: "final"},
			{Seq: 5, Corrects: 2, Content: "other"},
			{Seq: 6, Parent: 3, Content: "reply"},
		}
	}
	edit := storage.Revision{Target: 3, Content: "final", Revised: 4}
	got := rows()
	for i := range got {
		edit.Apply(&got[i])
	}
	want := rows()
	want[0].Content, want[0].Revised = "final", 4
	if !reflect.DeepEqual(got, want) {
		t.Errorf("an edit's Revision: %+v, want %+v", got, want)
	}
	redaction := storage.Revision{Target: 3, Redacted: true, Revised: 7}
	got = rows()
	for i := range got {
		redaction.Apply(&got[i])
	}
	want = rows()
	want[0].Content, want[0].Redacted, want[0].Revised = "", true, 7
	want[1].Content, want[1].Redacted = "", true
	if !reflect.DeepEqual(got, want) {
		t.Errorf("a redaction's Revision: %+v, want %+v", got, want)
	}
}
