package console

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/importer"
)

var _ importer.Progress = (*Progress)(nil)

// TestPaint: a colour terminal gets s between its colour and Reset; anything else, or no
// colour, gets s as it is.
func TestPaint(t *testing.T) {
	if got := Paint(true, Cyan, "hi"); got != Cyan+"hi"+Reset {
		t.Errorf("Paint(true, Cyan) = %q", got)
	}
	if got := Paint(false, Cyan, "hi"); got != "hi" {
		t.Errorf("Paint(false, Cyan) = %q, want it unpainted", got)
	}
	if got := Paint(true, "", "hi"); got != "hi" {
		t.Errorf("Paint(true, \"\") = %q, want it unpainted", got)
	}
}

// TestStyle: off a colour terminal there is no style; on one, headers take their author's
// colour, the viewer's own bold green, an elision (the zero Message) dim.
func TestStyle(t *testing.T) {
	if Style(false) != nil {
		t.Error("Style(false) is not nil")
	}
	style := Style(true)
	for _, c := range []struct {
		m    transcript.Message
		own  bool
		want string
	}{
		{transcript.Message{Author: transcript.Person("ana", "Ana")}, false, Yellow},
		{transcript.Message{Author: transcript.Agent("triage", "Triage")}, false, Cyan},
		{transcript.Message{Author: transcript.Agent("triage", "Triage")}, true, Bold + Green},
		{transcript.Message{Author: transcript.System("ci", "CI")}, false, Dim},
		{transcript.Message{}, false, Dim},
		{transcript.Message{Author: transcript.Operator()}, false, Bold},
	} {
		if got := style("h", c.m, c.own); got != c.want+"h"+Reset {
			t.Errorf("style of %v (own %v) = %q, want %q", c.m.Author, c.own, got, c.want+"h"+Reset)
		}
	}
}

// TestProgress: off a terminal a progress line draws nothing; on one, Begin draws the line
// at once, with the share done, and End clears it.
func TestProgress(t *testing.T) {
	var off strings.Builder
	p := &Progress{W: &off}
	p.Begin("reading", 100)
	p.Advance(50)
	p.End()
	if off.Len() != 0 {
		t.Errorf("off a terminal it drew %q", off.String())
	}
	var on strings.Builder
	p = &Progress{W: &on, On: true}
	p.Begin("reading", 2e6)
	p.Advance(1e6)
	p.End()
	if got := on.String(); !strings.HasPrefix(got, "\r\x1b[Kreading [------------------------------]   0% of 2.0 MB") || !strings.HasSuffix(got, "\r\x1b[K") {
		t.Errorf("on a terminal it drew %q", got)
	}
}

// TestIndexProgress: the rebuild is said once, as it begins, with where and how many rows;
// on a terminal the rows done follow, and the line is cleared at the end.
func TestIndexProgress(t *testing.T) {
	var off strings.Builder
	report := IndexProgress(&off, false, "desk.db")
	report(0, 3)
	report(3, 3)
	if want := "transcript: rebuilding the search index of desk.db (3 rows)\n"; off.String() != want {
		t.Errorf("off a terminal: %q, want %q", off.String(), want)
	}
	var on strings.Builder
	report = IndexProgress(&on, true, "the PostgreSQL database")
	report(3, 3)
	if want := "transcript: rebuilding the search index of the PostgreSQL database (3 rows)\n\r\x1b[Kindexed 3 of 3 rows\r\x1b[K"; on.String() != want {
		t.Errorf("on a terminal: %q, want %q", on.String(), want)
	}
}

func TestDetectNoTerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := Terminal{Width: 120}
	if got := Detect(&bytes.Buffer{}, f); got != want {
		t.Errorf("Detect of a buffer and a file: %+v, want %+v", got, want)
	}
}

// TestQuoteIfNeeded: a name that prints as one plain cell stays as it is; an empty one, or
// one with a tab, a line break, a control character or a double quote, is quoted.
func TestQuoteIfNeeded(t *testing.T) {
	for s, want := range map[string]string{
		"eng": "eng", "café bar": "café bar", "": `""`, "a\tb": `"a\tb"`, "a\nb": `"a\nb"`, "a\x1b[31m": `"a\x1b[31m"`, `say "hi"`: `"say \"hi\""`,
	} {
		if got := QuoteIfNeeded(s); got != want {
			t.Errorf("QuoteIfNeeded(%q) = %s, want %s", s, got, want)
		}
	}
}
