package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/render"
)

// asideDesk is a desk in the import format with asides at both levels. Row n of the file
// becomes Seq n. Each aside's content holds a secret of asideSecrets, so that a test can
// tell that none reached a viewer outside it.
//
//	1 operator                       root, desk
//	2 operator → triage              root, aside "SECRET-HOLD"
//	3 triage ↳ 2 (no audience given) reply, aside for the operator by the reply rule "SECRET-ACK"
//	4 person ana                     root, desk
//	5 agent x ↳ 4                    first reply, desk
//	6 agent x ↳ 4 → ana              reply, aside "SECRET-NDA"
//	7 agent y ↳ 4                    reply, desk
//	8 triage → y                     root, aside "SECRET-PAIR-1"
//	9 y → triage                     root, aside "SECRET-PAIR-2"
//	10 system CI                     root, desk
const asideDesk = `{"id":"hello","author":{"type":"operator","label":"Olga"},"content":"Morning all"}
{"id":"hold","author":{"type":"operator","label":"Olga"},"content":"SECRET-HOLD: keep the deploy on hold","audience":[{"type":"agent","id":"triage","label":"Triage"}]}
{"author":{"type":"agent","id":"triage","label":"Triage"},"content":"SECRET-ACK: holding it","parent":"hold"}
{"id":"deploy","author":{"type":"person","id":"ana","label":"Ana"},"content":"Deploy #41 is red"}
{"author":{"type":"agent","id":"x","label":"X"},"content":"The migration timed out","parent":"deploy"}
{"author":{"type":"agent","id":"x","label":"X"},"content":"SECRET-NDA: the users table is the customer's, under NDA","parent":"deploy","audience":[{"type":"person","id":"ana","label":"Ana"}]}
{"author":{"type":"agent","id":"y","label":"Y"},"content":"Split it in two","parent":"deploy"}
{"author":{"type":"agent","id":"triage","label":"Triage"},"content":"SECRET-PAIR-1: tonight?","audience":[{"type":"agent","id":"y","label":"Y"}]}
{"author":{"type":"agent","id":"y","label":"Y"},"content":"SECRET-PAIR-2: tonight.","audience":[{"type":"agent","id":"triage","label":"Triage"}]}
{"author":{"type":"system","kind":"workflow","label":"CI"},"content":"build #1288 passed"}
`

// asideSecrets maps each aside of asideDesk to its secret and who may read it besides the
// operator, in the command's participant syntax.
var asideSecrets = []struct {
	seq     transcript.Sequence
	secret  string
	readers []string
}{
	{2, "SECRET-HOLD", []string{"agent:triage"}},
	{3, "SECRET-ACK", []string{"agent:triage"}},
	{6, "SECRET-NDA", []string{"agent:x", "person:ana"}},
	{8, "SECRET-PAIR-1", []string{"agent:triage", "agent:y"}},
	{9, "SECRET-PAIR-2", []string{"agent:triage", "agent:y"}},
}

// asideAudiences are the audiences asideDesk's rows are stored with, by Seq: as the file
// gives them, and row 3's filled in by the reply rule.
var asideAudiences = map[transcript.Sequence][]transcript.Author{
	2: {transcript.Agent("triage", "Triage")},
	3: {transcript.Author{Kind: transcript.KindOperator, Label: "Olga"}},
	6: {transcript.Person("ana", "Ana")},
	8: {transcript.Agent("y", "Y")},
	9: {transcript.Agent("triage", "Triage")},
}

// mayRead reports whether viewer (participant syntax) may read the row holding secret.
func mayRead(viewer string, readers []string) bool {
	return viewer == "operator" || slices.Contains(readers, viewer)
}

// elisionWant is an Elision as the tests expect it: readers by identity, labels aside.
type elisionWant struct {
	From, Through transcript.Sequence
	Count         int
	Readers       []string
}

func elisionsOf(es []transcript.Elision) []elisionWant {
	out := []elisionWant{}
	for _, e := range es {
		w := elisionWant{From: e.From, Through: e.Through, Count: e.Count}
		for _, a := range e.Readers {
			w.Readers = append(w.Readers, a.String())
		}
		out = append(out, w)
	}
	return out
}

// asideView is one conversation of asideDesk and what each viewer sees of it.
type asideView struct {
	name string
	args []string                         // view's flags selecting it
	msgs map[string][]transcript.Sequence // by viewer; a viewer not listed sees outsider
	gone map[string][]elisionWant         // elisions by viewer; a viewer not listed sees outsiderGone
	// outsider and outsiderGone are what a viewer not listed above sees.
	outsider     []transcript.Sequence
	outsiderGone []elisionWant
	// outsiderRefused: a viewer not listed above is refused the conversation, in the words
	// for a thread that does not exist (a thread whose root it may not read), and sees nothing.
	outsiderRefused bool
}

var (
	holdElision = elisionWant{2, 2, 1, []string{"operator", "agent:triage"}}
	pairElision = elisionWant{8, 9, 2, []string{"agent:triage", "agent:y"}}
	ndaElision  = elisionWant{6, 6, 1, []string{"person:ana", "agent:x"}}
)

var asideViews = []asideView{
	{
		name: "channel",
		msgs: map[string][]transcript.Sequence{
			"operator":     {1, 2, 3, 4, 5, 8, 9, 10},
			"agent:triage": {1, 2, 3, 4, 5, 8, 9, 10},
			"agent:y":      {1, 4, 5, 8, 9, 10},
		},
		gone: map[string][]elisionWant{
			"operator":     {},
			"agent:triage": {},
			"agent:y":      {holdElision},
		},
		outsider:     []transcript.Sequence{1, 4, 5, 10},
		outsiderGone: []elisionWant{holdElision, pairElision},
	},
	{
		name: "thread 4",
		args: []string{"--thread", "4"},
		msgs: map[string][]transcript.Sequence{
			"operator":   {4, 5, 6, 7},
			"person:ana": {4, 5, 6, 7},
			"agent:x":    {4, 5, 6, 7},
		},
		gone:         map[string][]elisionWant{"operator": {}, "person:ana": {}, "agent:x": {}},
		outsider:     []transcript.Sequence{4, 5, 7},
		outsiderGone: []elisionWant{ndaElision},
	},
	{
		name:            "thread 2, an aside's",
		args:            []string{"--thread", "2"},
		msgs:            map[string][]transcript.Sequence{"operator": {2, 3}, "agent:triage": {2, 3}},
		gone:            map[string][]elisionWant{"operator": {}, "agent:triage": {}},
		outsiderRefused: true,
	},
}

// asideViewers are the viewers the tests look through: the operator (the default), an agent
// in an aside, an agent outside it, a person, an aside's author, and a viewer named in no
// row.
var asideViewers = []string{"operator", "agent:triage", "agent:y", "person:ana", "agent:x", "agent:nobody"}

// TestAsideViews imports asideDesk and runs view and delta (from a state file that does not
// exist: the whole conversation is new) as each of asideViewers in every format: no output
// holds a secret the viewer may not read, each holds the secrets it may read that its view
// shows, and the elisions are there in every format. It needs a store that keeps audiences.
func TestAsideViews(t *testing.T) {
	forEachAsideViewer(t, func(t *testing.T, c *cli, viewer string) {
		for _, v := range asideViews {
			msgs, gone := v.outsider, v.outsiderGone
			m, listed := v.msgs[viewer]
			if listed {
				msgs, gone = m, v.gone[viewer]
			}
			for _, command := range []string{"view", "delta"} {
				args := append([]string{command, "--as", viewer}, v.args...)
				if command == "delta" {
					args = append(args, "--state", c.path("never-written.json"))
				}
				if v.outsiderRefused && !listed {
					r := c.want(exitError, args...)
					if r.stdout != "" || !strings.Contains(r.stderr, "that "+viewer+" may read") {
						t.Errorf("%s of %s as %s: want nothing shown and the thread refused, got:\n%s", command, v.name, viewer, r)
					}
					continue
				}
				checkAsideOutputs(t, c, viewer, fmt.Sprintf("%s of %s", command, v.name), args, msgs, gone)
			}
		}
	})
}

// forEachAsideViewer imports asideDesk into a database of each backend and runs f on it as
// each of asideViewers, in parallel subtests: one database, read by every viewer at once.
func forEachAsideViewer(t *testing.T, f func(t *testing.T, c *cli, viewer string)) {
	forEachBackend(t, func(t *testing.T, newDB func(t *testing.T) string) {
		c := newCLI(t, newDB(t))
		c.ok("import", c.writeFile("asides.jsonl", []byte(asideDesk)))
		for _, viewer := range asideViewers {
			t.Run(viewer, func(t *testing.T) {
				t.Parallel()
				f(t, &cli{t: t, dir: c.dir, db: c.db}, viewer)
			})
		}
	})
}

// checkAsideOutputs runs args in every format and checks them against the messages and
// elisions the viewer should see.
func checkAsideOutputs(t *testing.T, c *cli, viewer, what string, args []string, msgs []transcript.Sequence, gone []elisionWant) {
	t.Helper()
	outputs := map[string]result{}
	for _, format := range formats {
		r := c.run(append(args, "--format", format)...)
		if r.code != exitOK {
			t.Fatalf("%s as %s: want exit 0, got:\n%s", what, viewer, r)
		}
		outputs[format] = r
	}

	// The json format: the messages and elisions, exactly.
	var gotMsgs []transcript.Message
	var gotElided []transcript.Elision
	if strings.HasPrefix(args[0], "view") {
		p := decode[projectionJSON](t, what, outputs["json"].stdout)
		gotMsgs, gotElided = p.Messages, p.Elided
	} else {
		d := decode[deltaJSON](t, what, outputs["json"].stdout)
		gotMsgs, gotElided = d.Messages, d.Elided
	}
	wantSeqs(t, what+" as "+viewer, gotMsgs, msgs)
	if diff := cmp.Diff(gone, elisionsOf(gotElided), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("%s as %s: elisions (-want +got):\n%s", what, viewer, diff)
	}
	for _, m := range gotMsgs {
		if diff := cmp.Diff(asideAudiences[m.Seq], m.Audience, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s as %s: row %d's audience (-want +got):\n%s", what, viewer, m.Seq, diff)
		}
	}

	// No output holds a secret the viewer may not read; each holds those its view shows.
	for format, r := range outputs {
		for _, s := range asideSecrets {
			shown := slices.Contains(msgs, s.seq)
			switch {
			case !mayRead(viewer, s.readers) && (strings.Contains(r.stdout, s.secret) || strings.Contains(r.stderr, s.secret)):
				t.Errorf("%s as %s, format %s: the output holds %s, which %s may not read:\n%s", what, viewer, format, s.secret, viewer, r)
			case shown && !strings.Contains(r.stdout, s.secret):
				t.Errorf("%s as %s, format %s: the output lacks %s, which its view shows:\n%s", what, viewer, format, s.secret, r)
			}
		}
	}

	// Every format shows the elisions: a line in text, a tag in the model formats.
	text := outputs["text"].stdout
	for _, e := range gotElided {
		if line := render.ElisionLine(e) + "\n"; !strings.Contains(text, line) {
			t.Errorf("%s as %s, format text: no elision line %q:\n%s", what, viewer, line, text)
		}
	}
	if got := strings.Count(text, " you cannot read\n"); got != len(gone) {
		t.Errorf("%s as %s, format text: %d elision lines, want %d:\n%s", what, viewer, got, len(gone), text)
	}
	var modelText strings.Builder
	for _, m := range decode[[]openAIJSON](t, what+" (openai)", outputs["openai"].stdout) {
		modelText.WriteString(m.Content)
	}
	checkElidedTags(t, what+" as "+viewer+", format openai", modelText.String(), gotElided)
	modelText.Reset()
	for _, m := range decode[[]anthropicJSON](t, what+" (anthropic)", outputs["anthropic"].stdout) {
		for _, block := range m.Content {
			modelText.WriteString(block.Text)
		}
	}
	checkElidedTags(t, what+" as "+viewer+", format anthropic", modelText.String(), gotElided)
}

// checkElidedTags fails the test unless the model input text holds exactly the elided tags
// of elided.
func checkElidedTags(t *testing.T, what, text string, elided []transcript.Elision) {
	t.Helper()
	for _, e := range elided {
		if tag := render.ElisionTag(e); !strings.Contains(text, tag) {
			t.Errorf("%s: no elided tag %s:\n%s", what, tag, text)
		}
	}
	if got := strings.Count(text, "<elided from="); got != len(elided) {
		t.Errorf("%s: %d elided tags, want %d:\n%s", what, got, len(elided), text)
	}
}

// TestAsideSearch imports asideDesk and searches it as each of asideViewers in every
// format, for a word every secret holds and for one two asides hold: the hits are the
// asides the viewer may read, newest first, and no output (nor its error, for a thread
// rooted at an aside) holds a secret the viewer may not read. A viewer outside an aside's
// thread is refused its thread as it is refused a row the desk does not hold.
func TestAsideSearch(t *testing.T) {
	forEachAsideViewer(t, func(t *testing.T, c *cli, viewer string) {
		for _, words := range []string{"secret", "tonight"} {
			var want []transcript.Sequence
			for i := len(asideSecrets) - 1; i >= 0; i-- {
				s := asideSecrets[i]
				if mayRead(viewer, s.readers) && (words == "secret" || s.seq >= 8) {
					want = append(want, s.seq)
				}
			}
			for _, format := range formats {
				r := c.run("search", "--as", viewer, "--format", format, words)
				if r.code != exitOK {
					t.Fatalf("search %s as %s: want exit 0, got:\n%s", words, viewer, r)
				}
				if format == "json" {
					got := decode[searchJSONOut](t, "search --format json", r.stdout)
					wantSeqs(t, "search "+words+" as "+viewer, got.Messages, want)
					if got.Next != 0 {
						t.Errorf("search %s as %s: next %d, want 0", words, viewer, got.Next)
					}
				}
				checkSecrets(t, "search "+words+" as "+viewer+" in "+format, viewer, r, want)
			}
		}
		// Thread 2 is an aside's: the outsider is refused it as a missing row.
		r := c.run("search", "--as", viewer, "--thread", "2", "secret")
		if mayRead(viewer, asideSecrets[0].readers) {
			if r.code != exitOK || !strings.Contains(r.stdout, "«SECRET»-HOLD") {
				t.Errorf("search --thread 2 as %s, who reads it: %s", viewer, r)
			}
			return
		}
		missing := c.want(exitError, "search", "--as", viewer, "--thread", "11", "secret")
		if r.code != exitError || r.stderr != strings.Replace(missing.stderr, "#11", "#2", 1) {
			t.Errorf("search --thread 2 as %s: %s\nwant what a row the desk does not hold gets:\n%s", viewer, r, missing)
		}
		checkSecrets(t, "search --thread 2 as "+viewer, viewer, r, nil)
	})
}

// checkSecrets fails the test when r holds a secret of asideDesk that viewer may not read,
// or lacks one of the rows shown.
func checkSecrets(t *testing.T, what, viewer string, r result, shown []transcript.Sequence) {
	t.Helper()
	for _, s := range asideSecrets {
		switch {
		case !mayRead(viewer, s.readers) && (strings.Contains(r.stdout, s.secret) || strings.Contains(r.stderr, s.secret)):
			t.Errorf("%s: the output holds %s, which %s may not read:\n%s", what, s.secret, viewer, r)
		case slices.Contains(shown, s.seq) && !strings.Contains(strings.NewReplacer("«", "", "»", "").Replace(r.stdout), s.secret):
			t.Errorf("%s: the output lacks %s, a hit:\n%s", what, s.secret, r)
		}
	}
}
