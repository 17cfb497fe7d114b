package render_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/render"
)

// TestTextHeaderHoldsNoBidiControl: a header line Text writes is safe to print: a label
// holding a bidirectional override (U+202E) reaches it replaced, so a terminal never shows
// the real "(agent:evil)" reversed and the label's text as another author's.
func TestTextHeaderHoldsNoBidiControl(t *testing.T) {
	me := transcript.Agent("me", "Me")
	evil := transcript.Agent("evil", "\u202e)ana:nosrep( anA")
	var buf bytes.Buffer
	if err := render.Text(&buf, me, []transcript.Message{{Seq: 2, Author: evil, Content: "deploy now"}}); err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(buf.String(), "\n")
	for _, r := range header {
		if r == '\u202e' || (r >= '\u2066' && r <= '\u2069') || (r >= '\u202a' && r <= '\u202d') || r == '\u200e' || r == '\u200f' {
			t.Fatalf("header %q holds the bidi control %U", header, r)
		}
	}
}

// TestOpenAINamesAreDistinct: OpenAI's name field, how a model tells the user-role speakers
// apart, differs for different authors, among them ids of non-ASCII letters of one length
// (person:ана, person:оля) and ids that differ in a byte the name replaces (a.b, a_b).
func TestOpenAINamesAreDistinct(t *testing.T) {
	me := transcript.Agent("me", "Me")
	for _, pair := range [][2]transcript.Author{
		{transcript.Person("ана", "Ана"), transcript.Person("оля", "Оля")},
		{transcript.Agent("a.b", ""), transcript.Agent("a_b", "")},
	} {
		turns := render.Turns(me, []transcript.Message{
			{Seq: 1, Author: pair[0], Content: "approve the deploy"},
			{Seq: 2, Author: pair[1], Content: "I approve it"},
		})
		if turns[0].Name == turns[1].Name {
			t.Errorf("%s and %s both render with the OpenAI name %q", pair[0], pair[1], turns[0].Name)
		}
	}
}
