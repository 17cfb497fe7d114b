package memlog_test

import (
	"context"
	"errors"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/storage"
)

// TestDigests: a Log keeps every generation of each conversation's digests, reads the newest
// below a bound, stores only the generation after the newest with a higher Through and no
// correction of a covered row since the read, and a correction deletes the digests that may
// hold its target's words: the channel's and, for a reply, its thread's, at or above it.
// A Log keeps digests as the stores do.
var _ digest.Store = (*memlog.Log)(nil)

func TestDigests(t *testing.T) {
	ctx := context.Background()
	log := memlog.New()
	ana := transcript.Person("ana", "Ana")
	add := func(m transcript.Message) transcript.Message {
		t.Helper()
		stored, err := log.Append(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		return stored
	}
	for range 4 {
		add(transcript.Message{Author: ana, Content: "root"}) // 1 to 4
	}
	for range 4 {
		add(transcript.Message{Author: ana, Parent: 1, Content: "reply"}) // 5 to 8
	}
	channel, thread := transcript.Conversation{Desk: "d"}, transcript.Conversation{Desk: "d", Thread: 1}
	self, err := log.DigestRead(ctx)
	if err != nil || self.Head != 8 {
		t.Fatalf("DigestRead = %+v, %v; want head 8", self, err)
	}
	put := func(c transcript.Conversation, gen int, through, read transcript.Sequence) error {
		return log.PutDigest(ctx, transcript.Digest{Conversation: c, Generation: gen, Through: through, Rows: 1, Digester: "t", Text: "x"}, storage.DigestRead{Head: read, Desk: self.Desk})
	}
	for _, tc := range []struct {
		c             transcript.Conversation
		gen           int
		through, read transcript.Sequence
		superseded    bool
	}{
		{channel, 1, 2, 8, false},
		{channel, 1, 3, 8, true}, // generation 1 is held
		{channel, 3, 3, 8, true}, // not the next
		{channel, 2, 2, 8, true}, // Through not above the held one
		{channel, 2, 5, 8, false},
		{thread, 1, 6, 8, false},
		{thread, 2, 7, 8, false},
	} {
		err := put(tc.c, tc.gen, tc.through, tc.read)
		if got := errors.Is(err, digest.ErrSuperseded); got != tc.superseded || (!tc.superseded && err != nil) {
			t.Errorf("PutDigest(%+v, generation %d, through %d): %v; superseded %v", tc.c, tc.gen, tc.through, err, tc.superseded)
		}
	}
	for _, bad := range []func() error{
		func() error { return put(channel, 0, 6, 8) },
		func() error { return put(channel, 3, 9, 8) },
		func() error { return put(channel, 3, 6, 9) },
	} {
		if err := bad(); err == nil || errors.Is(err, digest.ErrSuperseded) {
			t.Errorf("a digest no fold could write: %v, want an error", err)
		}
	}
	through := func(c transcript.Conversation, below transcript.Sequence) transcript.Sequence {
		t.Helper()
		d, ok, err := log.Digest(ctx, c, below)
		if err != nil || ok != (d.Through != 0) {
			t.Fatalf("Digest: %+v, %v, %v", d, ok, err)
		}
		return d.Through
	}
	if through(channel, 0) != 5 || through(channel, 5) != 2 || through(channel, 2) != 0 || through(thread, 0) != 7 || through(thread, 7) != 6 {
		t.Fatalf("held: channel %d and %d, thread %d and %d", through(channel, 0), through(channel, 5), through(thread, 0), through(thread, 7))
	}
	// A correction appended after the read of a fold through a row it corrects supersedes it.
	add(transcript.Message{Author: ana, Corrects: 3, Content: "root, fixed"}) // 9
	if through(channel, 0) != 2 {
		t.Errorf("after the edit of root 3, the channel's newest digest is through %d, want 2", through(channel, 0))
	}
	if through(thread, 0) != 7 {
		t.Errorf("after the edit of root 3, thread 1's newest digest is through %d, want 7 (kept)", through(thread, 0))
	}
	if err := put(channel, 2, 4, 8); !errors.Is(err, digest.ErrSuperseded) {
		t.Errorf("a fold that read before row 9 corrected row 3: %v, want ErrSuperseded", err)
	}
	if err := put(channel, 2, 4, 9); err != nil {
		t.Errorf("the same fold, read after: %v", err)
	}
	add(transcript.Message{Author: transcript.Operator(), Corrects: 7, Redacted: true}) // 10
	if through(thread, 0) != 6 || through(channel, 0) != 4 {
		t.Errorf("after the redaction of reply 7: thread through %d, channel through %d; want 6 and 4", through(thread, 0), through(channel, 0))
	}
	add(transcript.Message{Author: ana, Corrects: 5, Content: "reply, fixed"}) // 11
	if through(thread, 0) != 0 || through(channel, 0) != 4 {
		t.Errorf("after the edit of reply 5: thread through %d, channel through %d; want none and 4", through(thread, 0), through(channel, 0))
	}
}
