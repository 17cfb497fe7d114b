package sqlitestore

import "testing"

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
