package digest

import (
	"context"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

// ErrSuperseded is returned by a Store's PutDigest that stored nothing because the digest
// it extends is no longer the conversation's newest (another fold stored one, or a
// correction deleted it), because a row it folded was corrected after the fold read it, or
// because the desk it read was deleted since. It is storage.ErrSuperseded, so that a store
// need not link the digesters.
var ErrSuperseded = storage.ErrSuperseded

// Store is one desk's log that keeps its conversations' digests. Every generation of a
// conversation is kept until a correction deletes it, or the desk is deleted: an edit or a
// redaction of a row every participant may read (no aside) deletes, in the correction's own
// transaction, every digest of the row's channel and of the row's thread (the thread its
// parent roots; a root's own thread never folds the root) whose Through is at or above the
// row's Seq. A digest folds no aside: a correction of an aside, itself an aside, deletes no
// digest and supersedes no fold, so that a reader who may not read it sees no digest change.
type Store interface {
	transcript.Log
	// Digest returns the newest digest of c whose Through is below below (0: no bound), and
	// false when there is none. It is one indexed read.
	Digest(ctx context.Context, c transcript.Conversation, below transcript.Sequence) (transcript.Digest, bool, error)
	// DigestRead returns the desk's head and which desk of its name it is, in one read: a
	// fold takes it before it reads the rows it folds, and gives it to PutDigest.
	DigestRead(ctx context.Context) (storage.DigestRead, error)
	// PutDigest stores d as the newest digest of d.Conversation when, in one transaction
	// with the desk's appends, the desk is the one read names (not deleted since read was
	// taken, nor made anew under its name), the conversation's newest digest is generation
	// d.Generation-1 (none for 1) with a Through below d.Through, and no row appended after
	// read.Head that is no aside corrects a row at or below d.Through; read is what
	// DigestRead returned before the fold read its rows. Otherwise it stores nothing and
	// returns ErrSuperseded.
	PutDigest(ctx context.Context, d transcript.Digest, read storage.DigestRead) error
}
