package transcript_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/memlog"
)

// redactOnFirstRead is a memlog whose first ReadBefore first redacts row target: a
// redaction that commits while a view is being read, just before the walk's first read.
// That first read waits a little for a digest read to end first, as one started before the
// walk would, so that such a read sees the digest the redaction deletes.
type redactOnFirstRead struct {
	*memlog.Log
	target  transcript.Sequence
	once    sync.Once
	err     error
	digests chan struct{} // a digest read ended
}

func (l *redactOnFirstRead) Digest(ctx context.Context, c transcript.Conversation, below transcript.Sequence) (transcript.Digest, bool, error) {
	d, ok, err := l.Log.Digest(ctx, c, below)
	select {
	case l.digests <- struct{}{}:
	default:
	}
	return d, ok, err
}

func (l *redactOnFirstRead) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	l.once.Do(func() {
		select {
		case <-l.digests:
		case <-time.After(100 * time.Millisecond):
		}
		_, l.err = l.Append(ctx, transcript.Message{Author: transcript.Operator(), Corrects: l.target, Redacted: true})
	})
	if l.err != nil {
		return transcript.Page{}, l.err
	}
	return l.Log.ReadBefore(ctx, before, limit)
}

// TestViewDigestAfterItsHead: a view whose Head is past a redaction never carries a digest
// the redaction deleted, whether its Log reads the digest on its own or with the walk's
// first page in one go.
func TestViewDigestAfterItsHead(t *testing.T) {
	ctx := context.Background()
	folded := func() *memlog.Log {
		log := memlog.New()
		ana := transcript.Person("ana", "Ana")
		for i := range 60 {
			if _, err := log.Append(ctx, transcript.Message{Author: ana, Content: fmt.Sprintf("Zanzibar%d note", i)}); err != nil {
				t.Fatal(err)
			}
		}
		if _, folded, err := digest.Fold(ctx, log, digest.Extractive{}, digest.Policy{}, transcript.Conversation{}); err != nil || !folded {
			t.Fatalf("fold: %v, %v", folded, err)
		}
		return log
	}
	onePass := &onePassDigests{digestsLog: &redactOnFirstRead{Log: folded(), target: 1, digests: make(chan struct{}, 1)}}
	for _, c := range []struct {
		name string
		log  transcript.Log
	}{
		{"read in turn", &redactOnFirstRead{Log: folded(), target: 1, digests: make(chan struct{}, 1)}},
		{"read with the first page", onePass},
	} {
		p, err := transcript.Project(ctx, c.log, transcript.Query{Digest: true})
		if err != nil {
			t.Fatal(err)
		}
		if p.Head != 61 {
			t.Fatalf("%s: head %d, want 61: the redaction", c.name, p.Head)
		}
		if p.Digest != nil && strings.Contains(p.Digest.Text, "Zanzibar0 ") {
			t.Errorf("%s: a view whose head is the redaction of #1 carries a digest holding #1's words (generation %d through %d)", c.name, p.Digest.Generation, p.Digest.Through)
		}
	}
	if onePass.calls != 1 {
		t.Errorf("the view made %d reads of a page and the digest in one go, want 1", onePass.calls)
	}
}

// failingWalk is a memlog whose reads after the first fail: a walk that fails after its
// view's digest was read. It counts the digest reads.
type failingWalk struct {
	*memlog.Log
	reads, digests int
}

var errDiskGone = errors.New("disk gone")

func (l *failingWalk) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	if l.reads++; l.reads > 1 {
		return transcript.Page{}, errDiskGone
	}
	return l.Log.ReadBefore(ctx, before, limit)
}

func (l *failingWalk) Digest(ctx context.Context, c transcript.Conversation, below transcript.Sequence) (transcript.Digest, bool, error) {
	l.digests++
	return l.Log.Digest(ctx, c, below)
}

// TestViewDigestWalkFails: when the walk fails after its view's digest was read, Project
// reports the walk's failed read, whatever the digest read found.
func TestViewDigestWalkFails(t *testing.T) {
	ctx := context.Background()
	log := memlog.New()
	ana, bo := transcript.Person("ana", "Ana"), transcript.Person("bo", "Bo")
	for i := range 300 { // asides the viewer may not read: the walk reads page after page
		m := transcript.Message{Author: ana, Audience: []transcript.Author{bo}, Content: fmt.Sprintf("aside %d", i)}
		if _, err := log.Append(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	failing := &failingWalk{Log: log}
	p, err := transcript.Project(ctx, failing, transcript.Query{Digest: true, Viewer: transcript.Agent("a1", "A1")})
	var re *transcript.ReadError
	if !errors.Is(err, errDiskGone) || !errors.As(err, &re) || p.Digest != nil {
		t.Fatalf("Project: %v (digest %v); want a *ReadError of the walk's failed read and no digest", err, p.Digest)
	}
	if failing.reads < 2 || failing.digests != 1 {
		t.Fatalf("the walk read %d times and the digest %d: the test needs the digest read, then a second read of the walk, which fails", failing.reads, failing.digests)
	}
}

// digestsLog is a Log that keeps digests.
type digestsLog interface {
	transcript.Log
	Digest(ctx context.Context, c transcript.Conversation, below transcript.Sequence) (transcript.Digest, bool, error)
}

// onePassDigests is a Log that reads a page and a digest in one go, as a store over a
// network does: its ReadBeforeDigest is its Log's ReadBefore and then its Digest. It counts
// the calls.
type onePassDigests struct {
	digestsLog
	calls int
}

func (l *onePassDigests) ReadBeforeDigest(ctx context.Context, before transcript.Sequence, limit int, c transcript.Conversation, below transcript.Sequence, digest func(transcript.Digest, bool, error)) (transcript.Page, error) {
	l.calls++
	page, err := l.ReadBefore(ctx, before, limit)
	if err == nil {
		digest(l.Digest(ctx, c, below))
	}
	return page, err
}
