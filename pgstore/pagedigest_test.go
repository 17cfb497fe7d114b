package pgstore_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/pgstore"
)

// TestPageDigestLeads: the statement that reads a view's first page and its digest at once
// answers the digest's row ahead of the page's rows, so that a page the scan ends early, at
// transcript.PageBytes, still carries the digest; and it answers the row, holding no
// digest, for a conversation that has none.
func TestPageDigestLeads(t *testing.T) {
	t.Parallel()
	st, dsn := openStore(t)
	pool := connect(t, dsn)
	const big = 8
	content := strings.Repeat("word ", transcript.MaxContent/5)
	rows := make([]transcript.Message, big)
	for i := range rows {
		rows[i] = transcript.Message{Author: alice, Content: content}
	}
	// The scan keeps rows while the content of all but the last is below PageBytes, 4 bytes
	// short of it after 5 rows: 6 rows, 5 should the digest's text count.
	page := (transcript.PageBytes+len(content)-1)/len(content) + 1
	if err := st.AppendBatch(t.Context(), "eng", rows); err != nil {
		t.Fatal(err)
	}
	mustExec(t, pool, `INSERT INTO transcript_digests (desk, thread, generation, through, row_count, digester, content)
		VALUES ('eng', 0, 1, 2, 2, 'extractive', 'the first'), ('eng', 0, 2, 5, 4, 'extractive', 'the newest')`)
	channel := transcript.Conversation{Desk: "eng"}
	msgs, d, found, err := pgstore.ReadPageDigest(t.Context(), st, "eng", big+1, channel)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != page || msgs[0].Seq != big {
		t.Fatalf("the page read rows %v, want the newest %d: up to PageBytes and one more", seqs(msgs), page)
	}
	if !found {
		t.Fatal("the scan of a page ended at PageBytes never read the digest's row")
	}
	want := transcript.Digest{Conversation: channel, Generation: 2, Through: 5, Rows: 4, Digester: "extractive", Text: "the newest"}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("digest (-want +got):\n%s", diff)
	}
	msgs, d, found, err = pgstore.ReadPageDigest(t.Context(), st, "eng", 2, transcript.Conversation{Desk: "eng", Thread: 1})
	if err != nil || !found || d != (transcript.Digest{}) || len(msgs) != 2 {
		t.Errorf("a thread without a digest: rows %v, digest %+v (found %v), %v; want 2 rows and no digest, its row read", seqs(msgs), d, found, err)
	}
}

// seqs are msgs' Seqs, in order.
func seqs(msgs []transcript.Message) []transcript.Sequence {
	out := make([]transcript.Sequence, len(msgs))
	for i, m := range msgs {
		out[i] = m.Seq
	}
	return out
}
