package importer

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
)

// TestLaterExportErasesEarlierEdit: the earlier export holds a row and an edit of it;
// the source then redacts the row, which erases the edit. The later export must import
// into the copy, leaving none of the erased words.
func TestLaterExportErasesEarlierEdit(t *testing.T) {
	for _, sc := range correctionStores {
		t.Run(sc.name, func(t *testing.T) {
			ctx := t.Context()
			src := sc.open(t)
			appendAll(t, src, "main",
				transcript.Message{Author: corrAna, Content: "deploy at 22:00", Key: "a1"},
				transcript.Message{Author: corrAna, Corrects: 1, Content: "deploy at 23:00", Key: "a1-edit"},
			)
			first := exportText(t, src, "main")
			appendAll(t, src, "main", transcript.Message{Author: transcript.Operator(), Corrects: 1, Redacted: true})
			second := exportText(t, src, "main")
			want := readDesk(t, src, "main")
			dst := sc.open(t)
			if _, err := importText(ctx, dst, first); err != nil {
				t.Fatal(err)
			}
			counts, err := importText(ctx, dst, second)
			if err != nil {
				t.Fatalf("the later export: %+v, %v", counts, err)
			}
			got := readDesk(t, dst, "main")
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("copy differs (-source +copy):\n%s", diff)
			}
			for _, m := range got {
				if strings.Contains(m.Content, "deploy at") {
					t.Errorf("row %d holds erased %q", m.Seq, m.Content)
				}
			}
		})
	}
}

// TestLaterExportRedactionLeavesNoSearchHit: a redaction a later export brings takes the
// erased word out of the copy's search index too.
func TestLaterExportRedactionLeavesNoSearchHit(t *testing.T) {
	for _, sc := range correctionStores[1:] {
		t.Run(sc.name, func(t *testing.T) {
			ctx := t.Context()
			src := sc.open(t)
			appendAll(t, src, "main",
				transcript.Message{Author: corrAna, Content: "deploy zebraword", Key: "a1"},
				transcript.Message{Author: corrAna, Content: "other", Key: "a2"},
			)
			first := exportText(t, src, "main")
			appendAll(t, src, "main", transcript.Message{Author: transcript.Operator(), Corrects: 1, Redacted: true})
			second := exportText(t, src, "main")
			dst := sc.open(t)
			if _, err := importText(ctx, dst, first); err != nil {
				t.Fatal(err)
			}
			if _, err := importText(ctx, dst, second); err != nil {
				t.Fatal(err)
			}
			res, err := dst.Log("main").(transcript.Searcher).Search(ctx, transcript.SearchQuery{Text: "zebraword", Viewer: corrAna})
			if err != nil || len(res.Messages) != 0 {
				t.Errorf("search after redaction import: %+v %v", res, err)
			}
		})
	}
}
