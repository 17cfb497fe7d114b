package digest_test

import (
	"context"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
)

// TestThreadFoldReadsAboveItsRoot: the first fold of a thread at the end of a long desk
// (no digest held yet) reads the rows above its root, not the desk below it, where no reply
// of it can lie: serve folds a thread in the background after every reply.
func TestThreadFoldReadsAboveItsRoot(t *testing.T) {
	ctx := context.Background()
	log := rootsDesk(t, 50_000)
	root := mustAppend(t, log.Log, transcript.Message{Author: ana, Content: "a new thread"})
	for range 5 {
		mustAppend(t, log.Log, transcript.Message{Author: bo, Parent: root.Seq, Content: "a reply"})
	}
	log.reset(root.Seq - 1) // rows below the root: none of them can be a reply of it
	_, stored, err := digest.Fold(ctx, log, digest.Extractive{}, digest.Policy{}, transcript.Conversation{Desk: "bench", Thread: root.Seq})
	if err != nil || stored {
		t.Fatalf("fold: %v, %v; want nothing stored, no error", stored, err)
	}
	t.Logf("the fold of thread %d (5 replies) read %d rows in %d reads, %d of them below its root", root.Seq, log.rows, log.reads, log.below)
	if log.below > transcript.PageSize {
		t.Errorf("the fold of a 5-reply thread read %d rows below its root (of %d): the whole desk; want at most a page", log.below, root.Seq-1)
	}
}
