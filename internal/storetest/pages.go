package storetest

import (
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
)

// LargePages checks the page bound of this module's stores, which the port allows but does
// not ask of every Log: on a new store st, a read over rows of transcript.MaxContent bytes ends
// its page once the content reaches transcript.PageBytes, with Next set, and a walk of such
// pages still reads every row, once and in order.
func LargePages(t *testing.T, st Store) {
	t.Helper()
	ctx := t.Context()
	const rows = 10
	perPage := max(transcript.PageBytes/transcript.MaxContent, 1) // rows below the cap, then the page ends
	for i := range rows {
		content := strings.Repeat(string(rune('a'+i)), transcript.MaxContent)
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
}
