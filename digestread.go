package transcript

import "context"

// digestLog is a Log that keeps its conversations' digests: package digest's Store.
type digestLog interface {
	Digest(ctx context.Context, c Conversation, below Sequence) (Digest, bool, error)
}

// digestRead is a read of a conversation's newest digest below q.Before that runs beside
// the walk, so that a view with its digest waits for the slower of the two reads, not for
// both in turn.
type digestRead struct {
	log    digestLog
	q      Query
	cancel context.CancelFunc
	done   chan struct{}
	d      Digest
	ok     bool
	err    error
}

// startDigest starts reading q's digest when q asks for one and log keeps digests; it
// returns nil otherwise. The caller must call wait or stop.
func startDigest(ctx context.Context, log Log, q Query) *digestRead {
	dl, ok := log.(digestLog)
	if !q.Digest || !ok {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	r := &digestRead{log: dl, q: q, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.d, r.ok, r.err = dl.Digest(ctx, q.Conversation, q.Before)
	}()
	return r
}

// stop abandons the read and waits for it to end.
func (r *digestRead) stop() {
	if r != nil {
		r.cancel()
		<-r.done
	}
}

// set waits for the read and sets proj.Digest to the newest digest of the conversation
// below the window — its Through below q.Before and below proj's oldest message other than
// a thread's pinned root. The read beside the walk answers when its digest lies below the
// window, as it does when the window is no larger than the rows a fold leaves live; else one
// more read, bounded by the window, does. A failed read is a *ReadError.
func (r *digestRead) set(ctx context.Context, proj *Projection) error {
	if r == nil {
		return nil
	}
	<-r.done
	defer r.cancel()
	below := r.q.Before
	msgs := proj.Messages
	if len(msgs) > 0 && r.q.Conversation.Thread != 0 && msgs[0].Seq == r.q.Conversation.Thread {
		msgs = msgs[1:]
	}
	if len(msgs) > 0 && (below == 0 || msgs[0].Seq < below) {
		below = msgs[0].Seq
	}
	d, ok, err := r.d, r.ok, r.err
	if err == nil && ok && d.Through >= below {
		d, ok, err = r.log.Digest(ctx, r.q.Conversation, below)
	}
	if err != nil {
		return &ReadError{Read: proj.Reads + 1, Before: below, Limit: 1, Err: err}
	}
	if ok {
		proj.Digest = &d
	}
	return nil
}
