package transcript

import "context"

// digestLog is a Log that keeps its conversations' digests: package digest's Store.
type digestLog interface {
	Digest(ctx context.Context, c Conversation, below Sequence) (Digest, bool, error)
}

// pageDigestLog is a digestLog that reads a page and a digest in one go (a store over a
// network: one round trip for both).
type pageDigestLog interface {
	digestLog
	// ReadBeforeDigest is ReadBefore(ctx, before, limit) and, once that read has answered,
	// Digest(ctx, c, below): it reads the page as ReadBefore does and returns what ReadBefore
	// would, and when the page was read it passes what Digest would answer to digest, once,
	// before it returns. The digest sees every row the page saw.
	ReadBeforeDigest(ctx context.Context, before Sequence, limit int, c Conversation, below Sequence, digest func(Digest, bool, error)) (Page, error)
}

// digestRead is the read of a conversation's newest digest below q.Before that a view with
// its digest makes once the walk's first read has answered, in turn with the walk (in the
// same go as the first read when the Log reads a page and a digest in one): the digest is
// then read after every row the projection's Head stands for, as if it were read after the
// walk, so that a view whose Head is past a redaction never carries a digest the redaction
// deleted.
type digestRead struct {
	log  digestLog
	q    Query
	read bool // the read after the walk's first read was made
	d    Digest
	ok   bool
	err  error
}

// newDigestRead returns a read of q's digest when q asks for one and log keeps digests,
// else nil. Nothing is read until the walk of walked's Log reads, or start.
func newDigestRead(log Log, q Query) *digestRead {
	dl, ok := log.(digestLog)
	if !q.Digest || !ok {
		return nil
	}
	return &digestRead{log: dl, q: q}
}

// walked returns the Log a walk for the view reads: log itself, or, when log reads a page
// and a digest in one go, log whose first read reads the digest too.
func (r *digestRead) walked(log Log) Log {
	if r == nil {
		return log
	}
	if pd, ok := r.log.(pageDigestLog); ok {
		return &firstReadDigest{Log: log, pd: pd, r: r}
	}
	return log
}

// start reads the digest, once, unless the walk's first read read it.
func (r *digestRead) start(ctx context.Context) {
	if r == nil || r.read {
		return
	}
	r.read = true
	r.d, r.ok, r.err = r.log.Digest(ctx, r.q.Conversation, r.q.Before)
}

// keep is the digest callback of a first read that reads the digest too.
func (r *digestRead) keep(d Digest, ok bool, err error) {
	r.d, r.ok, r.err = d, ok, err
}

// firstReadDigest is a Log whose first ReadBefore also reads r's digest, in one go with
// the page (ReadBeforeDigest).
type firstReadDigest struct {
	Log
	pd pageDigestLog
	r  *digestRead
}

func (l *firstReadDigest) ReadBefore(ctx context.Context, before Sequence, limit int) (Page, error) {
	if l.r.read {
		return l.Log.ReadBefore(ctx, before, limit)
	}
	l.r.read = true
	return l.pd.ReadBeforeDigest(ctx, before, limit, l.r.q.Conversation, l.r.q.Before, l.r.keep)
}

// set sets proj.Digest to the newest digest of the conversation below the window — its
// Through below q.Before and below proj's oldest message other than a thread's pinned
// root. The read after the walk's first read answers when its digest lies below the
// window, as it does when the window is no larger than the rows a fold leaves live; else
// (or when the walk read nothing, and so never made it) one read bounded by the window
// does. A failed read is a *ReadError.
func (r *digestRead) set(ctx context.Context, proj *Projection) error {
	if r == nil {
		return nil
	}
	below := r.q.Before
	msgs := proj.Messages
	if len(msgs) > 0 && r.q.Conversation.Thread != 0 && msgs[0].Seq == r.q.Conversation.Thread {
		msgs = msgs[1:]
	}
	if len(msgs) > 0 && (below == 0 || msgs[0].Seq < below) {
		below = msgs[0].Seq
	}
	d, ok, err, bound := r.d, r.ok, r.err, r.q.Before
	if !r.read || err == nil && ok && below != 0 && d.Through >= below {
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
