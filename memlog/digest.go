package memlog

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

// Digest implements digest.Store: the newest digest of c whose Through is below below (0:
// no bound), and false when none is. A Log is one desk, named by the first Desk a digest it
// stored gave (an empty Desk is the log's own): a conversation of another desk is an error
// matching storage.ErrInvalidDigest.
func (l *Log) Digest(ctx context.Context, c transcript.Conversation, below transcript.Sequence) (transcript.Digest, bool, error) {
	if err := ctx.Err(); err != nil {
		return transcript.Digest{}, false, err
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.digestDesk != "" {
		if err := storage.CheckDigestDesk(l.digestDesk, c); err != nil {
			return transcript.Digest{}, false, err
		}
	}
	gens := l.digests[c.Thread]
	i := len(gens)
	if below != 0 {
		i, _ = slices.BinarySearchFunc(gens, below, byThrough)
	}
	if i == 0 {
		return transcript.Digest{}, false, nil
	}
	return gens[i-1], true, nil
}

// DigestRead implements digest.Store: the log's newest row and the log's own number, which
// no other Log in the process has.
func (l *Log) DigestRead(ctx context.Context) (storage.DigestRead, error) {
	if err := ctx.Err(); err != nil {
		return storage.DigestRead{}, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return storage.DigestRead{Head: l.head(), Desk: l.number()}, nil
}

// logNumbers numbers the Logs that DigestRead or PutDigest met, from 1.
var logNumbers atomic.Int64

// number returns the log's number, giving it one on first use. The caller holds l.mu for
// writing.
func (l *Log) number() int64 {
	if l.digestLog == 0 {
		l.digestLog = logNumbers.Add(1)
	}
	return l.digestLog
}

// PutDigest implements digest.Store: it stores d as the newest digest of its conversation's
// thread when read is of this Log (DigestRead's), the newest held is generation
// d.Generation-1 (none for 1) with a Through below d.Through, and no row above read.Head
// that is no aside corrects a row at or below d.Through (a digest folds no aside, so the
// correction of one, itself an aside, supersedes no fold); otherwise it stores nothing and
// returns storage.ErrSuperseded. A digest no fold could make (storage.CheckDigest, the
// desk being the first stored digest's) or a read above the log's newest row is an error.
func (l *Log) PutDigest(ctx context.Context, d transcript.Digest, read storage.DigestRead) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	desk := l.digestDesk
	if desk == "" {
		desk = d.Conversation.Desk
	}
	if err := storage.CheckDigest(desk, d, read.Head); err != nil {
		return err
	}
	if read.Desk != l.number() {
		return fmt.Errorf("memlog: %w: the fold read another log", storage.ErrSuperseded)
	}
	if read.Head > l.head() {
		return fmt.Errorf("memlog: read head %d above the newest row %d", read.Head, l.head())
	}
	gens := l.digests[d.Conversation.Thread]
	var newest transcript.Digest
	if len(gens) > 0 {
		newest = gens[len(gens)-1]
	}
	if newest.Generation != d.Generation-1 || newest.Through >= d.Through {
		return storage.ErrSuperseded
	}
	i, _ := l.find(read.Head + 1)
	for _, m := range l.rows[i:] {
		if storage.CorrectsFolded(&m, d.Through) {
			return storage.ErrSuperseded
		}
	}
	if l.digests == nil {
		l.digests = make(map[transcript.Sequence][]transcript.Digest)
	}
	if l.digestDesk == "" {
		l.digestDesk = d.Conversation.Desk
	}
	l.digests[d.Conversation.Thread] = append(gens, d)
	return nil
}

// dropDigests deletes, for a correction of target, every digest that may hold its words:
// those of the channel, and of target's thread when it is a reply, whose Through is at or
// above target's Seq. A digest folds no aside: for an aside target it deletes none, so
// that a reader who may not read the aside sees no digest change for its correction.
func (l *Log) dropDigests(target transcript.Message) {
	if target.IsAside() {
		return
	}
	for _, thread := range []transcript.Sequence{0, target.Parent} {
		gens := l.digests[thread]
		i, _ := slices.BinarySearchFunc(gens, target.Seq, byThrough)
		if i < len(gens) {
			clear(gens[i:]) // no erased word stays reachable in the array
			l.digests[thread] = gens[:i]
		}
		if target.Parent == 0 {
			break
		}
	}
}

// byThrough orders a conversation's digests, ascending Through, against a Seq.
func byThrough(d transcript.Digest, seq transcript.Sequence) int { return cmp.Compare(d.Through, seq) }
