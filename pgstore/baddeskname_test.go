package pgstore_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/sqlitestore"
)

// TestReadsOfABadDeskNameFindNothing: a desk name transcript.ValidateDesk refuses holds no
// row; sqlitestore reads it as an empty log and finds nothing in it. pgstore should answer
// alike, not with a server error about the name's bytes.
func TestReadsOfABadDeskNameFindNothing(t *testing.T) {
	ctx := context.Background()
	pg, _ := openStore(t)
	lite, err := sqlitestore.Open(ctx, filepath.Join(t.TempDir(), "d.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	for _, desk := range []string{"a\x00b", "caf\xe9"} {
		for name, log := range map[string]transcript.Log{"sqlitestore": lite.Log(desk), "pgstore": pg.Log(desk)} {
			page, err := log.ReadBefore(ctx, 0, 10)
			if err != nil || len(page.Messages) != 0 {
				t.Errorf("%s: ReadBefore of desk %q: %v, %v; want an empty page", name, desk, page.Messages, err)
			}
			res, err := log.(transcript.Searcher).Search(ctx, transcript.SearchQuery{Text: "hello"})
			if err != nil || len(res.Messages) != 0 {
				t.Errorf("%s: Search of desk %q: %v, %v; want no match", name, desk, res.Messages, err)
			}
		}
	}
}
