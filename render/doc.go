// Package render turns a projection or a delta into model turns as one viewer sees it.
//
// The viewer's own messages (same author Kind and ID, see transcript.Author.Same) become
// assistant turns, verbatim. Every other message — a person's, another agent's, the
// operator's, a system notice — becomes user-side content inside an envelope that names its
// author's kind, id and label, its sequence and, for a reply, its parent:
//
//	<message seq="12" parent="3" kind="agent" id="review" label="Reviewer">
//	It locks the users table &amp; the sessions table.
//	</message>
//
// The envelope cannot be forged from inside: content is escaped (&, < and > become entities),
// so a message can neither close its envelope nor open another one claiming another author;
// attribute values (ids and labels) are escaped too, control characters included. No row
// ever gets the system role, and only the viewer's own words get the assistant role.
//
// A row a correction changed renders as the log now holds it: its current content, and
// revised="SEQ" naming the newest correction; a redacted row says redacted="true" and has
// no content at all. A delta's corrections (sharing.Delta.Corrections) render among its
// messages, in sequence order, once merged into them by WithCorrections: each as a row of
// its author with corrects="TARGET" and the target's new content, or, for a redaction,
// none:
//
//	<message seq="9" corrects="3" kind="person" id="ana" label="Ana">
//	deploy at 23:00
//	</message>
//	<message seq="10" corrects="4" kind="operator" redacted="true"/>
//
// These attributes are the renderer's: content is escaped, so no message can state them.
//
// An elision — rows the viewer may not read (see transcript.Elision) — renders, in sequence
// order among the messages, as user-side content naming its range, count and readers and
// nothing else:
//
//	<elided from="12" through="19" count="3" readers="operator,agent:triage"/>
//
// and, in Text, as a line of its own ("#12–19 · 3 messages between Ana and Triage you cannot
// read"). Every output takes a view's elisions as trailing arguments.
//
// A projection's digest (transcript.Digest: standing text for the conversation's older
// history) renders before the view's first message, user-side, its text escaped as content
// is, once a View holds it:
//
//	<digest of="channel" through="812" rows="780" digester="extractive">
//	Ana (person:ana) asked for the migration plan; …
//	</digest>
//
// and, in Text, as a block of its own ("Digest of the channel through #812 · 780
// messages · extractive", its text indented below).
//
// Outputs: Turns (the neutral form), Text (for people at a terminal), OpenAI (chat
// completions messages JSON) and Anthropic (messages JSON: starts with a user turn,
// alternates strictly, merges consecutive user-side rows, never ends on an assistant turn).
//
// Invalid UTF-8 in a message is replaced with U+FFFD in every output.
package render
