// Package digest folds a conversation's older history into a Digest: bounded text that
// stands for what happened before a view's window, folded only from the rows every
// participant may read, so that one digest serves every viewer of the conversation.
package digest
