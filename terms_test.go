package transcript_test

import (
	"slices"
	"strings"
	"testing"
	"unicode"

	gocmp "github.com/google/go-cmp/cmp"
	"golang.org/x/text/unicode/norm"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/benchdesk"
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
		{"café cafe\u0301 CAFÉ Cafe\u0301", []string{"café"}},         // composed and decomposed are one word
		{"Straße STRAẞE strasse", []string{"straße", "strasse"}},      // ß is kept; capital ẞ lowers to it
		{"ΣΟΦΊΑ σοφία σοφι\u0301α", []string{"σοφία"}},                // Greek capitals, and a decomposed tonos
		{"ΟΔΟΣ οδος", []string{"οδοσ", "οδος"}},                       // unicode.ToLower knows no final sigma
		{"Привет ПРИВЕТ ёлка е\u0308лка", []string{"привет", "ёлка"}}, // Cyrillic, a decomposed diaeresis
		{"नमस्ते हिन्दी", []string{"नमस्ते", "हिन्दी"}},               // Devanagari: vowel signs and virama are marks inside a word
		{"क़लम क\u093cलम", []string{"क\u093cलम"}},                     // qa is a composition exclusion: NFC keeps it decomposed
		{"한국 \u1112\u1161\u11ab\u1100\u116e\u11a8", []string{"한국"}},   // Hangul jamo compose
		{"ＡＢＣ ａｂｃ １２３", []string{"ａｂｃ", "１２３"}},                       // full-width forms stay full-width
		{"東京 مرحبا", []string{"東京", "مرحبا"}},                         // no spaces needed between scripts that differ? no: a space is there
		{"deploy🚀now", []string{"deploy", "now"}},                     // emoji separate
		{"don't e-mail v1.2 foo_bar", []string{"don", "t", "e", "mail", "v1", "2", "foo", "bar"}},
		{"\u0301abc", []string{"abc"}},                 // a word never starts with a mark
		{"x\u0301\u0302y", []string{"x\u0301\u0302y"}}, // marks inside a run keep it whole
		{"٣ ३ 3", []string{"٣", "३", "3"}},             // digits of every script
		{"a\xffb", []string{"a", "b"}},                 // bytes that are not UTF-8 separate
		{"Ⅻ ½ ²", nil},                                 // number forms that are not digits are not words
		{"K", []string{"k"}},                           // the Kelvin sign is K after NFC
	} {
		if got := transcript.Terms(tc.in); !gocmp.Equal(tc.want, got) {
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
	if got := transcript.Terms(b.String()); !gocmp.Equal(want, got) {
		t.Fatalf("Terms kept %d words, want %d", len(got), len(want))
	}
}

// FuzzTerms: Terms of any text is idempotent on its own output (each term is its own only
// term), never holds an empty term or one twice, and no term holds a character that is
// neither letter, digit nor mark, or starts with a mark.
func FuzzTerms(f *testing.F) {
	for _, s := range []string{"café cafe\u0301", "ΣΟΦΊΑ", "नमस्ते", "ＡＢＣ", "don't", "\u0301a", "a\xffb", "ǅ Ǆ ǆ", "İstanbul", "ﬃ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		terms := transcript.Terms(s)
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
			if again := transcript.Terms(term); len(again) != 1 || again[0] != term {
				t.Fatalf("Terms(%+q) = %+q, not [%+q]: Terms is not idempotent on its output", term, again, term)
			}
		}
		if want := referenceTerms(s); !gocmp.Equal(want, terms) {
			t.Fatalf("Terms(%+q) = %+q, want %+q", s, terms, want)
		}
		if again := transcript.Terms(strings.Join(terms, " ")); !gocmp.Equal(terms, again) && len(terms) > 0 {
			t.Fatalf("Terms of the terms of %+q = %+q, want %+q", s, again, terms)
		}
	})
}

// referenceTerms is Terms read directly off its definition, rune by rune.
func referenceTerms(s string) []string {
	var terms []string
	runes := []rune(norm.NFC.String(s))
	for i := 0; i < len(runes); {
		if !unicode.IsLetter(runes[i]) && !unicode.IsDigit(runes[i]) {
			i++
			continue
		}
		var word []rune
		for ; i < len(runes) && (unicode.IsLetter(runes[i]) || unicode.IsDigit(runes[i]) || unicode.IsMark(runes[i])); i++ {
			word = append(word, unicode.ToLower(runes[i]))
		}
		if t := norm.NFC.String(string(word)); !slices.Contains(terms, t) {
			terms = append(terms, t)
		}
	}
	return terms
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
			transcript.Terms(c)
		}
	}
}
