package deskmcp_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/deskmcp"
	"github.com/sharedesk/transcript/sharing"
	"github.com/sharedesk/transcript/sharing/books"
)

// TestCrashDeliversAgain: A reads what B posted, and the process serving A dies before A
// posts: A's next session gets the same messages again. A then posts in the channel, which
// acknowledges the read: after another crash, they do not come back.
func TestCrashDeliversAgain(t *testing.T) {
	st, reopen := sqliteStore(t)
	appendAs(t, st, transcript.Message{Author: ana, Content: "welcome"})
	a := connect(t, service(t, st), agentA)
	a.Read(deskmcp.ReadDeskArgs{}) // first read: the view
	a.Read(deskmcp.ReadDeskArgs{}) // acknowledges it
	b := connect(t, service(t, st), agentB)
	news := []transcript.Message{
		b.Post(deskmcp.PostMessageArgs{Content: "deploy at noon"}),
		b.Post(deskmcp.PostMessageArgs{Content: "tests are green"}),
	}
	r, _ := a.Read(deskmcp.ReadDeskArgs{})
	if !slices.Equal(seqs(r.Messages), seqs(news)) {
		t.Fatalf("A's read = %v, want B's posts %v", seqs(r.Messages), seqs(news))
	}

	// The process serving A dies: a new Service, as a new process has, on its own handle.
	st2 := reopen()
	a2 := connect(t, service(t, st2), agentA)
	again, _ := a2.Read(deskmcp.ReadDeskArgs{})
	if !slices.Equal(seqs(again.Messages), seqs(news)) || again.Reinitialized != "" {
		t.Fatalf("after a crash, A's read = %+v, want the same messages %v again", again, seqs(news))
	}
	a2.Post(deskmcp.PostMessageArgs{Content: "ack, deploying"})

	a3 := connect(t, service(t, reopen()), agentA)
	if r, _ := a3.Read(deskmcp.ReadDeskArgs{}); len(r.Messages) != 0 || r.Reinitialized != "" {
		t.Errorf("after A posted and another crash, A's read = %+v, want nothing new", r)
	}
}

// TestReadAgainAcknowledges: a second read of a conversation acknowledges the first, even
// from a session of the participant in another process; a read of another conversation
// does not.
func TestReadAgainAcknowledges(t *testing.T) {
	st, reopen := sqliteStore(t)
	root := appendAs(t, st, transcript.Message{Author: ana, Content: "root"})
	svc := service(t, st)
	a := connect(t, svc, agentA)
	a.Read(deskmcp.ReadDeskArgs{})
	a.Read(deskmcp.ReadDeskArgs{Thread: root.Seq})
	m := appendAs(t, st, transcript.Message{Author: ana, Content: "news"})
	a.Read(deskmcp.ReadDeskArgs{})                 // delivers m
	a.Read(deskmcp.ReadDeskArgs{Thread: root.Seq}) // acknowledges the thread's read only
	if r, _ := connect(t, service(t, reopen()), agentA).Read(deskmcp.ReadDeskArgs{}); !slices.Equal(seqs(r.Messages), []transcript.Sequence{m.Seq}) {
		t.Errorf("reading another conversation acknowledged the channel's read: %+v", r)
	}
	a.Read(deskmcp.ReadDeskArgs{}) // acknowledges it
	if r, _ := connect(t, service(t, reopen()), agentA).Read(deskmcp.ReadDeskArgs{}); len(r.Messages) != 0 {
		t.Errorf("a second read did not acknowledge the first: %+v", r)
	}
}

// TestConcurrentSessionsLoseNothing runs on both stores: two sessions of one agent, each
// in a process of its own (a Service and a store handle each), read in parallel — one in
// the channel and thread X, the other in thread Y and X — round after round, while Ana
// posts in all three. Each round's second reads acknowledge its first reads at once, every
// acknowledgement a save of the agent's one book; after each round the book must hold
// every conversation at the round's head. A save that lost another session's would leave
// one behind.
func TestConcurrentSessionsLoseNothing(t *testing.T) {
	for _, s := range []struct {
		name string
		open func(testing.TB) (store, func() store)
	}{{"sqlite", sqliteStore}, {"postgres", pgStore}} {
		t.Run(s.name, func(t *testing.T) {
			st, reopen := s.open(t)
			x := appendAs(t, st, transcript.Message{Author: ana, Content: "thread X"})
			y := appendAs(t, st, transcript.Message{Author: ana, Content: "thread Y"})
			work := [][]transcript.Sequence{{0, x.Seq}, {y.Seq, x.Seq}}
			sessions := []*agent{connect(t, service(t, st), agentA), connect(t, service(t, reopen()), agentA)}
			readAll := func() {
				var wg sync.WaitGroup
				start := make(chan struct{})
				for i, a := range sessions {
					wg.Go(func() {
						<-start
						for _, th := range work[i] {
							a.Read(deskmcp.ReadDeskArgs{Thread: th})
						}
					})
				}
				close(start)
				wg.Wait()
			}
			for round := range 60 {
				var head transcript.Sequence
				for _, th := range []transcript.Sequence{0, x.Seq, y.Seq} {
					head = appendAs(t, st, transcript.Message{Author: ana, Content: fmt.Sprint("round ", round), Parent: th}).Seq
				}
				readAll() // delivers the round's rows
				readAll() // acknowledges them, in parallel
				book, _, err := st.LoadBook(context.Background(), desk, agentA)
				if err != nil {
					t.Fatal(err)
				}
				for _, th := range []transcript.Sequence{0, x.Seq, y.Seq} {
					s, _, ok := book.Lookup(transcript.Conversation{Desk: desk, Thread: th})
					if !ok || s.Watermark < head {
						t.Fatalf("round %d: the book holds conversation %d at %+v (ok %v), want watermark %d: an acknowledgement was lost", round, th, s, ok, head)
					}
				}
			}
		})
	}
}

// TestEvictedConversationStartsOver: an agent that works in more than sharing.BookLimit
// conversations loses its place in the least recently used one, whose next read (in a
// new session: in this one, the read staged there would put it back when acknowledged)
// starts over and says why (state_evicted); the others read on.
func TestEvictedConversationStartsOver(t *testing.T) {
	st, reopen := sqliteStore(t)
	a := connect(t, service(t, st), agentA)
	var roots []transcript.Sequence
	for i := range sharing.BookLimit + 1 {
		roots = append(roots, appendAs(t, st, transcript.Message{Author: ana, Content: fmt.Sprint("thread ", i)}).Seq)
	}
	for _, root := range roots {
		a.Read(deskmcp.ReadDeskArgs{Thread: root}) // the first read
		a.Read(deskmcp.ReadDeskArgs{Thread: root}) // acknowledges it: the state is stored
	}
	a = connect(t, service(t, reopen()), agentA)
	if r, _ := a.Read(deskmcp.ReadDeskArgs{Thread: roots[0]}); r.Reinitialized != "state_evicted" || !slices.Equal(seqs(r.Messages), roots[:1]) {
		t.Errorf("the read of the least recently used thread = %+v, want state_evicted and its view", r)
	}
	if r, _ := a.Read(deskmcp.ReadDeskArgs{Thread: roots[len(roots)-1]}); r.Reinitialized != "" {
		t.Errorf("the read of the most recent thread = %+v, want a delta", r)
	}
}

// TestBookBeyondTheHeadStartsOver: a book whose state stands above the desk's newest row
// (a book from another database, or a desk restored from an older backup) starts over and
// says why (watermark_unavailable), rather than wait for rows up to it and skip the rest;
// the rows after the new view then come.
func TestBookBeyondTheHeadStartsOver(t *testing.T) {
	st, _ := sqliteStore(t)
	hello := appendAs(t, st, transcript.Message{Author: ana, Content: "hello"})
	channel := transcript.Conversation{Desk: desk}
	if _, err := books.Update(t.Context(), st, desk, agentA, func(b sharing.Book) (sharing.Book, error) {
		return b.Put(sharing.Initialized(channel, 9999))
	}); err != nil {
		t.Fatal(err)
	}
	a := connect(t, service(t, st), agentA)
	if r, _ := a.Read(deskmcp.ReadDeskArgs{}); r.Reinitialized != "watermark_unavailable" || !slices.Equal(seqs(r.Messages), []transcript.Sequence{hello.Seq}) || r.Head != hello.Seq {
		t.Fatalf("the read from a state at 9999 on a desk whose head is %d = %+v, want watermark_unavailable and the view", hello.Seq, r)
	}
	next := appendAs(t, st, transcript.Message{Author: ana, Content: "next"})
	if r, _ := a.Read(deskmcp.ReadDeskArgs{}); r.Reinitialized != "" || !slices.Equal(seqs(r.Messages), []transcript.Sequence{next.Seq}) {
		t.Errorf("the read after starting over = %+v, want a delta of %d", r, next.Seq)
	}
}

// TestReplyToAReplyAcknowledgesItsThread: A reads the channel and a thread, then posts a
// reply to one of the thread's replies. The post is in the thread (a reply to a thread's
// reply is in the thread of its root), so it acknowledges the thread's read, and only
// that one: the channel's read stays staged, unacknowledged.
func TestReplyToAReplyAcknowledgesItsThread(t *testing.T) {
	st, _ := sqliteStore(t)
	root := appendAs(t, st, transcript.Message{Author: ana, Content: "root"})
	inThread := appendAs(t, st, transcript.Message{Author: ana, Content: "a reply", Parent: root.Seq})
	a := connect(t, service(t, st), agentA)
	a.Read(deskmcp.ReadDeskArgs{})                 // the channel's first read, staged
	a.Read(deskmcp.ReadDeskArgs{Thread: root.Seq}) // the thread's first read, staged
	a.Post(deskmcp.PostMessageArgs{Content: "a reply to the reply", Parent: inThread.Seq})

	book, _, err := st.LoadBook(t.Context(), desk, agentA)
	if err != nil {
		t.Fatal(err)
	}
	thread := transcript.Conversation{Desk: desk, Thread: root.Seq}
	if s, _, ok := book.Lookup(thread); !ok || s.Watermark != inThread.Seq {
		t.Errorf("after A posted a reply to reply %d, the book holds thread %d at %+v (ok %v), want the thread's read acknowledged, at watermark %d",
			inThread.Seq, root.Seq, s, ok, inThread.Seq)
	}
	for _, c := range []transcript.Conversation{{Desk: desk}, {Desk: desk, Thread: inThread.Seq}} {
		if s, _, ok := book.Lookup(c); ok {
			t.Errorf("after A posted a reply to reply %d in thread %d, the book holds conversation %+v at %+v: the post acknowledged a read that is not its thread's",
				inThread.Seq, root.Seq, c, s)
		}
	}
}
