package sqlitestore

import (
	"testing"

	"github.com/sharedesk/transcript"
)

// TestBatchIndexOneSegment: a batch's index entries are one FTS5 segment, however many
// INSERTs of rows the batch takes: SQLite has FTS5 write what it holds as a segment at the
// start of every statement of many rows in the transaction, and a segment a statement made
// dozens a batch, which merges rewrote again.
func TestBatchIndexOneSegment(t *testing.T) {
	st := openTempInternal(t)
	msgs := benchMessages(4 * insertChunk)
	if err := st.AppendBatch(t.Context(), benchDeskName, msgs); err != nil {
		t.Fatal(err)
	}
	var segments, entries int
	if err := st.writer.QueryRowContext(t.Context(), `SELECT count(DISTINCT segid) FROM message_terms_idx`).Scan(&segments); err != nil {
		t.Fatal(err)
	}
	var h tokenHasher
	match := string(h.appendMatch(nil, st.searchKey, 1, []int64{publicReaderSet}, []string{"deploy"}))
	if err := st.writer.QueryRowContext(t.Context(), `SELECT count(*) FROM message_terms WHERE message_terms MATCH ?1`, match).Scan(&entries); err != nil {
		t.Fatal(err)
	}
	if segments != 1 || entries == 0 {
		t.Errorf("a batch of %d rows: %d segments in the search index, %d entries of a common word; want 1 segment, some entries", len(msgs), segments, entries)
	}
}

// TestSearchSkipsUnsearchableHits: a row no search finds (storage.Searchable) is no hit even
// when the index still holds an entry of it, as it would had a process removed the row's
// entries with other term rules than those that wrote them: here the row is redacted by
// plain SQL, which leaves its entries, and its old word finds nothing.
func TestSearchSkipsUnsearchableHits(t *testing.T) {
	st := openTempInternal(t)
	log := st.Log("ops")
	row, err := st.Append(t.Context(), "ops", transcript.Message{Author: transcript.Operator(), Content: "the zebraword row"})
	if err != nil {
		t.Fatal(err)
	}
	search := func() []transcript.Message {
		t.Helper()
		res, err := log.(transcript.Searcher).Search(t.Context(), transcript.SearchQuery{Text: "zebraword", Viewer: transcript.Operator()})
		if err != nil {
			t.Fatal(err)
		}
		return res.Messages
	}
	if got := search(); len(got) != 1 || got[0].Seq != row.Seq {
		t.Fatalf("search before the redaction: %+v; want row %d", got, row.Seq)
	}
	if _, err := st.writer.ExecContext(t.Context(), `UPDATE messages SET content = '', redacted = 1 WHERE seq = ?1`, int64(row.Seq)); err != nil {
		t.Fatal(err)
	}
	if got := search(); len(got) != 0 {
		t.Errorf("search after the row was blanked with its entry left: %+v; want nothing", got)
	}
}
