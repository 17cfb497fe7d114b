package pgstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
)

// TestCompactWaitsForALockBriefly: a session idle in a transaction that has read
// transcript_messages holds a lock Compact's VACUUM FULL needs. Compact waits for it
// briefly and fails naming the lock's timeout, so that the appends queued behind its
// request finish: a one-row append finishes within 2 s while Compact waits.
func TestCompactWaitsForALockBriefly(t *testing.T) {
	st, dsn := openStore(t)
	ctx := context.Background()
	if _, err := st.Append(ctx, "eng", transcript.Message{Author: transcript.Person("ana", "Ana"), Content: "hello"}); err != nil {
		t.Fatal(err)
	}
	idle := connect(t, dsn)
	conn, err := idle.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	conn.Exec(ctx, "BEGIN")
	var n int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM transcript_messages").Scan(&n); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 6*time.Second)
	defer cancel()
	compacted := make(chan error, 1)
	go func() { _, err := st.Compact(cctx); compacted <- err }()
	time.Sleep(time.Second)
	actx, acancel := context.WithTimeout(ctx, 2*time.Second)
	defer acancel()
	start := time.Now()
	_, err = st.Append(actx, "eng", transcript.Message{Author: transcript.Person("ana", "Ana"), Content: "hello again"})
	if err != nil {
		t.Errorf("an append while Compact waits behind an idle transaction: %v after %v", err, time.Since(start).Round(time.Millisecond))
	}
	if err := <-compacted; err == nil || !strings.Contains(err.Error(), "lock timeout") {
		t.Errorf("Compact behind an idle transaction: %v; want a failure naming the lock timeout", err)
	}
	conn.Exec(ctx, "ROLLBACK")
}
