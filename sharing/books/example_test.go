package books_test

import (
	"context"
	"fmt"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/sharing"
	"github.com/sharedesk/transcript/sharing/books"
)

// An agent reads the channel and a thread of one desk, with a state of each in its book,
// and acknowledges each read once its turn is over.
func ExampleUpdate() {
	ctx := context.Background()
	desk := memlog.New()
	var st books.Memory // sqlitestore.Store and pgstore.Store are Stores too
	agent := transcript.Agent("triage", "Triage")
	ana := transcript.Person("ana", "Ana")
	say := func(parent transcript.Sequence, text string) transcript.Message {
		m, err := desk.Append(ctx, transcript.Message{Author: ana, Parent: parent, Content: text})
		if err != nil {
			panic(err)
		}
		return m
	}
	// read is one read of c: a delta from the book's state, or a projection and the reason.
	// It returns the state to acknowledge once the turn is over.
	read := func(c transcript.Conversation) sharing.State {
		book, _, err := st.LoadBook(ctx, "eng", agent)
		if err != nil {
			panic(err)
		}
		state, why, ok := book.Lookup(c)
		if !ok {
			proj, err := transcript.Project(ctx, desk, transcript.Query{Conversation: c, Viewer: agent})
			if err != nil {
				panic(err)
			}
			reason := "first read"
			if why != 0 {
				reason = why.String()
			}
			fmt.Printf("thread %d, a projection (%s):%s\n", c.Thread, reason, contents(proj.Messages))
			return sharing.Initialized(c, proj.Head)
		}
		plan, err := sharing.Prepare(ctx, desk, sharing.Query{Desired: c, Current: c, State: state, Viewer: agent})
		if err != nil {
			panic(err)
		}
		fmt.Printf("thread %d, a delta:%s\n", c.Thread, contents(plan.Delta.Messages))
		return plan.Delta.Next
	}
	acknowledge := func(s sharing.State) {
		if _, err := books.Update(ctx, &st, "eng", agent, func(b sharing.Book) (sharing.Book, error) {
			return b.Acknowledge(s)
		}); err != nil {
			panic(err)
		}
	}

	root := say(0, "Is the release branch cut?")
	channel := transcript.Conversation{Desk: "eng"}
	thread := transcript.Conversation{Desk: "eng", Thread: root.Seq}
	acknowledge(read(channel))
	say(root.Seq, "It was due at noon.")
	acknowledge(read(thread))
	say(0, "Lunch?")
	say(root.Seq, "Cut at 12:10.")
	// Moving between them reinitializes neither; the channel shows a root's first reply, the
	// thread every reply.
	acknowledge(read(channel))
	acknowledge(read(thread))
	// Output:
	// thread 0, a projection (first read): "Is the release branch cut?"
	// thread 1, a projection (first read): "Is the release branch cut?" "It was due at noon."
	// thread 0, a delta: "It was due at noon." "Lunch?"
	// thread 1, a delta: "Cut at 12:10."
}

// contents returns the messages' contents, quoted.
func contents(msgs []transcript.Message) string {
	var out string
	for _, m := range msgs {
		out += fmt.Sprintf(" %q", m.Content)
	}
	return out
}
