package deskmcp

import (
	"fmt"
	"strings"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/render"
)

// The first line of each result's text says what the blocks below it are, for the model
// that reads them: where, for whom, how many, what was left out. Every message is in its
// envelope (render.Envelope), so none of it can pass for this line.

// count says "1 message", "3 messages".
func count(n int, one, many string) string {
	return fmt.Sprintf("%d %s", n, plural(n, one, many))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// readHeader is read_desk's first line, without the notes.
func readHeader(c transcript.Conversation, me transcript.Author, r ReadDeskResult) string {
	var b strings.Builder
	switch {
	case r.Reinitialized != "":
		fmt.Fprintf(&b, "Started over in %s (%s): its current view, %s", render.ConversationName(c), r.Reinitialized, count(len(r.Messages), "message", "messages"))
	case len(r.Messages) == 0 && len(r.Elided) == 0 && len(r.Corrections) == 0:
		fmt.Fprintf(&b, "Nothing new in %s since your last read", render.ConversationName(c))
	default:
		fmt.Fprintf(&b, "New in %s since your last read: %s", render.ConversationName(c), count(len(r.Messages), "message", "messages"))
	}
	if n := len(r.Elided); n > 0 {
		fmt.Fprintf(&b, " and %s you may not read", count(n, "elision", "elisions"))
	}
	if n := len(r.Corrections); n > 0 {
		fmt.Fprintf(&b, "; %s of messages you were shown (corrects=SEQ)", count(n, "correction", "corrections"))
	}
	fmt.Fprintf(&b, "; read up to #%d; you are %s.", r.Head, me)
	return b.String()
}

// viewHeader is view's first line, without the notes.
func viewHeader(c transcript.Conversation, me transcript.Author, p transcript.Projection) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The view of %s: %s", render.ConversationName(c), count(len(p.Messages), "message", "messages"))
	if n := len(p.Elided); n > 0 {
		fmt.Fprintf(&b, " and %s you may not read", count(n, "elision", "elisions"))
	}
	fmt.Fprintf(&b, "; newest row #%d; you are %s.", p.Head, me)
	return b.String()
}

// moreNote ends the first line of a read that did not fit whole.
func moreNote(left, maxTokens int) string {
	if left <= 0 {
		return ""
	}
	return fmt.Sprintf(" %d more %s did not fit in %s: call read_desk again for them.", left, plural(left, "message", "messages"), budgetName(maxTokens))
}

// droppedNote ends the first line of a view that dropped its oldest messages.
func droppedNote(dropped, maxTokens int) string {
	if dropped <= 0 {
		return ""
	}
	return fmt.Sprintf(" The oldest %s did not fit in %s and were dropped.", count(dropped, "message", "messages"), budgetName(maxTokens))
}

// budgetName names what bounded a result: max_tokens when it was given, else the
// service's byte budget.
func budgetName(maxTokens int) string {
	if maxTokens > 0 {
		return fmt.Sprintf("max_tokens %d", maxTokens)
	}
	return "the answer's byte budget"
}

// searchScope names where a search looked: "desk "eng"" or "thread #12 of desk "eng"",
// and "below #40" for a later page.
func searchScope(desk string, thread, before transcript.Sequence) string {
	s := fmt.Sprintf("desk %q", desk)
	if thread != 0 {
		s = render.ConversationName(transcript.Conversation{Desk: desk, Thread: thread})
	}
	if before != 0 {
		s += fmt.Sprintf(" below #%d", before)
	}
	return s
}

// searchHeader is search_desk's first line for res, the hits it shows in scope: how many,
// and how to get the next ones (those cutBy, a budget, left out, then older hits), or
// that there are none. It quotes nothing of the query.
func searchHeader(scope string, me transcript.Author, res SearchDeskResult, cutBy string) string {
	var b strings.Builder
	if len(res.Messages) == 0 {
		fmt.Fprintf(&b, "No message you can read in %s holds every word of the query; you are %s.", scope, me)
		return b.String()
	}
	fmt.Fprintf(&b, "Found in %s: %s holding every word of the query, newest first; you are %s.", scope, count(len(res.Messages), "message", "messages"), me)
	switch {
	case cutBy != "":
		fmt.Fprintf(&b, " The next hits did not fit in %s: call search_desk again with the same query and before=%d for them and older ones.", cutBy, res.Next)
	case res.Next != 0:
		fmt.Fprintf(&b, " For older hits, call search_desk again with the same query and before=%d.", res.Next)
	default:
		b.WriteString(" No older hits.")
	}
	return b.String()
}

// threadsText is list_threads' text: a line, then each thread's root in its envelope after
// a line with its replies.
func threadsText(desk string, me transcript.Author, threads []transcript.Thread, envelope func(transcript.Message) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The newest threads of desk %q you can read: %d; you are %s.", desk, len(threads), me)
	for _, t := range threads {
		fmt.Fprintf(&b, "\nThread #%d: %s, the newest #%d.\n%s", t.Root.Seq, count(t.Replies, "reply", "replies"), t.Newest, envelope(t.Root))
	}
	return b.String()
}
