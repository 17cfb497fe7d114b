package deskmcp

import "github.com/sharedesk/transcript"

// The tools' arguments and results. The field tags are the JSON the tools take and give;
// the jsonschema tags are the descriptions in their schemas, which the tool list shows a
// model.

// ReadDeskArgs are read_desk's arguments.
type ReadDeskArgs struct {
	Thread    transcript.Sequence `json:"thread,omitempty" jsonschema:"The root of the thread to read. Absent or 0: the desk's channel."`
	MaxTokens int                 `json:"max_tokens,omitempty" jsonschema:"The most tokens the result's text may take (o200k; an estimate for other models). A read that does not fit delivers its oldest new messages that do and the rest on the next read. Absent or 0: no bound."`
}

// ReadDeskResult is read_desk's structured result: what is new for the
// participant in the conversation since its last acknowledged read, or, when it started
// over, the conversation's current view and why.
type ReadDeskResult struct {
	Messages []transcript.Message `json:"messages"`
	Elided   []transcript.Elision `json:"elided"`
	// Head is the newest row the read covers: the next read of the conversation starts
	// above it.
	Head transcript.Sequence `json:"head"`
	// Corrections holds, ascending Seq, the newest correction of each message the
	// participant was shown in the conversation that changed since its last read: an edit
	// (corrects, and the message's new content) or a redaction (corrects, redacted, no
	// content). Replace each message held by its correction's content. Absent when none.
	Corrections []transcript.Message `json:"corrections,omitempty"`
	// Reinitialized is set when the read started over from a full view: first_read,
	// state_evicted, gap_too_large, watermark_unavailable, conversation_changed or
	// digest_corrected (a message the digest it was given stands for was edited or
	// redacted since; see sharing.Reason).
	Reinitialized string `json:"reinitialized,omitempty"`
	// Remaining counts the new messages and corrections that did not fit in max_tokens or in the
	// service's byte budget (Options.MaxAnswerBytes): the next read
	// delivers them. Absent when the read delivered all.
	Remaining int `json:"remaining,omitempty"`
	// Digest is the conversation's digest below the messages, on a read that started over
	// (a first read or a reinitialization), when it has one: it comes first in the text.
	Digest *transcript.Digest `json:"digest,omitempty"`
}

// PostMessageArgs are post_message's arguments.
type PostMessageArgs struct {
	Content  string              `json:"content" jsonschema:"The message. Never blank (empty or white space only): no one would see it."`
	Parent   transcript.Sequence `json:"parent,omitempty" jsonschema:"The message it replies to: a thread's root, to post in that thread. Absent or 0: a new root in the channel."`
	Audience []string            `json:"audience,omitempty" jsonschema:"Makes it an aside only these participants read (besides you and the operator): operator, person:ID, agent:ID or system:KIND. A reply to an aside is an aside to the aside's readers: leave this out. Never empty: leave it out for the whole desk."`
	Key      string              `json:"key,omitempty" jsonschema:"Your name for the message, unique on the desk: posting again with the same key and message returns the stored message instead of a second one."`
}

// EditMessageArgs are edit_message's arguments.
type EditMessageArgs struct {
	Seq     transcript.Sequence `json:"seq" jsonschema:"The seq of your message to edit."`
	Content string              `json:"content" jsonschema:"Its new content, which replaces the old for everyone who reads it. Never blank: to erase a message, use redact_message."`
	Key     string              `json:"key,omitempty" jsonschema:"Your name for the edit, unique on the desk: editing again with the same key and edit returns the stored edit instead of a second one."`
}

// RedactMessageArgs are redact_message's arguments.
type RedactMessageArgs struct {
	Seq transcript.Sequence `json:"seq" jsonschema:"The seq of the message to erase: yours, or, for the operator, anyone's."`
	Key string              `json:"key,omitempty" jsonschema:"Your name for the redaction, unique on the desk: redacting again with the same key returns the stored redaction instead of an error."`
}

// ViewArgs are view's arguments.
type ViewArgs struct {
	Thread    transcript.Sequence `json:"thread,omitempty" jsonschema:"The root of the thread to view. Absent or 0: the desk's channel."`
	Before    transcript.Sequence `json:"before,omitempty" jsonschema:"Only messages below this seq. Absent or 0: up to the newest."`
	Window    int                 `json:"window,omitempty" jsonschema:"How many messages. Absent or 0: 30."`
	MaxTokens int                 `json:"max_tokens,omitempty" jsonschema:"The most tokens the result's text may take (o200k; an estimate for other models): the oldest messages are dropped to fit, never a thread's root. Absent or 0: no bound."`
	Digest    bool                `json:"digest,omitempty" jsonschema:"With true: the conversation's digest, standing for its history before the messages shown, comes first, when it has one (left out when max_tokens cannot hold it with the newest message)."`
}

// SearchDeskArgs are search_desk's arguments.
type SearchDeskArgs struct {
	Query     string              `json:"query" jsonschema:"The words to find: a message is a hit when it holds every one of them, in any order and any case. Words are runs of letters and digits; spaces and punctuation only separate them. In Chinese, Japanese and Korean, written without spaces, each character and each two adjacent characters are words, so 移行 finds 移行は and not 行移. At most 16 words (a query counts the pairs of such a run, not its characters), each at most 64 bytes."`
	Thread    transcript.Sequence `json:"thread,omitempty" jsonschema:"Search only this message and its direct replies: a thread's root, to search that thread. Absent or 0: the whole desk, every thread included."`
	Before    transcript.Sequence `json:"before,omitempty" jsonschema:"Only messages below this seq: the next of a previous result, for the hits after it. Absent or 0: from the newest."`
	Limit     int                 `json:"limit,omitempty" jsonschema:"The most hits. Absent or 0: 20; above 100: 100."`
	MaxTokens int                 `json:"max_tokens,omitempty" jsonschema:"The most tokens the result's text may take (o200k; an estimate for other models): the hits that do not fit are left for the next call (next), never cut. Absent or 0: no bound."`
}

// SearchDeskResult is search_desk's structured result: one page of the participant's
// search.
type SearchDeskResult struct {
	// Messages are the hits, newest first, as the desk holds them now: an edited message
	// with its new content (found by its new words only), revised; a redacted one is never
	// a hit.
	Messages []transcript.Message `json:"messages"`
	// Next is the before of the next page: the seq of the oldest hit shown when older
	// hits, or hits that did not fit, remain; 0 when none do.
	Next transcript.Sequence `json:"next"`
}

// ViewResult is view's structured result: the participant's view, a transcript.Projection
// without how many reads its walk made, which would tell the size of rows the participant
// may not read.
type ViewResult struct {
	Messages []transcript.Message `json:"messages"`
	Head     transcript.Sequence  `json:"head"`
	Partial  bool                 `json:"partial"`
	Scanned  int                  `json:"scanned"`
	// Reads is always 0: nothing sets it. The member stays for the clients that require it.
	Reads   int                  `json:"reads"`
	Elided  []transcript.Elision `json:"elided,omitempty"`
	Dropped int                  `json:"dropped,omitempty"`
	// Digest is the conversation's digest below the messages, with digest true.
	Digest *transcript.Digest `json:"digest,omitempty"`
}

// ListThreadsArgs are list_threads' arguments.
type ListThreadsArgs struct {
	Limit int `json:"limit,omitempty" jsonschema:"How many threads. Absent or 0: 20."`
}

// ThreadsResult is list_threads' structured result: the newest threads the participant can
// read, newest root first.
type ThreadsResult struct {
	Threads []transcript.Thread `json:"threads"`
}
