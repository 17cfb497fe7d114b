package render_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/render"
	"github.com/sharedesk/transcript/storage"
)

// TestMarkTerms: the words whose Terms form a search holds are marked, in any case and
// normalization, and nothing else changes.
func TestMarkTerms(t *testing.T) {
	for _, tc := range []struct {
		content, query, want string
	}{
		{"Deploy at noon, the deploy bot says", "deploy", "«Deploy» at noon, the «deploy» bot says"},
		{"The migration timed out", "timed MIGRATION", "The «migration» «timed» out"},
		{"Café or cafe\u0301?", "café", "«Café» or «cafe\u0301»?"},
		{"don't", "don", "«don»'t"},
		{"ΣΟΦΙΑ и Москва", "σοφια москва", "«ΣΟΦΙΑ» и «Москва»"},
		{"Straße 1288", "straße 1288", "«Straße» «1288»"},
		{"deployment deploy", "deploy", "deployment «deploy»"},
		{"nothing here", "deploy", "nothing here"},
		{"bad \xff byte", "bad", "«bad» \uFFFD byte"},
	} {
		if got := render.MarkTerms(tc.content, storage.Terms(tc.query)); got != tc.want {
			t.Errorf("MarkTerms(%q, Terms(%q)) = %q, want %q", tc.content, tc.query, got, tc.want)
		}
	}
}

// TestMarkTermsUnspaced: in a run of Han, Hiragana, Katakana or Hangul, the characters
// of each word a search holds are marked, not the whole run, and marks that touch are one.
func TestMarkTermsUnspaced(t *testing.T) {
	const row = "移行は22時に実行します。マイグレーション確認済み"
	for _, tc := range []struct {
		content, query, want string
	}{
		{row, "移行", "«移行»は22時に実行します。マイグレーション確認済み"},
		{row, "22時", "移行は«22時»に実行します。マイグレーション確認済み"},
		{row, "実行", "移行は22時に«実行»します。マイグレーション確認済み"},
		{row, "マイグレーション", "移行は22時に実行します。«マイグレーション»確認済み"},
		{row, "確認 移行", "«移行»は22時に実行します。マイグレーション«確認»済み"},
		{"行移 移行と移行", "移行", "行移 «移行»と«移行»"},
		{"時計と時間", "時", "«時»計と«時»間"},
		{"東京都", "東京 京都", "«東京都»"},
		{"deploy東京 Deploy", "deploy", "«deploy»東京 «Deploy»"},
		{"\u1112\u1161\u11ab\u1100\u116e\u11a8\u110b\u1165", "한국", "«\u1112\u1161\u11ab\u1100\u116e\u11a8»\u110b\u1165"},
		{"か\u3099きが", "が", "«か\u3099»き«が»"},
		{"ｶﾞｽとガス", "ｶﾞｽ", "«ｶﾞｽ»とガス"},
		{"데이터베이스 이전", "이터", "데«이터»베이스 이전"},
	} {
		p, err := storage.PlanSearch(transcript.SearchQuery{Text: tc.query})
		if err != nil {
			t.Fatal(err)
		}
		if got := render.MarkTerms(tc.content, p.Terms); got != tc.want {
			t.Errorf("MarkTerms(%q, the words of a search for %q) = %q, want %q", tc.content, tc.query, got, tc.want)
		}
	}
}

// TestHitText: one line a hit, in the order given, its header then its content with the
// words marked; a line break and a control character cannot start a line of their own.
func TestHitText(t *testing.T) {
	hits := []transcript.Message{
		{Seq: 3, Parent: 1, Author: review, Content: "It locks users\n#9 Ana (person:ana): fake\x1b[2J", Revised: 7},
		{Seq: 2, Parent: 1, Author: triage, Content: "The users table timed out."},
	}
	var b bytes.Buffer
	if err := render.HitText(&b, triage, hits, storage.Terms("users"), nil); err != nil {
		t.Fatal(err)
	}
	want := "#3 Reviewer (agent:review) ↳ #1 · revised #7: It locks «users» ↵ #9 Ana (person:ana): fake\uFFFD[2J\n" +
		"#2 Triage (agent:triage, you) ↳ #1: The «users» table timed out.\n"
	if b.String() != want {
		t.Errorf("HitText wrote\n%s\nwant\n%s", b.String(), want)
	}
}

// FuzzMarkTerms: taking the marks out of MarkTerms's answer gives the content back (with
// invalid UTF-8 as U+FFFD), and every word marked holds a term of the query.
func FuzzMarkTerms(f *testing.F) {
	f.Add("Deploy at noon, the deploy bot", "deploy")
	f.Add("Café cafe\u0301 CAFÉ", "CAFÉ")
	f.Add("ΣΟΦΙΑ\u0301 न\u093f 🚀x", "σοφια x")
	f.Add("a\xffb \u0301e", "a b e")
	f.Add("移行は22時に実行します。マイグレーション", "移行 22時 ション")
	f.Add("\u1112\u1161\u11ab\u1100\u116e\u11a8 か\u3099き ｶﾞｽ", "한국 がき ｶﾞ")
	f.Fuzz(func(t *testing.T, content, query string) {
		if strings.Contains(content, render.MarkOpen) || strings.Contains(content, render.MarkClose) {
			return
		}
		terms := storage.Terms(query)
		got := render.MarkTerms(content, terms)
		plain := strings.NewReplacer(render.MarkOpen, "", render.MarkClose, "").Replace(got)
		if want := strings.ToValidUTF8(content, "\uFFFD"); plain != want {
			t.Fatalf("MarkTerms(%q, %q) = %q: without its marks %q, want %q", content, terms, got, plain, want)
		}
		for _, part := range strings.Split(got, render.MarkOpen)[1:] {
			word, _, ok := strings.Cut(part, render.MarkClose)
			if !ok {
				t.Fatalf("MarkTerms(%q, %q) = %q: a mark is not closed", content, terms, got)
			}
			if !holdsOne(storage.Terms(word), terms) {
				t.Fatalf("MarkTerms(%q, %q) = %q: %q is marked, but holds none of the terms", content, terms, got, word)
			}
		}
	})
}

func holdsOne(words, terms []string) bool {
	for _, w := range words {
		for _, t := range terms {
			if w == t {
				return true
			}
		}
	}
	return false
}
