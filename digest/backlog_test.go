package digest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
)

// TestFoldBacklog: a backlog of more rows than one fold reads folds over several
// generations in one call, up to the limit; the next call folds the rest; a failing
// digester keeps the generations stored before it.
func TestFoldBacklog(t *testing.T) {
	ctx := context.Background()
	channel := transcript.Conversation{Desk: "ops"}
	log := deskOf(t, 30+5*20) // 130 rows: 100 above KeepLive, five folds of 20
	p := digest.Policy{InputLimit: 20}
	rec := &recorder{}
	d, n, err := digest.FoldBacklog(ctx, log, rec, p, channel, 3)
	if err != nil || n != 3 || d.Generation != 3 || d.Through != 60 || d.Rows != 60 {
		t.Fatalf("FoldBacklog with limit 3 = generation %d through #%d of %d rows, %d stored, %v; want generation 3 through #60 of 60, 3 stored", d.Generation, d.Through, d.Rows, n, err)
	}
	d, n, err = digest.FoldBacklog(ctx, log, rec, p, channel, 100)
	if err != nil || n != 2 || d.Generation != 5 || d.Through != 100 {
		t.Fatalf("FoldBacklog again = generation %d through #%d, %d stored, %v; want generation 5 through #100, 2 stored", d.Generation, d.Through, n, err)
	}
	if d2, n, err := digest.FoldBacklog(ctx, log, rec, p, channel, 100); err != nil || n != 0 || d2 != d {
		t.Errorf("FoldBacklog with nothing due = %+v, %d stored, %v; want the held digest, none stored", d2, n, err)
	}
	if len(rec.requests) != 5 {
		t.Errorf("the digester got %d requests, want 5", len(rec.requests))
	}

	fresh := deskOf(t, 130)
	calls := 0
	failing := &recorder{answer: func(_ context.Context, r digest.Request) (string, error) {
		if calls++; calls == 3 {
			return "", errors.New("down")
		}
		return "ok", nil
	}}
	d, n, err = digest.FoldBacklog(ctx, fresh, failing, p, channel, 100)
	if err == nil || n != 2 || d.Generation != 2 {
		t.Errorf("FoldBacklog with a digester failing on its third request = generation %d, %d stored, %v; want generation 2, 2 stored and the error", d.Generation, n, err)
	}
	if got, ok := held(t, fresh, channel); !ok || got.Generation != 2 {
		t.Errorf("after the failure the log holds generation %d (%v), want 2", got.Generation, ok)
	}
}
