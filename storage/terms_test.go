package storage_test

import (
	"slices"
	"strings"
	"testing"
	"unicode"

	gocmp "github.com/google/go-cmp/cmp"
	"golang.org/x/text/unicode/norm"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/benchdesk"
	"github.com/sharedesk/transcript/storage"
)

func TestTerms(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  \t\n ", nil},
		{"!!! … 🚀 -- ''", nil},
		{"Deploy the deploy, DEPLOY!", []string{"deploy", "the"}},
		{"café cafe\u0301 CAFÉ Cafe\u0301", []string{"café"}},                 // composed and decomposed are one word
		{"Straße STRAẞE strasse", []string{"straße", "strasse"}},              // ß is kept; capital ẞ lowers to it
		{"ΣΟΦΊΑ σοφία σοφι\u0301α", []string{"σοφία"}},                        // Greek capitals, and a decomposed tonos
		{"ΟΔΟΣ οδος", []string{"οδοσ", "οδος"}},                               // unicode.ToLower knows no final sigma
		{"Привет ПРИВЕТ ёлка е\u0308лка", []string{"привет", "ёлка"}},         // Cyrillic, a decomposed diaeresis
		{"नमस्ते हिन्दी", []string{"नमस्ते", "हिन्दी"}},                       // Devanagari: vowel signs and virama are marks inside a word
		{"क़लम क\u093cलम", []string{"क\u093cलम"}},                             // qa is a composition exclusion: NFC keeps it decomposed
		{"한국 \u1112\u1161\u11ab\u1100\u116e\u11a8", []string{"한", "한국", "국"}}, // Hangul jamo compose
		{"ＡＢＣ ａｂｃ １２３", []string{"ａｂｃ", "１２３"}},                               // full-width forms stay full-width
		{"東京 مرحبا", []string{"東", "東京", "京", "مرحبا"}},
		{"deploy🚀now", []string{"deploy", "now"}}, // emoji separate
		{"don't e-mail v1.2 foo_bar", []string{"don", "t", "e", "mail", "v1", "2", "foo", "bar"}},
		{"\u0301abc", []string{"abc"}},                 // a word never starts with a mark
		{"x\u0301\u0302y", []string{"x\u0301\u0302y"}}, // marks inside a run keep it whole
		{"٣ ३ 3", []string{"٣", "३", "3"}},             // digits of every script
		{"a\xffb", []string{"a", "b"}},                 // bytes that are not UTF-8 separate
		{"Ⅻ ½ ²", nil},                                 // number forms that are not digits are not words
		{"K", []string{"k"}},                           // the Kelvin sign is K after NFC
	} {
		if got := storage.Terms(tc.in); !gocmp.Equal(tc.want, got) {
			t.Errorf("Terms(%+q) = %+q, want %+q", tc.in, got, tc.want)
		}
	}
}

// TestTermsUnspaced: a run of Han, Hiragana, Katakana or Hangul is its characters and
// each two adjacent ones, in the order of their first use, each once; the run ends where
// any other character starts, and form C and widths are as for other scripts.
func TestTermsUnspaced(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"時", []string{"時"}},
		{"移行", []string{"移", "移行", "行"}},
		{"22時", []string{"22", "時"}},
		{"時22", []string{"時", "22"}},
		{"v2移行ok", []string{"v2", "移", "移行", "行", "ok"}},
		{"移行は22時に実行します。", []string{"移", "移行", "行", "行は", "は", "22", "時", "時に", "に", "に実", "実", "実行", "行し", "し", "しま", "ま", "ます", "す"}},
		{"移行 行移 移行", []string{"移", "移行", "行", "行移"}}, // each word once
		{"ああああ", []string{"あ", "ああ"}},
		// Katakana with the prolonged sound mark ー (script Common) inside the run.
		{"マイグレーション", []string{"マ", "マイ", "イ", "イグ", "グ", "グレ", "レ", "レー", "ー", "ーシ", "シ", "ショ", "ョ", "ョン", "ン"}},
		{"ーー", []string{"ー", "ーー"}},
		{"データベース!", []string{"デ", "デー", "ー", "ータ", "タ", "タベ", "ベ", "ベー", "ース", "ス"}},
		// Iteration marks: 々 is Han, ゝ Hiragana, ヽ Katakana; 〆 and 〱 are Common letters.
		{"人々 こゝろ 〆切", []string{"人", "人々", "々", "こ", "こゝ", "ゝ", "ゝろ", "ろ", "〆", "〆切", "切"}},
		{"く〱", []string{"く", "く〱", "〱"}},
		// Hangul: syllables, and conjoining jamo that form C composes.
		{"데이터베이스 이전", []string{"데", "데이", "이", "이터", "터", "터베", "베", "베이", "이스", "스", "이전", "전"}},
		{"\u1112\u1161\u11ab\u1100\u116e\u11a8\u110b\u1165", []string{"한", "한국", "국", "국어", "어"}},
		// Form C joins a base and its voiced sound mark; a mark that does not compose stays
		// with the character before it.
		{"か\u3099き\u3099 がぎ", []string{"が", "がぎ", "ぎ"}},
		{"ア\u0301イ", []string{"ア\u0301", "ア\u0301イ", "イ"}},
		{"ア\u0345イ", []string{"ア\u0345", "ア\u0345イ", "イ"}}, // lower case of a mark inside the run
		// Widths stay apart: half-width katakana and its voiced mark ﾞ are their own.
		{"ｶﾞｽ ガス", []string{"ｶ", "ｶﾞ", "ﾞ", "ﾞｽ", "ｽ", "ガ", "ガス", "ス"}},
		{"ＡＢＣ東京１２３", []string{"ａｂｃ", "東", "東京", "京", "１２３"}},
		// Compatibility ideographs are their unified ones after form C.
		{"\uf900", []string{"\u8c48"}},
		// Mixed scripts: a run of other letters ends where one of these starts.
		{"Deploy东京Café서울", []string{"deploy", "东", "东京", "京", "café", "서", "서울", "울"}},
		{"привет世界", []string{"привет", "世", "世界", "界"}},
		// Characters of these scripts that are not letters separate words.
		{"二〇二六年 ㈀ ㋐", []string{"二", "二六", "六", "六年", "年"}},
		{"カ・ナ「東」", []string{"カ", "ナ", "東"}},
	} {
		if got := storage.Terms(tc.in); !gocmp.Equal(tc.want, got) {
			t.Errorf("Terms(%+q) = %+q, want %+q", tc.in, got, tc.want)
		}
	}
}

// TestTermsManyWords: a text of many distinct words keeps each once, in order, however
// many there are.
func TestTermsManyWords(t *testing.T) {
	var b strings.Builder
	var want []string
	for i := range 1000 {
		w := "w" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + strings.Repeat("y", i/26)
		want = append(want, w)
		b.WriteString(strings.ToUpper(w) + " " + w + ", ")
	}
	if got := storage.Terms(b.String()); !gocmp.Equal(want, got) {
		t.Fatalf("Terms kept %d words, want %d", len(got), len(want))
	}
}

// FuzzTerms: Terms of any text is Terms read directly off its definition; it never holds
// an empty term or one twice, and no term holds a character that is neither letter, digit
// nor mark, or starts with a mark. Terms is closed on its own output: each term is among
// its own terms, which are terms of the text (a word of two unspaced characters is its
// two characters and itself; any other term is its only term), and the terms of the terms
// joined are the terms. A search for a term holds that term alone, so that each word a
// store indexes is found by searching for it; and a search for the text holds its terms
// less exactly those one-character words a two-character word of its terms holds.
func FuzzTerms(f *testing.F) {
	for _, s := range []string{"café cafe\u0301", "ΣΟΦΊΑ", "नमस्ते", "ＡＢＣ", "don't", "\u0301a", "a\xffb", "ǅ Ǆ ǆ", "İstanbul", "ﬃ",
		"移行は22時に実行します。マイグレーション確認済み", "한국어 \u1112\u1161\u11ab", "ｶﾞｽ か\u3099", "ア\u0345イ", "人々 ーー 〆切", "v2移行"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		terms := storage.Terms(s)
		if want := referenceTerms(s); !gocmp.Equal(want, terms) {
			t.Fatalf("Terms(%+q) = %+q, want %+q", s, terms, want)
		}
		seen := make(map[string]bool)
		for _, term := range terms {
			if term == "" || seen[term] {
				t.Fatalf("Terms(%+q) = %+q: an empty or repeated term", s, terms)
			}
			seen[term] = true
			for i, r := range term {
				if !unicode.IsLetter(r) && !unicode.IsDigit(r) && (i == 0 || !unicode.IsMark(r)) {
					t.Fatalf("Terms(%+q) holds %+q, whose character %+q is not a letter, a digit or a mark inside the word", s, term, r)
				}
			}
		}
		for _, term := range terms {
			again := storage.Terms(term)
			if !slices.Contains(again, term) || len(again) > 1 && len(pairCharacters(term)) == 0 {
				t.Fatalf("Terms(%+q) = %+q: not the term alone, nor a pair of characters and the pair", term, again)
			}
			for _, u := range again {
				if !seen[u] {
					t.Fatalf("Terms(%+q) = %+q holds %+q, which is not a term of %+q", term, again, u, s)
				}
			}
			if len(term) > transcript.MaxTermBytes {
				continue
			}
			if p, err := storage.PlanSearch(transcript.SearchQuery{Text: term}); err != nil || !gocmp.Equal([]string{term}, p.Terms) {
				t.Fatalf("a search for %+q holds %+q (%v), want the term alone", term, p.Terms, err)
			}
		}
		if again := storage.Terms(strings.Join(terms, " ")); !gocmp.Equal(terms, again) && len(terms) > 0 {
			t.Fatalf("Terms of the terms of %+q = %+q, want %+q", s, again, terms)
		}
		if p, err := storage.PlanSearch(transcript.SearchQuery{Text: s}); err == nil {
			if want := referenceQueryTerms(terms); !gocmp.Equal(want, p.Terms) {
				t.Fatalf("a search for %+q holds %+q, want %+q", s, p.Terms, want)
			}
		}
	})
}

// referenceTerms is Terms read directly off its definition, rune by rune.
func referenceTerms(s string) []string {
	var terms []string
	add := func(word []rune) {
		for i, r := range word {
			word[i] = unicode.ToLower(r)
		}
		if t := norm.NFC.String(string(word)); !slices.Contains(terms, t) {
			terms = append(terms, t)
		}
	}
	runes := []rune(norm.NFC.String(s))
	for i := 0; i < len(runes); {
		switch r := runes[i]; {
		case referenceUnspaced(r):
			var chars [][]rune // each character with its marks
			for i < len(runes) && referenceUnspaced(runes[i]) {
				c := []rune{runes[i]}
				for i++; i < len(runes) && unicode.IsMark(runes[i]); i++ {
					c = append(c, runes[i])
				}
				chars = append(chars, c)
			}
			for k, c := range chars {
				if k > 0 {
					add(slices.Concat(chars[k-1], c))
				}
				add(slices.Clone(c))
			}
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			var word []rune
			for ; i < len(runes) && !referenceUnspaced(runes[i]) && (unicode.IsLetter(runes[i]) || unicode.IsDigit(runes[i]) || unicode.IsMark(runes[i])); i++ {
				word = append(word, runes[i])
			}
			add(word)
		default:
			i++
		}
	}
	return terms
}

// referenceUnspaced is whether Terms reads r in words of one and two characters: a letter
// of the four scripts, or a Common letter written only inside Japanese words.
func referenceUnspaced(r rune) bool {
	return unicode.IsLetter(r) && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		strings.ContainsRune("ーｰﾞﾟ〱〲〳〴〵〆〼", r)
}

// pairCharacters returns the one-character words a term holds when it is a word of two
// characters (its terms are more than itself: its characters), else none.
func pairCharacters(term string) []string {
	var chars []string
	if terms := storage.Terms(term); len(terms) > 1 {
		for _, u := range terms {
			if u != term {
				chars = append(chars, u)
			}
		}
	}
	return chars
}

// referenceQueryTerms is the words of a search whose text's terms are terms, read off
// their definition: terms without the one-character words a two-character word holds.
func referenceQueryTerms(terms []string) []string {
	var implied []string
	for _, t := range terms {
		implied = append(implied, pairCharacters(t)...)
	}
	var kept []string
	for _, t := range terms {
		if !slices.Contains(implied, t) {
			kept = append(kept, t)
		}
	}
	return kept
}

// BenchmarkTerms measures the words of the benchmark desk's contents, as a store finds
// them for its index on every append.
func BenchmarkTerms(b *testing.B) {
	contents := benchdesk.Contents
	bytes := 0
	for _, c := range contents {
		bytes += len(c)
	}
	b.SetBytes(int64(bytes))
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range contents {
			storage.Terms(c)
		}
	}
}

// BenchmarkTermsUnspaced measures the words of texts in Japanese, Chinese and Korean,
// each character and each two adjacent ones a word.
func BenchmarkTermsUnspaced(b *testing.B) {
	contents := []string{
		"移行は22時に実行します。マイグレーション確認済み",
		"数据库迁移已在周五晚上完成，请在周一上午之前检查报表和告警阈值。",
		"데이터베이스 이전은 금요일 밤에 끝났습니다. 월요일 오전까지 보고서를 확인해 주세요.",
		"ステージングでデプロイが失敗しました。ロックを待ってタイムアウトしたので、小さいバッチで再実行します。",
	}
	bytes := 0
	for _, c := range contents {
		bytes += len(c)
	}
	b.SetBytes(int64(bytes))
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range contents {
			storage.Terms(c)
		}
	}
}
