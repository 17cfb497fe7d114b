package transcript

import "context"

// digestLog is a Log that keeps its conversations' digests: package digest's Store.
type digestLog interface {
	Digest(ctx context.Context, c Conversation, below Sequence) (Digest, bool, error)
}

// readDigest sets proj.Digest to the newest digest of q's conversation below the window —
// its Through below q.Before and below proj's oldest message other than a thread's pinned
// root — with one read of log's digests; none when log keeps none. A failed read is a
// *ReadError.
func (proj *Projection) readDigest(ctx context.Context, log Log, q Query) error {
	dl, ok := log.(digestLog)
	if !ok {
		return nil
	}
	below := q.Before
	msgs := proj.Messages
	if len(msgs) > 0 && q.Conversation.Thread != 0 && msgs[0].Seq == q.Conversation.Thread {
		msgs = msgs[1:]
	}
	if len(msgs) > 0 && (below == 0 || msgs[0].Seq < below) {
		below = msgs[0].Seq
	}
	d, ok, err := dl.Digest(ctx, q.Conversation, below)
	if err != nil {
		return &ReadError{Read: proj.Reads + 1, Before: below, Limit: 1, Err: err}
	}
	if ok {
		proj.Digest = &d
	}
	return nil
}
