package main

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/dbflag"
	"github.com/sharedesk/transcript/render"
)

// TestAppendTo appends asides with --to, replies to them with and without it, and reads
// them back through export, view and delta: audiences stored as given (canonical order, the
// reply rule filling in an answer's), readers reading them, others seeing elisions, and the
// store's refusals under the reply rule exiting 1 with no aside content in the error. It
// needs a store that keeps audiences.
func TestAppendTo(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newDB func(t *testing.T) string) {
		c := newCLI(t, newDB(t))
		appendSeq := func(want string, args ...string) {
			t.Helper()
			if got := c.ok(append([]string{"append"}, args...)...); got != want+"\n" {
				t.Fatalf("append %v printed %q, want its seq %s", args, got, want)
			}
		}
		appendSeq("1", "--create", "hello")
		appendSeq("2", "--to", "agent:triage:Triage", "SECRET-TO-TRIAGE: hold the deploy")
		appendSeq("3", "--as", "agent:triage:Triage", "--parent", "2", "SECRET-ACK: holding")
		appendSeq("4", "--as", "person:ana:Ana", "--to", "agent:triage,agent:review:Reviewer", "--to", "operator", "SECRET-ANA: a word")

		export := c.ok("export")
		lines := strings.Split(strings.TrimSuffix(export, "\n"), "\n")
		if len(lines) != 4 {
			t.Fatalf("export wrote %d lines, want 4:\n%s", len(lines), export)
		}
		for i, want := range []string{
			"",
			`"audience":[{"type":"agent","id":"triage","label":"Triage"}]`,
			`"audience":[{"type":"operator"}]`, // the reply rule: the aside's readers but the replier
			`"audience":[{"type":"operator"},{"type":"agent","id":"review","label":"Reviewer"},{"type":"agent","id":"triage"}]`,
		} {
			switch {
			case want == "" && strings.Contains(lines[i], `"audience"`):
				t.Errorf("export line %d holds an audience, but row %d is a desk row: %s", i+1, i+1, lines[i])
			case want != "" && !strings.Contains(lines[i], want):
				t.Errorf("export line %d does not hold %s: %s", i+1, want, lines[i])
			}
		}

		// The reviewer reads Ana's aside, not the operator's to Triage nor Triage's answer.
		p := decode[projectionJSON](t, "view --as agent:review", c.ok("view", "--as", "agent:review", "--format", "json"))
		wantSeqs(t, "the reviewer's channel", p.Messages, []transcript.Sequence{1, 4})
		wantGone := []elisionWant{{2, 2, 1, []string{"operator", "agent:triage"}}}
		if diff := cmp.Diff(wantGone, elisionsOf(p.Elided), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("the reviewer's elisions (-want +got):\n%s", diff)
		}
		text := c.ok("view", "--as", "agent:review")
		if strings.Contains(text, "SECRET-TO-TRIAGE") || strings.Contains(text, "SECRET-ACK") || !strings.Contains(text, "SECRET-ANA") {
			t.Errorf("the reviewer's text view shows what it may not read, or not what it may:\n%s", text)
		}
		p = decode[projectionJSON](t, "view --as agent:triage --thread 2", c.ok("view", "--as", "agent:triage", "--thread", "2", "--format", "json"))
		wantSeqs(t, "Triage's view of the aside's thread", p.Messages, []transcript.Sequence{2, 3})

		// Refusals under the reply rule: exit 1, a reason, nothing of the aside, nothing written.
		for _, tc := range []struct {
			name   string
			args   []string
			stderr []string
		}{
			{"a reply by an agent outside the aside", []string{"append", "--as", "agent:review", "--parent", "2", "may I?"},
				[]string{"transcript: reply to row 2 of desk \"main\": no such row that agent:review may read\n"}},
			{"a reply by a person outside the answer", []string{"append", "--as", "person:ana", "--parent", "3", "may I?"},
				[]string{"transcript: reply to row 3 of desk \"main\": no such row that person:ana may read\n"}},
			{"a reply naming other readers", []string{"append", "--as", "agent:triage", "--parent", "2", "--to", "agent:review", "forwarded"},
				[]string{"transcript: reply to row 2 of desk \"main\": a reply to the aside 2 must keep its readers (leave the audience empty to reply to them)\n"}},
		} {
			r := c.run(tc.args...)
			if r.code != exitError || r.stdout != "" {
				t.Errorf("%s: want exit 1 and nothing on standard output, got:\n%s", tc.name, r)
			}
			for _, want := range tc.stderr {
				if r.stderr != want {
					t.Errorf("%s: standard error is %q, want %q, each thing said once", tc.name, r.stderr, want)
				}
			}
			if strings.Contains(r.stderr, "SECRET") {
				t.Errorf("%s: the error quotes an aside:\n%s", tc.name, r)
			}
		}
		if got := c.ok("export"); got != export {
			t.Errorf("refused appends changed the desk: export before:\n%s\nafter:\n%s", export, got)
		}

		// Between two deltas, an aside the reviewer may not read is an elision and nothing else;
		// Triage's delta holds it.
		reviewState, triageState := c.path("review.json"), c.path("triage.json")
		c.ok("delta", "--as", "agent:review", "--state", reviewState, "--commit")
		c.ok("delta", "--as", "agent:triage", "--state", triageState, "--commit")
		appendSeq("5", "--to", "agent:triage", "SECRET-LATER: go at 22:00")
		d := decode[deltaJSON](t, "the reviewer's delta", c.ok("delta", "--as", "agent:review", "--state", reviewState, "--format", "json"))
		wantSeqs(t, "the reviewer's delta", d.Messages, nil)
		if diff := cmp.Diff([]elisionWant{{5, 5, 1, []string{"operator", "agent:triage"}}}, elisionsOf(d.Elided)); diff != "" {
			t.Errorf("the reviewer's delta's elisions (-want +got):\n%s", diff)
		}
		out := c.ok("delta", "--as", "agent:review", "--state", reviewState)
		if len(d.Elided) == 1 && out != render.ElisionLine(d.Elided[0])+"\n" {
			t.Errorf("the reviewer's text delta is %q, want only the elision line %q", out, render.ElisionLine(d.Elided[0]))
		}
		if out := c.ok("delta", "--as", "agent:triage", "--state", triageState); !strings.Contains(out, "SECRET-LATER") {
			t.Errorf("Triage's delta does not hold the aside for it:\n%s", out)
		}
	})
}

// TestAppendCreateThatFailsCreatesNoDatabase: an append --create refused (a reply to a row a
// new desk does not hold) creates no database, and leaves an empty file empty; one that is
// good creates the database.
func TestAppendCreateThatFailsCreatesNoDatabase(t *testing.T) {
	c := newCLI(t, "")
	r := c.want(exitError, "append", "--create", "--parent", "5", "hi")
	if fileExists(c.path(dbflag.Default)) || strings.Contains(r.stderr, "created") {
		t.Errorf("a failed append created %s:\n%s", dbflag.Default, r)
	}
	empty := c.writeFile("empty.db", nil)
	r = c.want(exitError, "append", "--db", empty, "--create", "--parent", "5", "hi")
	if info, err := os.Stat(empty); err != nil || info.Size() != 0 {
		t.Errorf("a failed append wrote to an empty file (%v):\n%s", err, r)
	}
	if out := c.ok("append", "--create", "hi"); out != "1\n" {
		t.Errorf("append --create: want 1, got %q", out)
	}
}
