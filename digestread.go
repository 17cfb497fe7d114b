package transcript

import "context"

// digestLog is a Log that keeps its conversations' digests: package digest's Store.
type digestLog interface {
	Digest(ctx context.Context, c Conversation, below Sequence) (Digest, bool, error)
}

// digestRead is a read of a conversation's newest digest below q.Before that runs beside
// the walk, so that a view with its digest waits for the slower of the two reads, not for
// both in turn. It starts once the walk's first read has answered: the digest is then read
// after every row the projection's Head stands for, as if it were read after the walk, so
// that a view whose Head is past a redaction never carries a digest the redaction deleted.
type digestRead struct {
	ctx    context.Context
	log    digestLog
	q      Query
	cancel context.CancelFunc
	done   chan struct{} // nil until start
	d      Digest
	ok     bool
	err    error
}

// newDigestRead returns a read of q's digest when q asks for one and log keeps digests,
// else nil. Nothing is read until start; the caller must call set or stop.
func newDigestRead(ctx context.Context, log Log, q Query) *digestRead {
	dl, ok := log.(digestLog)
	if !q.Digest || !ok {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	return &digestRead{ctx: ctx, log: dl, q: q, cancel: cancel}
}

// start starts the read beside the walk, once.
func (r *digestRead) start() {
	if r == nil || r.done != nil {
		return
	}
	r.done = make(chan struct{})
	go func() {
		defer close(r.done)
		r.d, r.ok, r.err = r.log.Digest(r.ctx, r.q.Conversation, r.q.Before)
	}()
}

// stop abandons the read and waits for it to end.
func (r *digestRead) stop() {
	if r == nil {
		return
	}
	r.cancel()
	if r.done != nil {
		<-r.done
	}
}

// set waits for the read and sets proj.Digest to the newest digest of the conversation
// below the window — its Through below q.Before and below proj's oldest message other than
// a thread's pinned root. The read beside the walk answers when its digest lies below the
// window, as it does when the window is no larger than the rows a fold leaves live; else
// (or when the walk read nothing, and so never started it) one read bounded by the window
// does. A failed read is a *ReadError.
func (r *digestRead) set(ctx context.Context, proj *Projection) error {
	if r == nil {
		return nil
	}
	defer r.cancel()
	below := r.q.Before
	msgs := proj.Messages
	if len(msgs) > 0 && r.q.Conversation.Thread != 0 && msgs[0].Seq == r.q.Conversation.Thread {
		msgs = msgs[1:]
	}
	if len(msgs) > 0 && (below == 0 || msgs[0].Seq < below) {
		below = msgs[0].Seq
	}
	var (
		d     Digest
		ok    bool
		err   error
		bound = r.q.Before
	)
	if r.done != nil {
		<-r.done
		d, ok, err = r.d, r.ok, r.err
	}
	if r.done == nil || err == nil && ok && below != 0 && d.Through >= below {
		bound = below
		d, ok, err = r.log.Digest(ctx, r.q.Conversation, below)
	}
	if err != nil {
		return &ReadError{Read: proj.Reads + 1, Before: bound, Limit: 1, Err: err}
	}
	if ok {
		proj.Digest = &d
	}
	return nil
}
