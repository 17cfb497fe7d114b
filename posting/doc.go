// Package posting is the one way a transport turns a participant's post into a message a
// store appends, and a refusal into one vocabulary of errors.
//
// The HTTP service, the MCP tools and the command's append take the same post: content, an
// optional parent, an optional audience and an optional key, written as the participant
// their credential names. Prepare checks it in one order: the audience's entries (an empty
// audience names no reader), the content (blank content, empty or white space only, which
// no view would show, is refused unless the post allows it, as the command's --allow-blank
// does), transcript.Message.ValidateNew (the content's size and text among its rules), the
// parent (a row the author may read, or it is as if it did not exist) and the reply rule on
// it. Check makes the checks that need no desk, for a transport that reports them first.
//
// The transport then appends the message (transcript.Appender's AppendNew, so that a
// replayed key is told from a new row), and Refusal words the store's refusal.
//
// A correction (an edit or a redaction of a row) goes the same way: PrepareCorrection builds
// it (an edit to blank content is refused as a blank post is; a redaction has no content),
// the store applies the correction rule as it writes it, and Refusal words a refusal
// (NoTarget for a row the author may not read, as for a missing one; NotAuthor; Redacted).
//
// Every refusal is an *Error of one Kind, which each transport maps to its answer (an HTTP
// problem's status and type, an MCP tool error). Its Reason says what is wrong without
// quoting content or naming an aside's readers, and a parent that does not exist reads as
// one the author may not read.
package posting
