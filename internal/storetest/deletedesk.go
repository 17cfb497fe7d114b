package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/sharing"
	"github.com/sharedesk/transcript/token"
)

// DeskDeleter is a Store that deletes desks: sqlitestore.Store and pgstore.Store.
type DeskDeleter interface {
	Store
	// DeleteDesk deletes desk, its rows, search index, books and, when tokens, its tokens;
	// without tokens, a desk that has some is token.ErrDeskHasTokens. It returns the rows
	// the desk held.
	DeleteDesk(ctx context.Context, desk string, tokens bool) (int64, error)
}

// DeleteDeskWords are words only the deleted desk of DeleteDeskRule holds, in a desk row,
// an aside, an edit and a reply: a store's own test looks for them in its files or tables
// once the rule has run.
var DeleteDeskWords = []string{"qzvxkwdeskone", "qzvxkwasidetwo", "qzvxkweditthree", "qzvxkwreplyfour"}

// DeleteDeskDigestWord is in the text of a digest of each desk DeleteDeskRule writes, when
// the store's logs keep digests (digest.Store).
const DeleteDeskDigestWord = "qzvxkwdigestfive"

// DeleteDeskRule checks DeleteDesk on st, a new store: two desks, "gone" and "kept", each
// with rows, an aside, a correction, a keyed row, books and tokens. Deleting "gone" while it
// has tokens, without tokens, is token.ErrDeskHasTokens and deletes nothing; with tokens it
// returns the desk's rows, and then "gone" is listed by no Desks, reads empty, finds none
// of its words for any viewer, holds no book, no token and, when the store's logs keep
// digests, no digest, and takes a new row at 1 whose key it held before as new; "kept" is
// as it was, rows, search, books, tokens and digests. A desk the store never held deletes
// as 0 rows.
func DeleteDeskRule(t *testing.T, st DeskDeleter) {
	t.Helper()
	ctx := t.Context()
	ana, bot := transcript.Person("ana", "Ana"), transcript.Agent("triage", "Triage")
	fill := func(desk string) {
		t.Helper()
		mustAppend(t, st, desk, transcript.Message{Author: ana, Content: "first " + DeleteDeskWords[0], Key: "k1"}, 1)
		mustAppend(t, st, desk, transcript.Message{Author: ana, Content: "between us " + DeleteDeskWords[1], Audience: []transcript.Author{bot}}, 2)
		mustAppend(t, st, desk, transcript.Message{Author: ana, Corrects: 1, Content: "first, again " + DeleteDeskWords[2]}, 3)
		mustAppend(t, st, desk, transcript.Message{Author: bot, Parent: 1, Content: "a reply " + DeleteDeskWords[3]}, 4)
		if log, ok := st.Log(desk).(digest.Store); ok {
			read, err := log.DigestRead(ctx)
			if err != nil {
				t.Fatalf("DigestRead on desk %q: %v", desk, err)
			}
			if err := log.PutDigest(ctx, deskDeletedDigest(desk), read); err != nil {
				t.Fatalf("PutDigest on desk %q: %v", desk, err)
			}
		}
		for i, p := range []transcript.Author{ana, bot} {
			b := BookOf(t, sharing.Initialized(conversationIn(desk, 0), 4))
			if _, err := st.SaveBook(ctx, desk, p, b, 0); err != nil {
				t.Fatalf("SaveBook on desk %q: %v", desk, err)
			}
			_, tok, err := token.New(desk, p, tokenTime.Add(time.Duration(i)*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			if err := st.AddToken(ctx, tok); err != nil {
				t.Fatalf("AddToken for desk %q: %v", desk, err)
			}
		}
	}
	fill("kept")
	fill("gone") // last, so that a store that numbers desks and rows may reuse its numbers
	keptRows := mustReadAll(t, st, "kept")
	tokensBefore, err := st.Tokens(ctx)
	if err != nil {
		t.Fatal(err)
	}

	if n, err := st.DeleteDesk(ctx, "gone", false); !errors.Is(err, token.ErrDeskHasTokens) {
		t.Errorf("DeleteDesk of a desk with tokens, keeping them = %d, %v; want token.ErrDeskHasTokens", n, err)
	}
	if got := mustReadAll(t, st, "gone"); len(got) != 4 {
		t.Errorf("a refused DeleteDesk left %d rows, want 4", len(got))
	}
	if toks, _ := st.Tokens(ctx); len(toks) != len(tokensBefore) {
		t.Errorf("a refused DeleteDesk left %d tokens, want %d", len(toks), len(tokensBefore))
	}

	if n, err := st.DeleteDesk(ctx, "gone", true); err != nil || n != 4 {
		t.Fatalf("DeleteDesk(gone, tokens) = %d, %v; want 4 rows", n, err)
	}
	if desks := mustDesks(t, st); !slices.Equal(desks, []string{"kept"}) {
		t.Errorf("Desks after the delete = %q, want [kept]", desks)
	}
	if got := mustReadAll(t, st, "gone"); len(got) != 0 {
		t.Errorf("the deleted desk reads %d rows, want none", len(got))
	}
	for _, p := range []transcript.Author{ana, bot} {
		if _, v, err := st.LoadBook(ctx, "gone", p); err != nil || v != 0 {
			t.Errorf("LoadBook of %v on the deleted desk = version %d, %v; want none", p, v, err)
		}
		if _, v, err := st.LoadBook(ctx, "kept", p); err != nil || v != 1 {
			t.Errorf("LoadBook of %v on the kept desk = version %d, %v; want 1", p, v, err)
		}
	}
	toks, err := st.Tokens(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range toks {
		if tok.Desk != "kept" {
			t.Errorf("after the delete, token %s for desk %q remains", tok.ID, tok.Desk)
		}
	}
	if len(toks) != 2 {
		t.Errorf("after the delete, %d tokens; want the kept desk's 2", len(toks))
	}
	checkRows(t, "the kept desk after the delete", mustReadAll(t, st, "kept"), keptRows)
	if _, ok := st.Log("gone").(digest.Store); ok {
		checkDeletedDigests(t, st, "after the delete")
	}

	// The name again: a new desk, from row 1, whose old key is new, and whose rows, as
	// many as the old desk's, are found by none of its words.
	if got, err := st.Append(ctx, "gone", transcript.Message{Author: ana, Content: "anew", Key: "k1"}); err != nil || got.Seq != 1 || got.Content != "anew" {
		t.Errorf("Append to the deleted desk's name with its old key = %+v, %v; want a new row 1", got, err)
	}
	mustAppend(t, st, "gone", transcript.Message{Author: ana, Content: "anew between us", Audience: []transcript.Author{bot}}, 2)
	mustAppend(t, st, "gone", transcript.Message{Author: ana, Content: "anew again"}, 3)
	mustAppend(t, st, "gone", transcript.Message{Author: bot, Parent: 1, Content: "anew reply"}, 4)
	for _, desk := range []string{"gone", "kept"} {
		for _, viewer := range []transcript.Author{transcript.Operator(), ana, bot} {
			for _, w := range DeleteDeskWords {
				res, err := st.Log(desk).(transcript.Searcher).Search(ctx, transcript.SearchQuery{Text: w, Viewer: viewer})
				if err != nil {
					t.Errorf("search %q on desk %q as %v: %v", w, desk, viewer, err)
					continue
				}
				want := 0 // the edit replaced the first word; every viewer reads the others
				if desk == "kept" && w != DeleteDeskWords[0] {
					want = 1
				}
				if len(res.Messages) != want {
					t.Errorf("search %q on desk %q as %v after deleting desk gone: %d rows, want %d", w, desk, viewer, len(res.Messages), want)
				}
			}
		}
	}
	if _, ok := st.Log("gone").(digest.Store); ok {
		checkDeletedDigests(t, st, "once the desk is made anew")
	}
	if n, err := st.DeleteDesk(ctx, "never", false); err != nil || n != 0 {
		t.Errorf("DeleteDesk of a desk never held = %d, %v; want 0, nil", n, err)
	}
}

// deskDeletedDigest is the digest DeleteDeskRule keeps for desk's channel: generation 1,
// through row 3, holding DeleteDeskDigestWord.
func deskDeletedDigest(desk string) transcript.Digest {
	return transcript.Digest{Conversation: conversationIn(desk, 0), Through: 3, Rows: 2, Generation: 1, Digester: "storetest", Text: "rows 1 and 3 " + DeleteDeskDigestWord}
}

// checkDeletedDigests checks that desk "gone" of st keeps no digest, and "kept" its own.
func checkDeletedDigests(t *testing.T, st DeskDeleter, when string) {
	t.Helper()
	for _, desk := range []string{"gone", "kept"} {
		got, ok, err := st.Log(desk).(digest.Store).Digest(t.Context(), conversationIn(desk, 0), 0)
		switch {
		case err != nil:
			t.Errorf("Digest of desk %q %s: %v", desk, when, err)
		case desk == "gone" && ok:
			t.Errorf("Digest of the deleted desk %s = generation %d, want none", when, got.Generation)
		case desk == "kept" && (!ok || got != deskDeletedDigest(desk)):
			t.Errorf("Digest of the kept desk %s = %+v, %v; want %+v", when, got, ok, deskDeletedDigest(desk))
		}
	}
}
