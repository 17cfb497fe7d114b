package main

import (
	"fmt"
	"time"

	"github.com/sharedesk/transcript"
)

// The demo desk's cast.
var (
	operator = transcript.Author{Kind: transcript.KindOperator, Label: "Operator"}
	ana      = transcript.Person("ana", "Ana Ruiz")
	bo       = transcript.Person("bo", "Bo Chen")
	triage   = transcript.Agent("triage", "Triage")
	review   = transcript.Agent("review", "Reviewer")
	scribe   = transcript.Agent("scribe", "Scribe")
	ci       = transcript.System("workflow", "CI")
	pager    = transcript.System("alert", "Pager")
)

// privateInstruction is the operator's aside to Triage: only Triage (and the operator)
// may read it.
const privateInstruction = "Triage, between us: the 22:00 slot is not confirmed yet. Hold the migration split until I say so."

// busyStretch is how many CI notices and alerts land while the scribe is away: more than
// transcript.ScanLimit, so its saved state cannot give a delta.
const busyStretch = 2300

// landmarks are the demo desk's sequences the demo points at: the scenario is appended to
// an empty desk, so row i gets Seq i+1.
type landmarks struct {
	deployThread   transcript.Sequence // Ana's red deploy, answered by two agents
	scribeLastSeen transcript.Sequence // where the scribe's saved state stands, before the busy stretch
	aside          transcript.Sequence // the operator's private instruction to Triage, at channel level
	// The sharing cycle's thread, the scenario's last rows: Ana's question, Triage's answer
	// and Reviewer's reply, which lands between Triage's two turns.
	question, answer, peerReply transcript.Sequence
}

// scenario returns the demo desk's rows: a day on an engineering desk with an operator, two
// people, three agents and CI, several threads, a busy stretch of CI notices, and a private
// instruction from the operator to Triage (an aside), which Triage answers, and last the
// thread of the demo's sharing cycle. Parents are Seqs, valid once the rows are appended in
// order to an empty desk. Triage's answer to the aside lists no audience: the reply rule
// makes it an aside for the operator when it is stored.
func scenario() ([]transcript.Message, landmarks) {
	at := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	var rows []transcript.Message
	var marks landmarks
	sayTo := func(a transcript.Author, parent transcript.Sequence, content string, audience ...transcript.Author) transcript.Sequence {
		at = at.Add(47 * time.Second)
		rows = append(rows, transcript.Message{Author: a, Parent: parent, Content: content, At: at, Audience: audience})
		return transcript.Sequence(len(rows))
	}
	say := func(a transcript.Author, parent transcript.Sequence, content string) transcript.Sequence {
		return sayTo(a, parent, content)
	}
	say(operator, 0, "Morning all. Today: ship 2.4, and the postmortem for Tuesday's outage.")
	pm := say(bo, 0, "Can someone draft the postmortem for Tuesday?")
	draft := say(scribe, pm, "Draft is in the doc: root cause was an expired TLS certificate on the edge proxy.")
	ask := say(bo, draft, "Add the timeline, please.")
	say(scribe, ask, "Done: timeline added, 14:02 to 14:51.")
	say(review, 0, "Heads-up: the 2.4 changelog is missing two entries.")
	marks.scribeLastSeen = say(ci, 0, "build #1288 passed on main")
	for i := range busyStretch {
		switch {
		case i%97 == 0:
			alert := say(pager, 0, fmt.Sprintf("login_flow failure rate %d%% over 5 min", 20+i%60))
			say(triage, alert, "Acknowledged: flaky test, retrying the job.")
		default:
			say(ci, 0, fmt.Sprintf("build #%d: login_flow flaky, retry %d", 1289+i/4, 1+i%4))
		}
	}
	say(ana, 0, "The flaky storm is over: login_flow is quarantined.")
	deploy := say(ana, 0, "Deploy #41 is red. Anyone know why?")
	marks.deployThread = deploy
	say(triage, deploy, "The migration step timed out after 300 s on the users table.")
	lock := say(review, deploy, "It takes an exclusive lock on users. Run it off-peak or split it in two.")
	say(triage, lock, "Splitting it: part one only adds the column.")
	say(ana, deploy, "Thanks. Rescheduling for 22:00.")
	say(operator, 0, "Code freeze starts Friday 18:00.")
	marks.aside = sayTo(operator, 0, privateInstruction, triage)
	say(triage, marks.aside, "Understood: I hold the split until you confirm.")
	oncall := say(bo, 0, "Who is on call this weekend?")
	say(triage, oncall, "Ana is primary and Bo secondary, per the rota.")
	say(bo, oncall, "Thanks!")
	marks.question = say(ana, 0, "Is the release branch for 2.4 cut?")
	marks.answer = say(triage, marks.question, "Yes: cut at 14:00 from main at 9f3c2e1.")
	marks.peerReply = say(review, marks.question, "Blocking: two changelog entries are missing. Fixing now.")
	return rows, marks
}
