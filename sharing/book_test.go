package sharing_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/sharing"
)

// thread returns conversation n of desk eng: the channel for 0, else thread n.
func thread(n int) transcript.Conversation {
	return transcript.Conversation{Desk: "eng", Thread: transcript.Sequence(n)}
}

// put returns b with each state put, failing t on an error.
func put(t *testing.T, b sharing.Book, states ...sharing.State) sharing.Book {
	t.Helper()
	for _, s := range states {
		var err error
		if b, err = b.Put(s); err != nil {
			t.Fatalf("Put(%+v): %v", s, err)
		}
	}
	return b
}

// ack returns b with each state acknowledged, failing t on an error.
func ack(t *testing.T, b sharing.Book, states ...sharing.State) sharing.Book {
	t.Helper()
	for _, s := range states {
		var err error
		if b, err = b.Acknowledge(s); err != nil {
			t.Fatalf("Acknowledge(%+v): %v", s, err)
		}
	}
	return b
}

// lookup returns b's state of c, failing t when b holds none.
func lookup(t *testing.T, b sharing.Book, c transcript.Conversation) sharing.State {
	t.Helper()
	s, why, ok := b.Lookup(c)
	if !ok || why != 0 {
		t.Fatalf("Lookup(%+v) = %+v, %v, %v; want a state", c, s, why, ok)
	}
	return s
}

// threads returns the threads of cs, in order.
func threads(cs []transcript.Conversation) []int {
	out := make([]int, len(cs))
	for i, c := range cs {
		out[i] = int(c.Thread)
	}
	return out
}

func TestBookEmpty(t *testing.T) {
	var b sharing.Book
	if s, why, ok := b.Lookup(thread(0)); ok || why != 0 || s.Watermark != 0 || s.Present != nil {
		t.Errorf("Lookup on the zero Book = %+v, %v, %v; want a first read", s, why, ok)
	}
	if b.Len() != 0 || len(b.Conversations()) != 0 || !b.Equal(sharing.Book{}) {
		t.Errorf("the zero Book is not empty: %d, %v", b.Len(), b.Conversations())
	}
}

func TestBookPutLookup(t *testing.T) {
	channel := sharing.State{Conversation: thread(0), Watermark: 10, Present: []transcript.Sequence{12}}
	b := put(t, sharing.Book{}, channel, sharing.Initialized(thread(4), 7))
	got := lookup(t, b, thread(0))
	if got.Watermark != 10 || !slices.Equal(got.Present, []transcript.Sequence{12}) {
		t.Errorf("Lookup(channel) = %+v", got)
	}
	got.Present[0] = 99 // the caller's copy
	if again := lookup(t, b, thread(0)); again.Present[0] != 12 {
		t.Errorf("changing Lookup's state changed the book: %+v", again)
	}
	if s := lookup(t, b, thread(4)); s.Watermark != 7 {
		t.Errorf("Lookup(thread 4) = %+v", s)
	}
	if _, why, ok := b.Lookup(thread(5)); ok || why != 0 {
		t.Errorf("Lookup of a conversation never put = %v, %v; want a first read", why, ok)
	}
	if _, why, ok := b.Lookup(transcript.Conversation{Desk: "sales"}); ok || why != 0 {
		t.Errorf("Lookup of another desk's channel = %v, %v; want a first read", why, ok)
	}
	// Put replaces, lower watermark and all: it is how a reinitialization starts over.
	b = put(t, b, sharing.Initialized(thread(0), 3))
	if s := lookup(t, b, thread(0)); s.Watermark != 3 || len(s.Present) != 0 {
		t.Errorf("after Put of a lower watermark: %+v, want it replaced", s)
	}
	if got := threads(b.Conversations()); !slices.Equal(got, []int{4, 0}) {
		t.Errorf("Conversations = %v, want [4 0] (least recently used first)", got)
	}
}

// TestBookEviction: beyond BookLimit conversations the least recently put or acknowledged
// one is evicted, Lookup reports StateEvicted for it until it is put again, and then not.
func TestBookEviction(t *testing.T) {
	var b sharing.Book
	for n := 1; n <= sharing.BookLimit; n++ {
		b = put(t, b, sharing.Initialized(thread(n), transcript.Sequence(n)))
	}
	if b.Len() != sharing.BookLimit {
		t.Fatalf("Len = %d, want %d", b.Len(), sharing.BookLimit)
	}
	b = ack(t, b, sharing.Initialized(thread(1), 50)) // thread 1 used again: thread 2 is now the oldest
	b = lookupOnly(t, b, thread(3))                   // a lookup is no use: thread 3 stays second
	b = put(t, b, sharing.Initialized(thread(100), 1))
	if b.Len() != sharing.BookLimit {
		t.Errorf("Len after one more = %d, want %d", b.Len(), sharing.BookLimit)
	}
	if s, why, ok := b.Lookup(thread(2)); ok || why != sharing.StateEvicted || s.Watermark != 0 {
		t.Errorf("Lookup of the evicted thread 2 = %+v, %v, %v; want StateEvicted", s, why, ok)
	}
	lookup(t, b, thread(1))
	want := append(seqInts(3, sharing.BookLimit-2), 1, 100)
	if got := threads(b.Conversations()); !slices.Equal(got, want) {
		t.Errorf("Conversations = %v, want %v", got, want)
	}

	// Put again, thread 2 is back (evicting thread 3) and no longer reported evicted.
	b = put(t, b, sharing.Initialized(thread(2), 80))
	if s := lookup(t, b, thread(2)); s.Watermark != 80 {
		t.Errorf("thread 2 put again: %+v", s)
	}
	if _, why, ok := b.Lookup(thread(3)); ok || why != sharing.StateEvicted {
		t.Errorf("Lookup of thread 3 = %v, %v; want StateEvicted", why, ok)
	}
	// Evicted again later, it is reported again.
	for n := 200; n < 200+sharing.BookLimit; n++ {
		b = put(t, b, sharing.Initialized(thread(n), 1))
	}
	for _, n := range []int{1, 2, 3, 4, 100} {
		if _, why, ok := b.Lookup(thread(n)); ok || why != sharing.StateEvicted {
			t.Errorf("Lookup of thread %d after %d more conversations = %v, %v; want StateEvicted", n, sharing.BookLimit, why, ok)
		}
	}
}

// lookupOnly looks c up in b and returns b: Lookup changes nothing.
func lookupOnly(t *testing.T, b sharing.Book, c transcript.Conversation) sharing.Book {
	t.Helper()
	before, _ := json.Marshal(b)
	b.Lookup(c)
	if after, _ := json.Marshal(b); string(after) != string(before) {
		t.Fatalf("Lookup changed the book")
	}
	return b
}

// seqInts returns n ints from from.
func seqInts(from, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = from + i
	}
	return out
}

// TestBookEvictedLimit: the book remembers the EvictedLimit conversations evicted last; one
// evicted before them reads as a first read.
func TestBookEvictedLimit(t *testing.T) {
	var b sharing.Book
	total := sharing.BookLimit + sharing.EvictedLimit + 5
	for n := 1; n <= total; n++ {
		b = put(t, b, sharing.Initialized(thread(n), 1))
	}
	for n := 1; n <= total; n++ {
		_, why, ok := b.Lookup(thread(n))
		switch {
		case n <= 5 && (ok || why != 0):
			t.Errorf("thread %d, evicted before the last %d: %v, %v; want a first read", n, sharing.EvictedLimit, why, ok)
		case n > 5 && n <= total-sharing.BookLimit && (ok || why != sharing.StateEvicted):
			t.Errorf("thread %d, among the last evicted: %v, %v; want StateEvicted", n, why, ok)
		case n > total-sharing.BookLimit && !ok:
			t.Errorf("thread %d, among the last %d put: not found", n, sharing.BookLimit)
		}
	}
	data, _ := json.Marshal(b)
	var w struct{ Evicted []transcript.Conversation }
	if err := json.Unmarshal(data, &w); err != nil || len(w.Evicted) != sharing.EvictedLimit {
		t.Errorf("the JSON holds %d evicted conversations, %v; want %d", len(w.Evicted), err, sharing.EvictedLimit)
	}
}

// TestBookAcknowledgeJoins: Acknowledge keeps the higher watermark and every present entry
// above it; it never moves a watermark back and never drops an acknowledgement that fits.
func TestBookAcknowledgeJoins(t *testing.T) {
	tests := []struct {
		name          string
		stored, acked sharing.State
		want          sharing.State
	}{
		{"a higher watermark wins", st(10, 12, 30), st(20), st(20, 30)},
		{"a lower one moves nothing back", st(20), st(10, 15, 25), st(20, 25)},
		{"equal watermarks: the union", st(10, 11, 13), st(10, 12, 13), st(10, 11, 12, 13)},
		{"the same state again", st(10, 11), st(10, 11), st(10, 11)},
		{"present entries under the new watermark go", st(10, 11, 19, 40), st(20, 21), st(20, 21, 40)},
		{"a full union keeps the lowest", full(0, 1), full(0, 31), full(0, 1)},
		{"the newer digest stays", digested(st(10), 6), digested(st(20), 4), digested(st(20), 6)},
		{"a digest joins a state without one", st(20), digested(st(10), 4), digested(st(20), 4)},
	}
	for _, tt := range tests {
		b := ack(t, put(t, sharing.Book{}, tt.stored), tt.acked)
		if got := lookup(t, b, thread(0)); !sameState(got, tt.want) {
			t.Errorf("%s: %v joined with %v = %v, want %v", tt.name, show(tt.stored), show(tt.acked), show(got), show(tt.want))
		}
	}
	// A conversation the book does not hold: Acknowledge is Put.
	b := ack(t, sharing.Book{}, st(7, 9))
	if got := lookup(t, b, thread(0)); !sameState(got, st(7, 9)) {
		t.Errorf("Acknowledge on an empty book: %v", show(got))
	}
}

// st returns a state of the channel with watermark w and present entries p.
func st(w transcript.Sequence, p ...transcript.Sequence) sharing.State {
	if len(p) == 0 {
		p = nil
	}
	return sharing.State{Conversation: thread(0), Watermark: w, Present: p}
}

// full returns a state of the channel at watermark w with PresentSetLimit present entries
// from w+from.
func full(w, from transcript.Sequence) sharing.State {
	s := st(w)
	for i := range transcript.Sequence(sharing.PresentSetLimit) {
		s.Present = append(s.Present, w+from+i)
	}
	return s
}

// digested returns s with a digest through through.
func digested(s sharing.State, through transcript.Sequence) sharing.State {
	s.Digest = through
	return s
}

func sameState(a, b sharing.State) bool {
	return a.Conversation == b.Conversation && a.Watermark == b.Watermark && slices.Equal(a.Present, b.Present) && a.Digest == b.Digest
}

func show(s sharing.State) string {
	digest := ""
	if s.Digest != 0 {
		digest = fmt.Sprintf(" digest %d", s.Digest)
	}
	if len(s.Present) > 4 {
		return fmt.Sprintf("{%d %v...%d (%d)%s}", s.Watermark, s.Present[:2], s.Present[len(s.Present)-1], len(s.Present), digest)
	}
	return fmt.Sprintf("{%d %v%s}", s.Watermark, s.Present, digest)
}

// accepted returns what s has accepted of rows 1 to n.
func accepted(s sharing.State, n transcript.Sequence) []bool {
	out := make([]bool, n+1)
	for seq := transcript.Sequence(1); seq <= n; seq++ {
		_, present := slices.BinarySearch(s.Present, seq)
		out[seq] = seq <= s.Watermark || present
	}
	return out
}

// TestAcknowledgeLaws checks the join on random states against a model, the set of rows a
// state has accepted: the join accepts exactly the union of both (when it fits the present
// set), so it is commutative, associative and idempotent, and its watermark is the higher.
func TestAcknowledgeLaws(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const rows = 40
	random := func() sharing.State {
		s := st(transcript.Sequence(rng.IntN(rows / 2)))
		s.Digest = transcript.Sequence(rng.IntN(int(s.Watermark) + 1))
		for seq := s.Watermark + 1; seq <= rows; seq++ {
			if rng.IntN(4) == 0 {
				s.Present = append(s.Present, seq)
			}
		}
		return s
	}
	joined := func(states ...sharing.State) sharing.State {
		return lookup(t, ack(t, sharing.Book{}, states...), thread(0))
	}
	for range 2000 {
		a, b, c := random(), random(), random()
		ab := joined(a, b)
		wantAccepted := accepted(a, rows)
		for seq, ok := range accepted(b, rows) {
			wantAccepted[seq] = wantAccepted[seq] || ok
		}
		if got := accepted(ab, rows); !slices.Equal(got, wantAccepted) {
			t.Fatalf("%v joined with %v = %v: accepts %v, want %v", show(a), show(b), show(ab), got, wantAccepted)
		}
		if ab.Watermark != max(a.Watermark, b.Watermark) || ab.Digest != max(a.Digest, b.Digest) {
			t.Fatalf("%v joined with %v: watermark %d, digest %d", show(a), show(b), ab.Watermark, ab.Digest)
		}
		if ba := joined(b, a); !sameState(ab, ba) {
			t.Fatalf("not commutative: %v, %v", show(ab), show(ba))
		}
		if abc, bca := joined(a, b, c), joined(b, c, a); !sameState(abc, bca) {
			t.Fatalf("not associative: %v, %v", show(abc), show(bca))
		}
		if aba := joined(a, b, a, b); !sameState(ab, aba) {
			t.Fatalf("not idempotent: %v, %v", show(ab), show(aba))
		}
	}
}

func TestBookRefuses(t *testing.T) {
	b := put(t, sharing.Book{}, sharing.Initialized(thread(0), 5))
	before, _ := json.Marshal(b)
	for _, bad := range []struct {
		name string
		s    sharing.State
		want error
	}{
		{"an oversized present set", sharing.State{Conversation: thread(1), Present: seqRange(1, sharing.PresentSetLimit+1)}, sharing.ErrPresentSetTooLarge},
		{"an unsorted present set", sharing.State{Conversation: thread(1), Watermark: 1, Present: []transcript.Sequence{5, 3}}, sharing.ErrInvalidState},
		{"a present entry at the watermark", sharing.State{Conversation: thread(1), Watermark: 3, Present: []transcript.Sequence{3}}, sharing.ErrInvalidState},
		{"no desk", sharing.Initialized(transcript.Conversation{Thread: 4}, 1), sharing.ErrInvalidBook},
		{"another desk", sharing.Initialized(transcript.Conversation{Desk: "sales"}, 1), sharing.ErrInvalidBook},
	} {
		for name, op := range map[string]func(sharing.State) (sharing.Book, error){"Put": b.Put, "Acknowledge": b.Acknowledge} {
			got, err := op(bad.s)
			if !errors.Is(err, bad.want) {
				t.Errorf("%s of %s: %v, want %v", name, bad.name, err, bad.want)
			}
			if !got.Equal(b) {
				t.Errorf("%s of %s returned a changed book", name, bad.name)
			}
		}
	}
	if after, _ := json.Marshal(b); string(after) != string(before) {
		t.Errorf("refusals changed the book: %s", after)
	}
	// A book of evicted conversations only still has a desk.
	var evictedOnly sharing.Book
	for n := range sharing.BookLimit + 1 {
		evictedOnly = put(t, evictedOnly, sharing.Initialized(thread(n), 1))
	}
	if _, err := evictedOnly.Put(sharing.Initialized(transcript.Conversation{Desk: "sales"}, 1)); !errors.Is(err, sharing.ErrInvalidBook) {
		t.Errorf("Put of another desk's state into a full book: %v, want ErrInvalidBook", err)
	}
}

// TestBookCopyOnWrite: books derived from one book, concurrently, never change it (run with
// -race: a write to a shared array would be a race).
func TestBookCopyOnWrite(t *testing.T) {
	var base sharing.Book
	for n := range sharing.BookLimit {
		s := sharing.State{Conversation: thread(n), Watermark: 10, Present: make([]transcript.Sequence, 1, 8)}
		s.Present[0] = 20
		base = put(t, base, s)
	}
	before, _ := json.Marshal(base)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			b := base
			for i := range 50 {
				c := thread((w*7 + i) % (sharing.BookLimit + 8))
				s, _, _ := b.Lookup(c)
				s.Conversation = c
				if err := s.NotePresent(30 + transcript.Sequence(i)); err != nil {
					t.Error(err)
					return
				}
				var err error
				if i%2 == 0 {
					b, err = b.Acknowledge(s)
				} else {
					b, err = b.Put(s)
				}
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = json.Marshal(b)
			}
		})
	}
	wg.Wait()
	if after, _ := json.Marshal(base); string(after) != string(before) {
		t.Errorf("deriving books changed the base")
	}
}

func TestBookJSON(t *testing.T) {
	if data, err := json.Marshal(sharing.Book{}); err != nil || string(data) != `{"states":[],"evicted":[]}` {
		t.Errorf("Marshal of the empty book = %s, %v", data, err)
	}
	b := put(t, sharing.Book{}, sharing.State{Conversation: thread(0), Watermark: 10, Present: []transcript.Sequence{12}}, digested(sharing.Initialized(thread(4), 7), 5))
	data, err := json.Marshal(b)
	want := `{"states":[{"conversation":{"desk":"eng"},"watermark":10,"present":[12]},{"conversation":{"desk":"eng","thread":4},"watermark":7,"present":[],"digest":5}],"evicted":[]}`
	if err != nil || string(data) != want {
		t.Fatalf("Marshal = %s, %v; want %s", data, err, want)
	}
	var back sharing.Book
	if err := json.Unmarshal(data, &back); err != nil || !back.Equal(b) {
		t.Errorf("round trip = %v, %v", back.Conversations(), err)
	}
	if undigested := put(t, sharing.Book{}, sharing.State{Conversation: thread(0), Watermark: 10, Present: []transcript.Sequence{12}}, sharing.Initialized(thread(4), 7)); undigested.Equal(b) {
		t.Errorf("a book equals one whose state holds another digest")
	}

	// A full book with evicted conversations: the same book back, and the same bytes.
	var big sharing.Book
	for n := range sharing.BookLimit + 10 {
		big = put(t, big, full(transcript.Sequence(1000*n), 1))
		big = put(t, big, sharing.Initialized(thread(n), transcript.Sequence(1000*n)))
	}
	big = ack(t, big, sharing.Initialized(thread(sharing.BookLimit), 1)) // one moved to the newest end
	data, err = json.Marshal(big)
	if err != nil {
		t.Fatal(err)
	}
	var bigBack sharing.Book
	if err := json.Unmarshal(data, &bigBack); err != nil || !bigBack.Equal(big) {
		t.Fatalf("round trip of a full book: %v", err)
	}
	if again, _ := json.Marshal(bigBack); string(again) != string(data) {
		t.Errorf("a decoded book encodes differently")
	}
	for n := range sharing.BookLimit + 10 {
		s1, why1, ok1 := big.Lookup(thread(n))
		s2, why2, ok2 := bigBack.Lookup(thread(n))
		if !sameState(s1, s2) || why1 != why2 || ok1 != ok2 {
			t.Errorf("thread %d: %v %v %v before, %v %v %v after a round trip", n, show(s1), why1, ok1, show(s2), why2, ok2)
		}
	}
}

func TestBookJSONRejects(t *testing.T) {
	state := func(thread int) string {
		return fmt.Sprintf(`{"conversation":{"desk":"eng","thread":%d},"watermark":1,"present":[]}`, thread)
	}
	conv := func(thread int) string { return fmt.Sprintf(`{"desk":"eng","thread":%d}`, thread) }
	oversized, _ := json.Marshal(seqRange(1, sharing.PresentSetLimit+1))
	list := func(n int, item func(int) string) string {
		items := make([]string, n)
		for i := range items {
			items[i] = item(i + 1)
		}
		return "[" + strings.Join(items, ",") + "]"
	}
	tests := []struct {
		name, json string
		want       error
	}{
		{"too many states", `{"states":` + list(sharing.BookLimit+1, state) + `}`, sharing.ErrInvalidBook},
		{"too many evicted", `{"evicted":` + list(sharing.EvictedLimit+1, conv) + `}`, sharing.ErrInvalidBook},
		{"a state twice", `{"states":[` + state(1) + `,` + state(1) + `]}`, sharing.ErrInvalidBook},
		{"an evicted conversation twice", `{"evicted":[` + conv(1) + `,` + conv(1) + `]}`, sharing.ErrInvalidBook},
		{"a conversation held and evicted", `{"states":[` + state(1) + `],"evicted":[` + conv(1) + `]}`, sharing.ErrInvalidBook},
		{"a state without a desk", `{"states":[{"conversation":{"thread":3},"watermark":1}]}`, sharing.ErrInvalidBook},
		{"an evicted conversation without a desk", `{"evicted":[{"thread":3}]}`, sharing.ErrInvalidBook},
		{"a null state", `{"states":[null]}`, sharing.ErrInvalidBook},
		{"two desks", `{"states":[` + state(1) + `,{"conversation":{"desk":"sales"},"watermark":1}]}`, sharing.ErrInvalidBook},
		{"two desks, one evicted", `{"states":[` + state(1) + `],"evicted":[{"desk":"Eng"}]}`, sharing.ErrInvalidBook},
		{"an unsorted present set", `{"states":[{"conversation":{"desk":"eng"},"watermark":1,"present":[5,3]}]}`, sharing.ErrInvalidState},
		{"an oversized present set", `{"states":[{"conversation":{"desk":"eng"},"watermark":0,"present":` + string(oversized) + `}]}`, sharing.ErrPresentSetTooLarge},
		{"states not an array", `{"states":{}}`, nil},
		{"truncated", `{"states":[`, nil},
	}
	original := put(t, sharing.Book{}, sharing.Initialized(thread(9), 3))
	for _, tt := range tests {
		b := original
		err := json.Unmarshal([]byte(tt.json), &b)
		if err == nil || tt.want != nil && !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
		if !b.Equal(original) {
			t.Errorf("%s: the book changed on error", tt.name)
		}
	}
	b := original
	if err := json.Unmarshal([]byte(`null`), &b); err != nil || !b.Equal(original) {
		t.Errorf("null: %v, or the book changed", err)
	}
	for _, ok := range []string{`{}`, `{"states":[],"evicted":[]}`, `{"states":null}`, `{"states":` + list(sharing.BookLimit, state) + `}`} {
		var b sharing.Book
		if err := json.Unmarshal([]byte(ok), &b); err != nil {
			t.Errorf("Unmarshal(%.60s): %v", ok, err)
		}
	}
}

// FuzzBookJSON decodes arbitrary bytes into a Book: it never panics; a book it accepts
// keeps a Book's rules, encodes and decodes to itself, and takes Put and Acknowledge; on
// error the target is unchanged.
func FuzzBookJSON(f *testing.F) {
	for _, seed := range []string{
		`{"states":[],"evicted":[]}`,
		`{"states":[{"conversation":{"desk":"eng"},"watermark":10,"present":[12]},{"conversation":{"desk":"eng","thread":4},"watermark":7,"present":[]}],"evicted":[{"desk":"eng","thread":9}]}`,
		`{"states":[{"conversation":{"desk":"eng"},"watermark":1},{"conversation":{"desk":"eng"},"watermark":2}]}`,
		`{"states":[{"conversation":{"desk":"eng"},"watermark":1}],"evicted":[{"desk":"eng"}]}`,
		`{"states":[{"conversation":{"desk":"eng"},"watermark":1}],"evicted":[{"desk":"sales"}]}`,
		`{"states":[null]}`, `{"evicted":[null]}`, `null`, `{}`, `[]`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		original := put(t, sharing.Book{}, sharing.Initialized(transcript.Conversation{Desk: "before"}, 3))
		b := original
		if err := json.Unmarshal(data, &b); err != nil {
			if !b.Equal(original) {
				t.Fatalf("Unmarshal(%q) failed with %v but changed the book", data, err)
			}
			return
		}
		if b.Len() > sharing.BookLimit {
			t.Fatalf("Unmarshal(%q) accepted %d states", data, b.Len())
		}
		out, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("Marshal after Unmarshal(%q): %v", data, err)
		}
		var again sharing.Book
		if err := json.Unmarshal(out, &again); err != nil || !again.Equal(b) {
			t.Fatalf("round trip of %q through %s: %v", data, out, err)
		}
		cs := b.Conversations()
		desk := "eng"
		if len(cs) > 0 {
			desk = cs[0].Desk
		}
		for _, c := range cs {
			if c.Desk != desk {
				t.Fatalf("Unmarshal(%q) accepted two desks", data)
			}
			s, _, ok := b.Lookup(c)
			if !ok {
				t.Fatalf("Lookup of a listed conversation failed")
			}
			if _, err := b.Acknowledge(s); err != nil {
				t.Fatalf("Acknowledge of its own state %+v: %v", s, err)
			}
		}
		if _, err := b.Put(sharing.Initialized(transcript.Conversation{Desk: desk, Thread: 1 << 40}, 1)); err != nil && !errors.Is(err, sharing.ErrInvalidBook) {
			t.Fatalf("Put into a decoded book: %v", err)
		}
	})
}

func TestReasonStateEvicted(t *testing.T) {
	text, err := sharing.StateEvicted.MarshalText()
	if sharing.StateEvicted.String() != "state_evicted" || string(text) != "state_evicted" || err != nil {
		t.Errorf("StateEvicted: %q, %q, %v", sharing.StateEvicted.String(), text, err)
	}
	var r sharing.Reason
	if err := r.UnmarshalText([]byte("state_evicted")); err != nil || r != sharing.StateEvicted {
		t.Errorf(`UnmarshalText("state_evicted") = %v, %v`, r, err)
	}
	data, _ := json.Marshal(struct {
		Reinitialized sharing.Reason `json:"reinitialized"`
	}{sharing.StateEvicted})
	if diff := gocmp.Diff(`{"reinitialized":"state_evicted"}`, string(data)); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
}
