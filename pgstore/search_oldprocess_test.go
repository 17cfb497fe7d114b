package pgstore_test

import (
	"slices"
	"testing"

	"github.com/sharedesk/transcript"
)

// TestSearchOldProcessUpdates: a process of a version before search updates a row in SQL
// without touching its terms, as it redacts or edits, a desk row or an aside; the row is
// left with no terms, so a
// search for its old words finds nothing, while the rows it did not update keep theirs,
// and a correction made by this version after it is found by its new words.
func TestSearchOldProcessUpdates(t *testing.T) {
	t.Parallel()
	st, dsn := openStore(t)
	pool := connect(t, dsn)
	ctx := t.Context()
	for _, c := range []string{"password hunter2", "rota monday", "kept words", "draft plan"} {
		if _, err := st.Append(ctx, "eng", transcript.Message{Author: alice, Content: c}); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range []transcript.Message{
		{Author: alice, Audience: []transcript.Author{bot}, Content: "aside passphrase"},
		{Author: bot, Audience: []transcript.Author{alice}, Content: "aside kept"},
	} {
		if _, err := st.Append(ctx, "eng", m); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := pool.Exec(ctx, `
		UPDATE transcript_messages SET content = 'aside changed' WHERE desk = 'eng' AND seq = 5;
		UPDATE transcript_messages SET content = '', redacted = true WHERE desk = 'eng' AND seq = 1;
		UPDATE transcript_messages SET content = 'rota tuesday' WHERE desk = 'eng' AND seq = 2;
		UPDATE transcript_messages SET content = content WHERE desk = 'eng' AND seq = 3`); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(ctx, "eng", transcript.Message{Author: alice, Corrects: 4, Content: "final plan"}); err != nil {
		t.Fatal(err)
	}
	if got, want := storedTerms(t, pool), []string{"aside", "final", "kept", "kept", "plan", "words"}; !slices.Equal(got, want) {
		t.Errorf("terms stored: %q, want %q (none of the rows updated in SQL)", got, want)
	}
	for _, c := range []struct {
		text string
		want []transcript.Sequence
	}{
		{"hunter2", nil},
		{"monday", nil},
		{"kept", []transcript.Sequence{6, 3}},
		{"final plan", []transcript.Sequence{4}},
		{"passphrase", nil},
		{"aside", []transcript.Sequence{6}},
	} {
		if got := searchSeqs(t, st, "eng", c.text, alice); !slices.Equal(got, c.want) {
			t.Errorf("search for %q: rows %v, want %v", c.text, got, c.want)
		}
	}
}
