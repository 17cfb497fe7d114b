package fanout

import (
	"slices"
	"testing"

	"github.com/sharedesk/transcript"
)

// TestDigestNotes: a watch of a desk is woken by a change of its conversations, not of
// another desk's; it takes each conversation once however often it changed, in the order
// first noted; after Stop nothing reaches it.
func TestDigestNotes(t *testing.T) {
	var n DigestNotes
	eng, ops := n.Watch("eng"), n.Watch("ops")
	channel, thread := transcript.Conversation{Desk: "eng"}, transcript.Conversation{Desk: "eng", Thread: 7}
	n.Changed(thread)
	n.Changed(channel)
	n.Changed(thread)
	select {
	case <-eng.Woken():
	default:
		t.Fatal("the watch of eng was not woken")
	}
	if got := eng.Take(); !slices.Equal(got, []transcript.Conversation{thread, channel}) {
		t.Errorf("eng's notes %v, want thread 7 then the channel, once each", got)
	}
	if got := eng.Take(); len(got) != 0 {
		t.Errorf("notes taken twice: %v", got)
	}
	select {
	case <-ops.Woken():
		t.Error("the watch of ops was woken by eng's digests")
	default:
	}
	eng.Stop()
	n.Changed(channel)
	if got := eng.Take(); len(got) != 0 {
		t.Errorf("a stopped watch took %v", got)
	}
	ops.Stop()
	if len(n.watchers) != 0 {
		t.Errorf("watchers left after every Stop: %v", n.watchers)
	}
	(*DigestNotes)(nil).Changed(channel) // a server that folds nothing
}
