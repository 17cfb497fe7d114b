package memdesks

import (
	"context"
	"sync/atomic"

	"github.com/sharedesk/transcript"
)

// DigestFeed is a store's digest watch that a test drives (the server's DigestWatcher):
// each watch reports the conversations the test sends on Convs, and the one open then is
// lost, as over a dropped connection, when the test sends on Lose. Make both with
// NewDigestFeed; Open counts the watches open.
type DigestFeed struct {
	Convs chan transcript.Conversation
	Lose  chan struct{}
	Open  atomic.Int64
}

// NewDigestFeed returns a DigestFeed with unbuffered Convs and Lose.
func NewDigestFeed() *DigestFeed {
	return &DigestFeed{Convs: make(chan transcript.Conversation), Lose: make(chan struct{})}
}

// WatchDigests starts a watch: its channel yields what the test sends on Convs and closes
// once ctx is done or the test sends on Lose.
func (f *DigestFeed) WatchDigests(ctx context.Context) (<-chan transcript.Conversation, error) {
	f.Open.Add(1)
	out := make(chan transcript.Conversation)
	go func() {
		defer f.Open.Add(-1)
		defer close(out)
		for {
			select {
			case <-ctx.Done():
				return
			case <-f.Lose:
				return
			case c := <-f.Convs:
				select {
				case out <- c:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out, nil
}
