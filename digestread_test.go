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
// the redaction deleted, though the digest is read beside the walk.
func TestViewDigestAfterItsHead(t *testing.T) {
	ctx := context.Background()
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
	racing := &redactOnFirstRead{Log: log, target: 1, digests: make(chan struct{}, 1)}
	p, err := transcript.Project(ctx, racing, transcript.Query{Digest: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Head != 61 {
		t.Fatalf("head %d, want 61: the redaction", p.Head)
	}
	if p.Digest != nil && strings.Contains(p.Digest.Text, "Zanzibar0 ") {
		t.Errorf("a view whose head is the redaction of #1 carries a digest holding #1's words (generation %d through %d)", p.Digest.Generation, p.Digest.Through)
	}
}

// failingWalk is a memlog whose reads after the first fail, and whose digest read waits for
// its context to end: a walk that fails while the digest read beside it is in flight.
type failingWalk struct {
	*memlog.Log
	reads      int
	digestDone chan struct{} // closed when the digest read returned
	digestErr  error
}

var errDiskGone = errors.New("disk gone")

func (l *failingWalk) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	if l.reads++; l.reads > 1 {
		return transcript.Page{}, errDiskGone
	}
	return l.Log.ReadBefore(ctx, before, limit)
}

func (l *failingWalk) Digest(ctx context.Context, c transcript.Conversation, below transcript.Sequence) (transcript.Digest, bool, error) {
	defer close(l.digestDone)
	<-ctx.Done()
	l.digestErr = ctx.Err()
	return transcript.Digest{}, false, l.digestErr
}

// TestViewDigestWalkFails: when the walk fails while the digest read beside it is in
// flight, Project reports the walk's error, and the digest read is called off and has ended
// by the time Project returns.
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
	failing := &failingWalk{Log: log, digestDone: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		_, err := transcript.Project(ctx, failing, transcript.Query{Digest: true, Viewer: transcript.Agent("a1", "A1")})
		done <- err
	}()
	select {
	case err := <-done:
		var re *transcript.ReadError
		if !errors.Is(err, errDiskGone) || !errors.As(err, &re) {
			t.Fatalf("Project: %v; want a *ReadError of the walk's failed read", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Project still waits for the digest read after its walk failed")
	}
	if failing.reads < 2 {
		t.Fatalf("the walk read %d times: the test needs a second read, which fails", failing.reads)
	}
	select {
	case <-failing.digestDone:
	default:
		t.Fatal("Project returned while its digest read was still in flight")
	}
	if !errors.Is(failing.digestErr, context.Canceled) {
		t.Errorf("the digest read ended with %v, want its context canceled", failing.digestErr)
	}
}
