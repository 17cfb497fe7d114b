package transcript_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
)

// A desk with a question, a thread under it, a CI notice and a second question.
func exampleDesk() *memlog.Log {
	ctx := context.Background()
	l := memlog.New()
	ana := transcript.Person("ana", "Ana")
	triage := transcript.Agent("triage", "Triage")
	review := transcript.Agent("review", "Reviewer")
	for _, m := range []transcript.Message{
		{Author: ana, Content: "Why is the deploy red?"},                                   // 1
		{Author: triage, Content: "The migration step timed out.", Parent: 1},              // 2
		{Author: review, Content: "It locks the users table; run it off-peak.", Parent: 1}, // 3
		{Author: transcript.System("workflow", "CI"), Content: "deploy #41 passed"},        // 4
		{Author: ana, Content: "Who owns the flaky login test?"},                           // 5
	} {
		if _, err := l.Append(ctx, m); err != nil {
			panic(err)
		}
	}
	return l
}

func ExampleProject_channel() {
	p, err := transcript.Project(context.Background(), exampleDesk(), transcript.Query{
		Conversation: transcript.Conversation{Desk: "eng"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Every root and each root's first reply; the thread's second reply stays in the thread.
	for _, m := range p.Messages {
		fmt.Printf("%d %s (%s): %s\n", m.Seq, m.Author.Label, m.Author.Kind, m.Content)
	}
	// Output:
	// 1 Ana (person): Why is the deploy red?
	// 2 Triage (agent): The migration step timed out.
	// 4 CI (system): deploy #41 passed
	// 5 Ana (person): Who owns the flaky login test?
}

func ExampleProject_thread() {
	p, err := transcript.Project(context.Background(), exampleDesk(), transcript.Query{
		Conversation: transcript.Conversation{Desk: "eng", Thread: 1},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range p.Messages {
		fmt.Printf("%d %s: %s\n", m.Seq, m.Author, m.Content)
	}
	fmt.Println("head:", p.Head, "reads:", p.Reads)
	// Output:
	// 1 person:ana: Why is the deploy red?
	// 2 agent:triage: The migration step timed out.
	// 3 agent:review: It locks the users table; run it off-peak.
	// head: 5 reads: 1
}

// sliceLog is a host's own Log: rows held oldest first, in a slice that never changes.
type sliceLog []transcript.Message

func (s sliceLog) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	if err := ctx.Err(); err != nil {
		return transcript.Page{}, err
	}
	end := len(s)
	if before != 0 {
		end, _ = slices.BinarySearchFunc(s, before, func(m transcript.Message, b transcript.Sequence) int {
			return cmp.Compare(m.Seq, b)
		})
	}
	start := max(0, end-limit)
	page := transcript.Page{Messages: slices.Clone(s[start:end])} // copy: the walk may keep it
	slices.Reverse(page.Messages)                                 // newest first
	if start > 0 {
		page.Next = s[start].Seq // older rows exist: read below the oldest one returned
	}
	return page, nil
}

func ExampleLog() {
	log := sliceLog{
		{Seq: 10, Author: transcript.Operator(), Content: "standup in 5"},
		{Seq: 20, Author: transcript.Agent("notes", "Notes"), Content: "agenda posted", Parent: 10},
		{Seq: 30, Author: transcript.Person("bo", "Bo"), Content: "running late"},
	}
	p, err := transcript.Project(context.Background(), log, transcript.Query{Before: 30})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range p.Messages {
		fmt.Println(m.Seq, m.Content)
	}
	// Output:
	// 10 standup in 5
	// 20 agenda posted
}

// brokenLog returns its rows oldest first, which the port forbids.
type brokenLog struct{}

func (brokenLog) ReadBefore(context.Context, transcript.Sequence, int) (transcript.Page, error) {
	a := transcript.Agent("a", "A")
	return transcript.Page{Messages: []transcript.Message{
		{Seq: 1, Author: a, Content: "first"}, {Seq: 2, Author: a, Content: "second"},
	}}, nil
}

func ExampleContractError() {
	_, err := transcript.Project(context.Background(), brokenLog{}, transcript.Query{})
	var ce *transcript.ContractError
	if errors.As(err, &ce) {
		fmt.Println(errors.Is(err, transcript.ErrContract), errors.Is(err, transcript.ErrNotDescending))
		fmt.Println(err)
	}
	// Output:
	// true true
	// read 1 (before 0, limit 60): seq 2: page not in strictly descending order
}

// The operator gives Triage a private instruction. Triage sees it and answers it, and the
// reply rule keeps the answer private too; Reviewer sees only that a message it may not read
// was written there, and between whom.
func ExampleProject_aside() {
	ctx := context.Background()
	l := exampleDesk()
	triage := transcript.Agent("triage", "Triage")
	review := transcript.Agent("review", "Reviewer")
	for _, m := range []transcript.Message{
		{Author: transcript.Operator(), Content: "Triage: page me before you touch prod.", Audience: []transcript.Author{triage}}, // 6
		{Author: triage, Content: "Understood.", Parent: 6},                                                                       // 7: the reply rule makes it an aside to the operator
	} {
		if _, err := l.Append(ctx, m); err != nil {
			fmt.Println(err)
			return
		}
	}
	for _, viewer := range []transcript.Author{triage, review} {
		p, err := transcript.Project(ctx, l, transcript.Query{Viewer: viewer, Before: 8, Window: 3})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s sees:\n", viewer.Label)
		for _, m := range p.Messages {
			fmt.Printf("  %d %v: %s\n", m.Seq, m.Author, m.Content)
		}
		for _, e := range p.Elided {
			fmt.Printf("  %d row(s) from %d to %d, between %v\n", e.Count, e.From, e.Through, e.Readers)
		}
	}
	// A reviewer's reply to the aside is refused, without a word of it.
	_, err := l.Append(ctx, transcript.Message{Author: review, Content: "What did I miss?", Parent: 6})
	fmt.Println(errors.Is(err, transcript.ErrNotReadable), err)
	// Output:
	// Triage sees:
	//   5 person:ana: Who owns the flaky login test?
	//   6 operator: Triage: page me before you touch prod.
	//   7 agent:triage: Understood.
	// Reviewer sees:
	//   2 agent:triage: The migration step timed out.
	//   4 system:workflow: deploy #41 passed
	//   5 person:ana: Who owns the flaky login test?
	//   1 row(s) from 6 to 6, between [operator agent:triage]
	// true parent not readable by the reply's author: row 6
}

// An edit and a redaction are rows that name their target; the log applies each at once,
// and a view shows the target as the log now holds it, in the place it had.
func Example_corrections() {
	ctx := context.Background()
	l := memlog.New()
	ana := transcript.Person("ana", "Ana")
	show := func(when string) {
		p, err := transcript.Project(ctx, l, transcript.Query{Conversation: transcript.Conversation{Desk: "eng"}})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(when)
		for _, m := range p.Messages {
			fmt.Printf("  %d %q revised %d redacted %v\n", m.Seq, m.Content, m.Revised, m.Redacted)
		}
	}
	for _, m := range []transcript.Message{
		{Author: ana, Content: "deploy at 22:00"},              // 1
		{Author: ana, Content: "db password: hunter2"},         // 2
		{Author: ana, Content: "deploy at 23:00", Corrects: 1}, // 3: an edit, by the row's author
	} {
		if _, err := l.Append(ctx, m); err != nil {
			fmt.Println(err)
			return
		}
	}
	show("after the edit:")
	// A redaction erases the row's content for good; the operator may redact any row.
	if _, err := l.Append(ctx, transcript.Message{Author: transcript.Operator(), Corrects: 2, Redacted: true}); err != nil {
		fmt.Println(err)
		return
	}
	show("after the redaction:")
	_, err := l.Append(ctx, transcript.Message{Author: ana, Content: "db password: hunter3", Corrects: 2})
	fmt.Println(errors.Is(err, transcript.ErrRedacted))
	// Output:
	// after the edit:
	//   1 "deploy at 23:00" revised 3 redacted false
	//   2 "db password: hunter2" revised 0 redacted false
	// after the redaction:
	//   1 "deploy at 23:00" revised 3 redacted false
	//   2 "" revised 4 redacted true
	// true
}

// A search as one viewer: the rows that hold every word, newest first, and only those the
// viewer may read; an edited row is found by its new words, in any case or composition.
func ExampleSearcher() {
	ctx := context.Background()
	l := memlog.New()
	ana := transcript.Person("ana", "Ana")
	triage := transcript.Agent("triage", "Triage")
	review := transcript.Agent("review", "Reviewer")
	for _, m := range []transcript.Message{
		{Author: ana, Content: "The migration runs at 22:00."},
		{Author: ana, Content: "Rota: Triage takes the migration night.", Audience: []transcript.Author{triage}},
		{Author: ana, Corrects: 1, Content: "The MIGRATION runs at 23:00, after the café closes."},
	} {
		if _, err := l.Append(ctx, m); err != nil {
			fmt.Println(err)
			return
		}
	}
	var s transcript.Searcher = l
	for _, q := range []transcript.SearchQuery{
		{Text: "migration", Viewer: triage},
		{Text: "migration", Viewer: review},
		{Text: "cafe\u0301 23", Viewer: review},
		{Text: "22", Viewer: review},
	} {
		res, err := s.Search(ctx, q)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%+q as %s:", q.Text, q.Viewer.Label)
		for _, m := range res.Messages {
			fmt.Printf(" #%d", m.Seq)
		}
		fmt.Println()
	}
	_, err := s.Search(ctx, transcript.SearchQuery{Text: "?!"})
	fmt.Println(errors.Is(err, transcript.ErrBadSearch), err)
	// Output:
	// "migration" as Triage: #2 #1
	// "migration" as Reviewer: #1
	// "cafe\u0301 23" as Reviewer: #1
	// "22" as Reviewer:
	// true bad search: the text holds no word
}
