package storage_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/proptest"
	"github.com/sharedesk/transcript/internal/storetest"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/storage"
)

func TestPlanSearch(t *testing.T) {
	for _, tc := range []struct {
		text      string
		limit     int
		wantLimit int
		wantErr   string
	}{
		{text: "deploy", limit: 0, wantLimit: 20},
		{text: "deploy", limit: -3, wantLimit: 20},
		{text: "deploy", limit: 1, wantLimit: 1},
		{text: "deploy", limit: 100, wantLimit: 100},
		{text: "deploy", limit: 101, wantLimit: 100},
		{text: strings.Repeat("w ", 15) + "x", wantLimit: 20},
		{text: strings.Repeat("a", 64), wantLimit: 20},
		{text: "", wantErr: "the text holds no word"},
		{text: "?! 🚀 …", wantErr: "the text holds no word"},
		{text: "a b c d e f g h i j k l m n o p q", wantErr: "the text holds 17 words, above the limit of 16"},
		{text: "ok " + strings.Repeat("é", 33), wantErr: "a word is 66 bytes long, above the limit of 64"},
	} {
		p, err := storage.PlanSearch(transcript.SearchQuery{Text: tc.text, Limit: tc.limit})
		switch {
		case tc.wantErr != "":
			if !errors.Is(err, transcript.ErrBadSearch) || !strings.HasSuffix(err.Error(), tc.wantErr) {
				t.Errorf("PlanSearch(%.20q): %v, want ErrBadSearch saying %q", tc.text, err, tc.wantErr)
			}
		case err != nil:
			t.Errorf("PlanSearch(%.20q): %v", tc.text, err)
		case p.Limit != tc.wantLimit:
			t.Errorf("PlanSearch(%.20q) limit %d: %d, want %d", tc.text, tc.limit, p.Limit, tc.wantLimit)
		}
	}
}

// TestPlanSearchUnspaced: a query's words are its terms without the one-character words
// of Han, Hiragana, Katakana and Hangul that a two-character word of the query holds, and
// the limit of words counts what is left.
func TestPlanSearchUnspaced(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"移行", []string{"移行"}},
		{"時", []string{"時"}},
		{"22時", []string{"22", "時"}},
		{"移行 移", []string{"移行"}},
		{"移 移行", []string{"移行"}},
		{"実行 行", []string{"実行"}},
		{"東京 京都", []string{"東京", "京都"}},
		{"東京 都", []string{"東京", "都"}},
		{"Deploy 移行", []string{"deploy", "移行"}},
		{"a ab", []string{"a", "ab"}}, // other scripts imply nothing
		{"マイグレーション", []string{"マイ", "イグ", "グレ", "レー", "ーシ", "ショ", "ョン"}},
		{"한국어", []string{"한국", "국어"}},
		{"ｶﾞｽ", []string{"ｶﾞ", "ﾞｽ"}},
		{"か\u3099", []string{"が"}},
		{strings.Repeat("あい", 8) + "う", []string{"あい", "いあ", "いう"}},
		{"あいうえおかきくけこさしすせそたち", []string{"あい", "いう", "うえ", "えお", "おか", "かき", "きく", "くけ", "けこ", "こさ", "さし", "しす", "すせ", "せそ", "そた", "たち"}},
	} {
		p, err := storage.PlanSearch(transcript.SearchQuery{Text: tc.text})
		if err != nil || !slices.Equal(p.Terms, tc.want) {
			t.Errorf("PlanSearch(%+q) = %+q, %v; want %+q", tc.text, p.Terms, err, tc.want)
		}
	}
	// 17 characters make 16 words of two, and 18 make 17, one too many.
	_, err := storage.PlanSearch(transcript.SearchQuery{Text: "あいうえおかきくけこさしすせそたちつ"})
	if want := "the text holds 17 words, above the limit of 16"; !errors.Is(err, transcript.ErrBadSearch) || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("PlanSearch of 18 kana: %v, want ErrBadSearch saying %q", err, want)
	}
}

// TestSearchUnspaced: on memlog, a row in Japanese is found by its words, a number beside
// a character among them, and a word in Katakana; a word of two characters is found where
// they stand in that order and nowhere else.
func TestSearchUnspaced(t *testing.T) {
	log := memlog.New()
	for _, content := range []string{
		"移行は22時に実行します。マイグレーション確認済み",
		"行移 and 時 23",
		"데이터베이스 이전은 끝났습니다",
	} {
		if _, err := log.Append(context.Background(), transcript.Message{Author: transcript.Operator(), Content: content}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		text string
		want []transcript.Sequence
	}{
		{"移行", []transcript.Sequence{1}},
		{"22時", []transcript.Sequence{1}},
		{"実行", []transcript.Sequence{1}},
		{"マイグレーション", []transcript.Sequence{1}},
		{"確認済み 移行", []transcript.Sequence{1}},
		{"時", []transcript.Sequence{2, 1}},
		{"行移", []transcript.Sequence{2}},
		{"22", []transcript.Sequence{1}},
		{"移行する", nil},
		{"グレマイ", nil},
		{"데이터베이스", []transcript.Sequence{3}},
		{"이전", []transcript.Sequence{3}},
		{"베이", []transcript.Sequence{3}},
		{"이데", nil},
	} {
		res, err := log.Search(context.Background(), transcript.SearchQuery{Text: tc.text})
		if err != nil {
			t.Fatalf("search %q: %v", tc.text, err)
		}
		var got []transcript.Sequence
		for _, m := range res.Messages {
			got = append(got, m.Seq)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("search %q found %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestSearchPageBytes: a page of matches ends once their content reaches PageBytes,
// keeping its first match whatever its size, and Next points on to the rest.
func TestSearchPageBytes(t *testing.T) {
	log := memlog.New()
	big := "deploy " + strings.Repeat("x", transcript.MaxContent-len("deploy "))
	for range 6 {
		if _, err := log.Append(context.Background(), transcript.Message{Author: transcript.Operator(), Content: big}); err != nil {
			t.Fatal(err)
		}
	}
	var pages [][]transcript.Sequence
	q := transcript.SearchQuery{Text: "deploy"}
	for {
		res, err := log.Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		var seqs []transcript.Sequence
		for _, m := range res.Messages {
			seqs = append(seqs, m.Seq)
		}
		pages = append(pages, seqs)
		if res.Next == 0 {
			break
		}
		q.Before = res.Next
	}
	// Four rows of MaxContent bytes are exactly PageBytes.
	if len(pages) != 2 || len(pages[0]) != 4 || len(pages[1]) != 2 || pages[0][0] != 6 || pages[1][1] != 1 {
		t.Fatalf("pages of Seqs %v, want [[6 5 4 3] [2 1]]", pages)
	}
}

// TestSearchModel: memlog's search equals the brute-force model of the search rules on
// random desks in many scripts, for every viewer, scope, bound and limit, pages through
// Next to the end, shows no viewer a word it may not read, and answers an outsider as the
// same desk without its asides does.
func TestSearchModel(t *testing.T) {
	for seed := range uint64(proptest.Desks(10, 2)) {
		c := storetest.NewSearchCase(seed, 40+int(seed)*8)
		s, sb := logOf(t, c.Inputs), logOf(t, c.Blinded)
		for i, text := range c.Texts {
			for _, thread := range c.Threads {
				q := transcript.SearchQuery{Text: text, Thread: thread, Limit: []int{0, 1, 2, 3, 101}[i%5]}
				if i%3 == 0 {
					q.Before = transcript.Sequence(1 + i%len(c.Rows))
				}
				storetest.SearchCheck(t, c, s, sb, q)
			}
		}
	}
}

// FuzzSearch: the leak property, fuzzed. For any desk (by seed), text, scope, bound and
// limit, no answer to any viewer holds a word of a row that viewer may not read, or of
// erased content; an outsider's answers, messages and Next, are those of the same desk
// without its asides; and every answer is the model's.
func FuzzSearch(f *testing.F) {
	f.Add(uint64(1), "deploy", uint8(0), uint8(0), int8(0))
	f.Add(uint64(2), "qz7x", uint8(3), uint8(5), int8(1))
	f.Add(uint64(3), "CAFÉ straße", uint8(1), uint8(0), int8(3))
	f.Add(uint64(4), "!!!", uint8(0), uint8(0), int8(-1))
	f.Fuzz(func(t *testing.T, seed uint64, text string, thread, before uint8, limit int8) {
		c := storetest.NewSearchCase(seed%64, 30)
		q := transcript.SearchQuery{Text: text, Thread: transcript.Sequence(thread) % 40, Before: transcript.Sequence(before) % 40, Limit: int(limit)}
		storetest.SearchCheck(t, c, logOf(t, c.Inputs), logOf(t, c.Blinded), q)
	})
}

func logOf(t testing.TB, msgs []transcript.Message) *memlog.Log {
	t.Helper()
	log := memlog.New()
	for i, m := range msgs {
		if _, err := log.Append(context.Background(), m); err != nil {
			t.Fatalf("input %d: %v", i, err)
		}
	}
	return log
}

// TestLongWordNotNumbered: a word over the limit is refused without a number, since the
// query's words are counted once each and lower-cased, unlike the words as typed ("Deploy
// deploy DEPLOY" is one word): a number would name the wrong one.
func TestLongWordNotNumbered(t *testing.T) {
	long := strings.Repeat("x", 65)
	for _, text := range []string{"Deploy deploy DEPLOY " + long, "移行は " + long} {
		_, err := storage.PlanSearch(transcript.SearchQuery{Text: text})
		if err == nil || !strings.Contains(err.Error(), "a word is 65 bytes long") {
			t.Errorf("PlanSearch(%.24q…): %v; want it to say a word is 65 bytes long", text, err)
		}
	}
}
