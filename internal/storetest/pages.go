package storetest

import (
	"slices"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
)

// LargePages checks the page bound of this module's stores, which the port allows but does
// not ask of every Log: on a new store st, a read over rows of transcript.MaxContent bytes ends
// its page once the content reaches transcript.PageBytes, with Next set, and a walk of such
// pages still reads every row, once and in order. A search matching every such row ends its
// page the same way, exactly at transcript.PageBytes, with Next set to page on to the rest.
// The store's logs must implement transcript.Searcher.
func LargePages(t *testing.T, st Store) {
	t.Helper()
	ctx := t.Context()
	const rows = 10
	perPage := max(transcript.PageBytes/transcript.MaxContent, 1) // rows below the cap, then the page ends
	for i := range rows {
		content := string(rune('a'+i)) + " big " + strings.Repeat("x", transcript.MaxContent-len("a big "))
		if _, err := st.Append(ctx, "big", transcript.Message{Author: asideAna, Content: content}); err != nil {
			t.Fatal(err)
		}
	}
	page, err := st.Log("big").ReadBefore(ctx, 0, transcript.PageSize)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Messages) != perPage || page.Next != page.Messages[len(page.Messages)-1].Seq {
		t.Fatalf("ReadBefore(0, %d) over rows of %d bytes: %d rows, Next %d; want %d rows (the page ends at %d bytes of content) and Next at the oldest of them",
			transcript.PageSize, transcript.MaxContent, len(page.Messages), page.Next, perPage, transcript.PageBytes)
	}
	all, err := readAll(ctx, st, "big")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != rows {
		t.Fatalf("a walk read %d rows, want %d", len(all), rows)
	}
	for i, m := range all {
		if m.Seq != transcript.Sequence(i+1) || len(m.Content) != transcript.MaxContent || m.Content[0] != byte('a'+i) {
			t.Errorf("row %d: seq %d, %d bytes starting %q; want seq %d, %d bytes of %q", i, m.Seq, len(m.Content), m.Content[:1], i+1, transcript.MaxContent, rune('a'+i))
		}
	}
	checkSearchPages(t, st.Log("big"), rows, perPage)
}

// checkSearchPages pages through a search for "big" on log, whose rows 1 to rows each hold
// it in transcript.MaxContent bytes: every page but the last holds perPage rows, exactly
// transcript.PageBytes of content when perPage rows fill it, and Next leads on to the rest.
func checkSearchPages(t *testing.T, log transcript.Log, rows, perPage int) {
	t.Helper()
	s := searcherOf(t, log)
	q := transcript.SearchQuery{Text: "big", Viewer: asideAna, Limit: rows}
	var got [][]transcript.Sequence
	for len(got) <= rows {
		res, err := s.Search(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		var seqs []transcript.Sequence
		for _, m := range res.Messages {
			seqs = append(seqs, m.Seq)
		}
		got = append(got, seqs)
		if res.Next == 0 {
			break
		}
		q.Before = res.Next
	}
	var want [][]transcript.Sequence
	for seq := rows; seq > 0; {
		var page []transcript.Sequence
		for ; seq > 0 && len(page) < perPage; seq-- {
			page = append(page, transcript.Sequence(seq))
		}
		want = append(want, page)
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("a search matching %d rows of %d bytes paged as %v, want %v (a page ends at %d bytes of content, with Next set)",
			rows, transcript.MaxContent, got, want, transcript.PageBytes)
	}
}
