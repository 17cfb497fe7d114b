package digest_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/sqlitestore"
)

// hookedStore is a digest.Store that runs hook once, right before the first ReadBefore
// after it is set: a redaction that commits while a fold reads its rows.
type hookedStore struct {
	digest.Store
	mu   sync.Mutex
	hook func()
}

func (l *hookedStore) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	l.mu.Lock()
	hook := l.hook
	l.hook = nil
	l.mu.Unlock()
	if hook != nil {
		hook()
	}
	return l.Store.ReadBefore(ctx, before, limit)
}

// TestFoldNothingDueAnswersNoDeletedDigest: a fold that finds nothing due answers the
// conversation's digest as the store holds it when the fold ends, never the one it read
// when it began, which a redaction that answered while the fold read its rows deleted
// (POST …/digest sends the answer, and `transcript digest` prints it).
func TestFoldNothingDueAnswersNoDeletedDigest(t *testing.T) {
	ctx := context.Background()
	channel := transcript.Conversation{Desk: "eng"}
	base := memlog.New()
	for i := 1; i <= 60; i++ {
		content := "row"
		if i == 5 {
			content = "row 5 holds ERASEDWORD"
		}
		mustAppend(t, base, transcript.Message{Author: ana, Content: content})
	}
	log := &hookedStore{Store: base}
	first, stored, err := digest.Fold(ctx, log, digest.Extractive{}, digest.Policy{}, channel)
	if err != nil || !stored || !strings.Contains(first.Text, "ERASEDWORD") {
		t.Fatalf("first fold: %v, %v, %q", stored, err, first.Text)
	}
	redacted := false
	log.mu.Lock()
	log.hook = func() {
		if _, err := base.Append(ctx, transcript.Message{Author: ana, Corrects: 5, Redacted: true}); err != nil {
			t.Errorf("redact: %v", err)
			return
		}
		redacted = true // the redaction has answered
	}
	log.mu.Unlock()
	d, stored, err := digest.Fold(ctx, log, digest.Extractive{}, digest.Policy{}, channel)
	if err != nil || stored {
		t.Fatalf("second fold: %v, %v; want nothing stored, no error", stored, err)
	}
	if !redacted {
		t.Fatal("the redaction did not run during the fold")
	}
	_, held, _ := base.Digest(ctx, channel, 0)
	t.Logf("after the fold: the store holds a digest: %v; Fold returned generation %d through %d", held, d.Generation, d.Through)
	if strings.Contains(d.Text, "ERASEDWORD") {
		t.Errorf("Fold, returning after the redaction of row 5 answered, returned generation %d (through %d) holding the erased word; the store holds a digest: %v", d.Generation, d.Through, held)
	}
}

// TestFoldNothingDueAnswersNoDeletedDigestSQLite: the same on the SQLite store.
func TestFoldNothingDueAnswersNoDeletedDigestSQLite(t *testing.T) {
	ctx := context.Background()
	channel := transcript.Conversation{Desk: "eng"}
	st, err := sqlitestore.Open(ctx, filepath.Join(t.TempDir(), "desk.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i := 1; i <= 60; i++ {
		content := "row"
		if i == 5 {
			content = "row 5 holds ERASEDWORD"
		}
		if _, err := st.Append(ctx, "eng", transcript.Message{Author: ana, Content: content}); err != nil {
			t.Fatal(err)
		}
	}
	log := &hookedStore{Store: st.Log("eng").(digest.Store)}
	if _, stored, err := digest.Fold(ctx, log, digest.Extractive{}, digest.Policy{}, channel); err != nil || !stored {
		t.Fatalf("first fold: %v, %v", stored, err)
	}
	log.mu.Lock()
	log.hook = func() {
		if _, err := st.Append(ctx, "eng", transcript.Message{Author: ana, Corrects: 5, Redacted: true}); err != nil {
			t.Errorf("redact: %v", err)
		}
	}
	log.mu.Unlock()
	d, stored, err := digest.Fold(ctx, log, digest.Extractive{}, digest.Policy{}, channel)
	if err != nil || stored {
		t.Fatalf("second fold: %v, %v", stored, err)
	}
	_, held, _ := log.Digest(ctx, channel, 0)
	if strings.Contains(d.Text, "ERASEDWORD") {
		t.Errorf("Fold returned after the redaction committed, with generation %d holding the erased word; the store holds a digest: %v", d.Generation, held)
	}
}
