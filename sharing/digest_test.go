package sharing_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/sharing"
)

// TestDeltaCarriesNoDigest: a delta is news and carries no digest, even of a log that holds
// one and after a fold; a reinitialization projects afresh and gets the digest it asks for.
func TestDeltaCarriesNoDigest(t *testing.T) {
	ctx := context.Background()
	log := memlog.New()
	channel := transcript.Conversation{Desk: "eng"}
	ana := transcript.Person("ana", "Ana")
	for i := range 40 {
		if _, err := log.Append(ctx, transcript.Message{Author: ana, Content: fmt.Sprintf("folded word%03d", i+1)}); err != nil {
			t.Fatal(err)
		}
	}
	policy := digest.Policy{KeepLive: 10, FoldAfter: 10}
	if _, stored, err := digest.Fold(ctx, log, digest.Extractive{}, policy, channel); err != nil || !stored {
		t.Fatalf("Fold: %v, %v", stored, err)
	}
	proj, err := transcript.Project(ctx, log, transcript.Query{Conversation: channel, Window: 10, Digest: true})
	if err != nil || proj.Digest == nil || proj.Digest.Through != 30 {
		t.Fatalf("Project with its digest: %+v, %v; want the digest through 30", proj.Digest, err)
	}
	state := sharing.Initialized(channel, proj.Head)
	for i := range 30 {
		if _, err := log.Append(ctx, transcript.Message{Author: ana, Content: fmt.Sprintf("new word%03d", i+41)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, stored, err := digest.Fold(ctx, log, digest.Extractive{}, policy, channel); err != nil || !stored {
		t.Fatalf("second Fold: %v, %v", stored, err)
	}
	plan, err := sharing.Prepare(ctx, log, sharing.Query{Desired: channel, Current: channel, State: state})
	if err != nil || plan.Reinitialize != 0 || len(plan.Delta.Messages) != 30 {
		t.Fatalf("Prepare: %+v, %v; want the 30 new rows", plan, err)
	}
	data, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(data); strings.Contains(s, "digest") || strings.Contains(s, "folded word") {
		t.Errorf("the delta carries a digest: %s", s)
	}
	other := transcript.Conversation{Desk: "eng", Thread: 5}
	plan, err = sharing.Prepare(ctx, log, sharing.Query{Desired: other, Current: other, State: state})
	if err != nil || plan.Reinitialize != sharing.ConversationChanged {
		t.Fatalf("Prepare in another conversation: %+v, %v; want a reinitialization", plan, err)
	}
	fresh, err := transcript.Project(ctx, log, transcript.Query{Conversation: channel, Window: 10, Digest: true})
	if err != nil || fresh.Digest == nil || fresh.Digest.Generation != 2 || !strings.Contains(fresh.Digest.Text, "new word041") {
		t.Errorf("the reinitialization's fresh view: digest %+v, %v; want generation 2, holding the rows folded since", fresh.Digest, err)
	}
}
