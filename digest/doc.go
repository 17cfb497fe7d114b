// Package digest folds a conversation's older history into a Digest: bounded text that
// stands for what happened before a view's window, folded only from the rows every
// participant may read, so that one digest serves every viewer of the conversation.
//
// Fold reads the rows above the conversation's held digest that the zero Author's view
// qualifies, and when the Policy says it is time hands the oldest of them to a Digester
// (Extractive, the default, writes an attributed outline with no model) and stores the text
// as the next generation in a Store: a desk's log that keeps digests (memlog.Log, and the
// SQL stores). FoldBacklog folds again while the policy allows, so that a backlog larger
// than one fold reads folds over several generations in one call. A correction of a folded row deletes the digests that hold its words in the
// correction's own transaction, and the next fold starts again below it. A digester that
// sends the rows out of the process (OpenAI) asks the request's Current before each send,
// retries included, and sends nothing once a correction of a row it would send, or of its
// prior digest, has been stored. A view asks for
// the digest below its window with transcript.Query's Digest.
package digest
