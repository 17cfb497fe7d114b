// Package demodesk is the demo desk that `transcript demo` and `transcript serve --demo`
// build: its cast, its rows and the rows the demo points at (Scenario, Build, Load), and the
// tour of it that the demo command prints (Tour).
package demodesk

import (
	"context"
	"fmt"
	"time"

	"github.com/sharedesk/transcript"
)

// The demo desk's cast.
var (
	Operator = transcript.Author{Kind: transcript.KindOperator, Label: "Operator"}
	Ana      = transcript.Person("ana", "Ana Ruiz")
	Bo       = transcript.Person("bo", "Bo Chen")
	Triage   = transcript.Agent("triage", "Triage")
	Review   = transcript.Agent("review", "Reviewer")
	Scribe   = transcript.Agent("scribe", "Scribe")
	CI       = transcript.System("workflow", "CI")
	Pager    = transcript.System("alert", "Pager")
)

// PrivateInstruction is the Operator's aside to Triage: only Triage (and the Operator)
// may read it.
const PrivateInstruction = "Triage, between us: the 22:00 slot is not confirmed yet. Hold the migration split until I say so."

// BusyStretch is how many CI notices and alerts land while the Scribe is away: more than
// transcript.ScanLimit, so its saved state cannot give a delta.
const BusyStretch = 2300

// Landmarks are the demo desk's sequences the demo points at: the scenario is appended to
// an empty desk, so row i gets Seq i+1.
type Landmarks struct {
	DeployThread   transcript.Sequence // Ana's red deploy, answered by two agents
	ScribeLastSeen transcript.Sequence // where the Scribe's saved state stands, before the busy stretch
	Aside          transcript.Sequence // the Operator's private instruction to Triage, at channel level
	// The sharing cycle's thread, the scenario's last rows: Ana's question, Triage's answer
	// and Reviewer's reply, which lands between Triage's two turns.
	Question, Answer, PeerReply transcript.Sequence
}

// Scenario returns the demo desk's rows: a day on an engineering desk with an Operator, two
// people, three agents and CI, several threads, a busy stretch of CI notices, and a private
// instruction from the Operator to Triage (an aside), which Triage answers, and last the
// thread of the demo's sharing cycle. Parents are Seqs, valid once the rows are appended in
// order to an empty desk. Triage's answer to the aside lists no audience: the reply rule
// makes it an aside for the Operator when it is stored.
func Scenario() ([]transcript.Message, Landmarks) {
	at := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	var rows []transcript.Message
	var marks Landmarks
	sayTo := func(a transcript.Author, parent transcript.Sequence, content string, audience ...transcript.Author) transcript.Sequence {
		at = at.Add(47 * time.Second)
		rows = append(rows, transcript.Message{Author: a, Parent: parent, Content: content, At: at, Audience: audience})
		return transcript.Sequence(len(rows))
	}
	say := func(a transcript.Author, parent transcript.Sequence, content string) transcript.Sequence {
		return sayTo(a, parent, content)
	}
	say(Operator, 0, "Morning all. Today: ship 2.4, and the postmortem for Tuesday's outage.")
	pm := say(Bo, 0, "Can someone draft the postmortem for Tuesday?")
	draft := say(Scribe, pm, "Draft is in the doc: root cause was an expired TLS certificate on the edge proxy.")
	ask := say(Bo, draft, "Add the timeline, please.")
	say(Scribe, ask, "Done: timeline added, 14:02 to 14:51.")
	say(Review, 0, "Heads-up: the 2.4 changelog is missing two entries.")
	marks.ScribeLastSeen = say(CI, 0, "build #1288 passed on main")
	for i := range BusyStretch {
		switch {
		case i%97 == 0:
			alert := say(Pager, 0, fmt.Sprintf("login_flow failure rate %d%% over 5 min", 20+i%60))
			say(Triage, alert, "Acknowledged: flaky test, retrying the job.")
		default:
			say(CI, 0, fmt.Sprintf("build #%d: login_flow flaky, retry %d", 1289+i/4, 1+i%4))
		}
	}
	say(Ana, 0, "The flaky storm is over: login_flow is quarantined.")
	deploy := say(Ana, 0, "Deploy #41 is red. Anyone know why?")
	marks.DeployThread = deploy
	say(Triage, deploy, "The migration step timed out after 300 s on the users table.")
	lock := say(Review, deploy, "It takes an exclusive lock on users. Run it off-peak or split it in two.")
	say(Triage, lock, "Splitting it: part one only adds the column.")
	say(Ana, deploy, "Thanks. Rescheduling for 22:00.")
	say(Operator, 0, "Code freeze starts Friday 18:00.")
	marks.Aside = sayTo(Operator, 0, PrivateInstruction, Triage)
	say(Triage, marks.Aside, "Understood: I hold the split until you confirm.")
	oncall := say(Bo, 0, "Who is on call this weekend?")
	say(Triage, oncall, "Ana is primary and Bo secondary, per the rota.")
	say(Bo, oncall, "Thanks!")
	marks.Question = say(Ana, 0, "Is the release branch for 2.4 cut?")
	marks.Answer = say(Triage, marks.Question, "Yes: cut at 14:00 from main at 9f3c2e1.")
	marks.PeerReply = say(Review, marks.Question, "Blocking: two changelog entries are missing. Fixing now.")
	return rows, marks
}

// Appender is what Build needs of a store: it appends the scenario as one batch
// (AppendBatch) and reads the desk (Log).
type Appender interface {
	transcript.Store
}

// Build appends rows, the Scenario's, to desk of st when the desk is empty, and reports
// that it did; a desk that holds rows already must hold the scenario (an earlier run's: its
// first and last rows are the scenario's), and Build then adds nothing. It returns the
// desk's newest Seq.
func Build(ctx context.Context, st Appender, desk string, rows []transcript.Message) (built bool, head transcript.Sequence, err error) {
	log := st.Log(desk)
	newest, err := log.ReadBefore(ctx, 0, 1)
	if err != nil {
		return false, 0, err
	}
	if len(newest.Messages) == 0 {
		if err := st.AppendBatch(ctx, desk, rows); err != nil {
			return false, 0, err
		}
		return true, transcript.Sequence(len(rows)), nil
	}
	for _, seq := range []transcript.Sequence{1, transcript.Sequence(len(rows))} {
		if ok, err := holds(ctx, log, rows, seq); err != nil || !ok {
			if err == nil {
				err = fmt.Errorf("desk %q already holds other messages; pick another with --desk", desk)
			}
			return false, 0, err
		}
	}
	return false, newest.Messages[0].Seq, nil
}

// holds reports whether the desk's row seq is the scenario's: the same author, parent and
// content.
func holds(ctx context.Context, log transcript.Log, rows []transcript.Message, seq transcript.Sequence) (bool, error) {
	page, err := log.ReadBefore(ctx, seq+1, 1)
	if err != nil || len(page.Messages) == 0 {
		return false, err
	}
	got, want := page.Messages[0], rows[seq-1]
	return got.Seq == seq && got.Author.Same(want.Author) && got.Parent == want.Parent && got.Content == want.Content, nil
}
