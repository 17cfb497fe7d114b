package sqlitestore

import (
	"path/filepath"
	"testing"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/sharedesk/transcript"
)

// TestTermsRulesRebuild: a file indexed by the rules before Han, Hiragana, Katakana and
// Hangul were read in words of one and two characters (its terms version names the same
// tables and no revision of the rules) is indexed anew when opened, so that a search finds
// its rows by their words inside such a run.
func TestTermsRulesRebuild(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "desk.db")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(ctx, "eng", transcript.Message{Author: opAuthor, Content: "移行は22時に実行します。マイグレーション確認済み"}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	// The entry and the version the earlier rules wrote: each run one word.
	db := openRaw(t, path)
	for _, stmt := range []string{
		`INSERT INTO message_terms (message_terms) VALUES ('delete-all')`,
		`INSERT INTO message_terms (rowid, terms) VALUES (1, '1_移行は22時に実行します 1_マイグレーション確認済み')`,
		`UPDATE message_terms_version SET version = 'unicode ` + unicode.Version + `, norm ` + norm.Version + `'`,
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	st, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, text := range []string{"移行", "22時", "実行", "マイグレーション"} {
		res, err := st.Log("eng").(transcript.Searcher).Search(ctx, transcript.SearchQuery{Text: text})
		if err != nil || len(res.Messages) != 1 {
			t.Errorf("search %q after Open of a file indexed by the earlier rules = %+v, %v; want row 1", text, res, err)
		}
	}
}
