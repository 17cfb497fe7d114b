package pgstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/pgstore"
)

// checkFoldAfterOtherStoresRedaction: another Store (another serve, the command) redacts a
// row and answers while the standby's replay is paused; a fold by a Store that reads from
// the standby, and has not heard of the redaction, then folds the rows as the primary holds
// them. The fold's head, read on the primary, is past the redaction, and its rows below it
// come from no standby that has not replayed that far, so the erased words reach neither the
// digester nor the stored digest.
func checkFoldAfterOtherStoresRedaction(t *testing.T, c *cluster) {
	ctx := t.Context()
	primary, standbys := c.database(t)
	st := mustOpen(t, primary, pgstore.WithStandbys(standbys[0]), pgstore.WithStandbyWait(50*time.Millisecond))
	other := mustOpen(t, primary)
	rows := []transcript.Message{{Author: alice, Content: erased}, {Author: alice, Content: "second root"}, {Author: alice, Content: "third root"}, {Author: alice, Content: "fourth root"}}
	if err := other.AppendBatch(ctx, "eng", rows); err != nil {
		t.Fatal(err)
	}
	caughtUp(t, primary, standbys[0])
	c.pause(t, 0)
	if _, err := other.Append(ctx, "eng", transcript.Message{Author: transcript.Operator(), Corrects: 1, Redacted: true}); err != nil {
		t.Fatal(err)
	}
	if page := mustRead(t, mustOpen(t, standbys[0]).Log("eng"), 0, 10); len(page.Messages) != 4 || page.Messages[3].Content != erased {
		t.Fatalf("the paused standby reads %+v, want rows 4 to 1 as before the redaction: the lag is not real", page.Messages)
	}
	folder := &recordingDigester{}
	d, folded, err := digest.Fold(ctx, st.Log("eng").(digest.Store), folder, digest.Policy{KeepLive: 1, FoldAfter: 1, InputLimit: 1}, transcript.Conversation{Desk: "eng"})
	if err != nil || !folded {
		t.Fatalf("fold: folded %v, %v", folded, err)
	}
	if len(folder.asked) == 0 {
		t.Fatal("the fold asked the digester to fold no row")
	}
	for _, m := range folder.asked {
		if strings.Contains(m.Content, erased) {
			t.Fatalf("after the redaction of row 1 answered, a fold asked the digester to fold its erased words: %+v", folder.asked)
		}
	}
	if strings.Contains(d.Text, erased) {
		t.Fatalf("after the redaction of row 1 answered, a fold stored a digest holding its erased words: %q", d.Text)
	}
}

// recordingDigester is digest.Extractive that keeps the rows each request asked it to fold.
type recordingDigester struct {
	asked []transcript.Message
}

func (r *recordingDigester) Digest(ctx context.Context, req digest.Request) (string, error) {
	r.asked = append(r.asked, req.Messages...)
	return digest.Extractive{}.Digest(ctx, req)
}
