// Package deskmcp lets any agent that speaks the Model Context Protocol sit at a desk as
// itself: read what is new for it, post, correct what it wrote, and move between threads
// without losing its place. It is built on the official Go SDK,
// github.com/modelcontextprotocol/go-sdk.
//
//	svc, err := deskmcp.New(st, st, deskmcp.Options{}) // st: a sqlitestore or pgstore Store
//	srv, err := svc.Server("eng", transcript.Agent("triage", "Triage"))
//	err = srv.Run(ctx, &mcp.StdioTransport{}) // transcript mcp; serve's /mcp makes one per request
//
// # Tools
//
//	read_desk       thread?, max_tokens?                          what is new for me there since my last acknowledged read
//	post_message    content, parent?, audience?, key?             append as me; acknowledges my read of that conversation
//	edit_message    seq, content, key?                            replace my message's content; acknowledges as a post there
//	redact_message  seq, key?                                     erase a message (mine; the operator: anyone's); acknowledges as a post there
//	view            thread?, before?, window?, max_tokens?        a projection, no state change
//	list_threads    limit?                                        the newest threads I can read
//	search_desk     query, thread?, before?, limit?, max_tokens?  the messages I can read that hold every word of query
//
// Each result is text — a first line that says what follows, then every message in its
// envelope and every elision as its tag (render.Blocks), so that nothing a message says can
// pass for the desk's own words — and the same as structured content: read_desk
// {"messages", "elided", "head"} plus "corrections" when messages it delivered before
// were edited or redacted since (rendered among the messages, render.WithCorrections),
// "reinitialized" when it started over and "remaining" when max_tokens left new messages
// for the next read; post_message the stored Message; edit_message and redact_message the
// stored correction (a Message whose corrects names the target); view a Projection, whose
// corrected messages show their current content, revised, and redacted ones no content;
// list_threads {"threads"}; search_desk {"messages", "next"}: the hits, newest first,
// each as the desk holds it now, and the before of the next page (0: none). Arguments and
// results have JSON schemas, which the SDK checks. A refusal is a tool error the model can
// read (ErrNoThread, ErrNoParent, ErrNoMessage, ErrNotAuthor, ErrRedacted, ErrBadAudience,
// ErrBadMessage, ErrBadQuery, ErrNoSearch, ErrTooFewTokens, ErrUnavailable); none quotes
// content or a query, and a thread, parent or message the participant may not read is
// refused exactly as one that does not exist.
//
// search_desk searches as the participant, through the desk's transcript.Searcher: only
// the rows it may read are found, and nothing of its answer depends on a row it may not
// read. Its max_tokens keeps the newest hits that fit, whole, and its next names the
// first left out; it changes no read state.
//
// An edit or a redaction is appended as a post is, and the store decides it by the
// correction rule (transcript.Message.ResolveCorrection): the tools check nothing of it
// themselves. Like a post, it acknowledges the participant's staged read of the
// conversation its target is in (the channel for a root, the root's thread for a reply):
// the participant acted on what it read.
//
// # Read state, per participant and per conversation
//
// A participant's place in each conversation of a desk (the channel, each thread) is a
// sharing.State in its sharing.Book, in the store (books.Store), so that an agent
// working in two threads and the channel gets deltas in each and never starts over when
// it moves between them; past sharing.BookLimit conversations the least recently used is
// evicted, and its next read starts over with the reason state_evicted. The state of a
// read that gave the conversation's digest records it, and once a message that digest
// stands for is edited or redacted the next read starts over (digest_corrected), with the
// digest the store holds then: the copy the participant holds may keep words the desk no
// longer does.
//
// A read is not committed when it is delivered. It is staged, in the Service's memory, and
// acknowledged — joined into the stored book by compare-and-swap (books.Update) —
// when the participant reads that conversation again or posts in it. A crash before that
// forgets the staged read, and the next read delivers the same messages again: at least
// once, never lost. Two sessions of one participant (two connections of one agent) share
// their staged reads within one Service and take turns on each conversation; across
// processes the book's compare-and-swap and its commutative join keep every
// acknowledgement of both. The participant's own messages never come back to it as news.
//
// # Token budget
//
// max_tokens bounds a result's text, counted with o200k_base
// (github.com/tiktoken-go/tokenizer, whose vocabulary is compiled in: nothing is
// downloaded; for other models the count is an estimate). A read that does not fit
// delivers its oldest new messages that do, says how many are left, and stages a state
// whose watermark stops below the first message left out (sharing.Delta.Prefix), so that
// the next read delivers the rest: complete, in order, nothing twice. A view, and a read
// that starts over, drops its oldest messages instead — never a thread's pinned root — and
// says how many. A bound that cannot hold even one message is ErrTooFewTokens.
package deskmcp
