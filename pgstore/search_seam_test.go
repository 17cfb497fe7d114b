package pgstore_test

import (
	"slices"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/pgstore"
)

// TestSearchWhereRecentMeetsOlder: a match at bound − searchRecentRows, the oldest row the
// recent rows hold and the newest the older rows' probe or windows would, is found once,
// with its neighbours on both sides, whether the older rows are read by the probe (a rare
// word) or in windows (a word common in the older rows), at the desk's head and below a
// Before.
func TestSearchWhereRecentMeetsOlder(t *testing.T) {
	t.Parallel()
	st, pool, _ := searchPlanStore(t)
	const rows = 6000
	recent := int64(pgstore.SearchRecentRows)
	rare := func(b int64) []int64 { return []int64{b - recent + 1, b - recent, b - recent - 1} }
	seams := map[int64]bool{10: true}
	for _, b := range []int64{rows + 1, 4000} {
		for _, s := range rare(b) {
			seams[s] = true
		}
	}
	msgs := make([]transcript.Message, rows)
	for i := range msgs {
		seq := int64(i + 1)
		msgs[i] = loadRow(seq)
		if seams[seq] {
			msgs[i].Content += " seamword"
		}
		if seq <= rows+1-recent { // more rows than the probe takes: common in the older rows
			msgs[i].Content += " olderword"
		}
	}
	copyDesk(t, pool, "eng", msgs)

	search := func(text string, before transcript.Sequence) []transcript.Sequence {
		t.Helper()
		res, err := st.Log("eng").(transcript.Searcher).Search(t.Context(), transcript.SearchQuery{Text: text, Before: before, Viewer: transcript.Operator()})
		if err != nil {
			t.Fatalf("search %q before %d: %v", text, before, err)
		}
		var seqs []transcript.Sequence
		for _, m := range res.Messages {
			seqs = append(seqs, m.Seq)
		}
		return seqs
	}
	for _, before := range []transcript.Sequence{0, 4000} {
		var want []transcript.Sequence
		for s := int64(rows); s >= 1; s-- {
			if seams[s] && (before == 0 || s < int64(before)) {
				want = append(want, transcript.Sequence(s))
			}
		}
		if got := search("seamword", before); !slices.Equal(got, want) {
			t.Errorf("search for a rare word before %d: rows %v, want %v", before, got, want)
		}
	}
	var want []transcript.Sequence
	for s := rows + 1 - recent; len(want) < transcript.SearchLimit; s-- {
		want = append(want, transcript.Sequence(s))
	}
	if got := search("olderword", 0); !slices.Equal(got, want) {
		t.Errorf("search for a word common in the older rows: rows %v, want %v", got, want)
	}
}
