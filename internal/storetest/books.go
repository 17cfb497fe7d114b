package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/sharing"
	"github.com/sharedesk/transcript/sharing/books"
)

// reporter is what the book checks report to: a *testing.T, or in the kit's own tests a
// recorder that shows which rules a broken store breaks. Fatalf is called only from the
// goroutine that runs the check.
type reporter interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Context() context.Context
}

// BookRule checks the books.Store contract on st, which holds no book yet:
//
//   - a book not stored loads as the empty Book at version 0;
//   - SaveBook over version 0 stores a new book at version 1, and every save over the version
//     stored moves it one up; LoadBook returns the book saved exactly (sharing.Book.Equal):
//     a full one (BookLimit states with full present sets, sequences near 2⁶⁴, EvictedLimit
//     evicted conversations) and an empty one, which then loads at its version, not 0;
//   - a save over any other version (0 while a book is stored, a stale one, one ahead, a
//     negative one) is books.ErrChanged and writes nothing;
//   - a book is the participant's identity's, Kind and ID: it loads and saves under any
//     label, and kinds sharing an id, ids that differ in case or by a space, and the
//     operator are books of their own; so are desks that differ in case or by a space;
//   - a desk or participant books.ValidateOwner refuses (empty, NUL byte, not UTF-8,
//     invalid author), through LoadBook and SaveBook, and a book of another desk, are
//     sharing.ErrInvalidBook, and nothing is written;
//   - books.Update from 8 goroutines at once loses no acknowledgement (see
//     ConcurrentBookRule; run it with -race).
func BookRule(t *testing.T, st books.Store) {
	t.Helper()
	bookRule(t, st)
}

func bookRule(t reporter, st books.Store) {
	t.Helper()
	checkBookVersions(t, st)
	checkBookIdentity(t, st)
	checkBookRefusals(t, st)
	concurrentBooks(t, "races", st)
}

// ConcurrentBookRule runs 8 goroutines at once, worker w on stores[w % len(stores)] (which
// may be several Stores, or pools, on one database), each acknowledging through
// books.Update, 12 times, a state of a conversation of its own with a rising
// watermark and a state of a conversation all share, with a watermark rising through every
// worker's and a present entry of the worker's own; every worker names the participant by
// a label of its own. Each update must return a book holding its acknowledgement, and the
// book in the end must hold every conversation, each at the highest watermark acknowledged,
// the shared one with every worker's present entry: nothing lost. Run it with -race.
func ConcurrentBookRule(t *testing.T, stores ...books.Store) {
	t.Helper()
	if len(stores) == 0 {
		t.Fatal("storetest: ConcurrentBookRule without a store")
	}
	concurrentBooks(t, "races across stores", stores...)
}

// bookDesk is the desk of the book checks; bookAgent their participant.
const bookDesk = "books"

var bookAgent = transcript.Agent("reader", "Reader")

// conversationIn returns the conversation of thread (0: the channel) on desk.
func conversationIn(desk string, thread transcript.Sequence) transcript.Conversation {
	return transcript.Conversation{Desk: desk, Thread: thread}
}

// BookOf returns a new book with each state put, in order, failing t on an error: a book to
// save in a store's own tests.
func BookOf(t testing.TB, states ...sharing.State) sharing.Book {
	t.Helper()
	return mustPut(t, sharing.Book{}, states...)
}

// mustPut returns b with each state put, failing t on an error.
func mustPut(t reporter, b sharing.Book, states ...sharing.State) sharing.Book {
	t.Helper()
	for _, s := range states {
		var err error
		if b, err = b.Put(s); err != nil {
			t.Fatalf("Book.Put(%+v): %v", s, err)
		}
	}
	return b
}

// fullBook returns a book of desk as large as a book gets: BookLimit states with full
// present sets and sequences near 2⁶⁴, and EvictedLimit evicted conversations.
func fullBook(t reporter, desk string) sharing.Book {
	t.Helper()
	top := ^transcript.Sequence(0) - 1000
	var b sharing.Book
	for i := range sharing.BookLimit + sharing.EvictedLimit {
		s := sharing.Initialized(conversationIn(desk, top-transcript.Sequence(i)), top-transcript.Sequence(2*sharing.PresentSetLimit+i))
		for j := range sharing.PresentSetLimit {
			if err := s.NotePresent(s.Watermark + 1 + transcript.Sequence(2*j)); err != nil {
				t.Fatalf("NotePresent: %v", err)
			}
		}
		b = mustPut(t, b, s)
	}
	b = mustPut(t, b, sharing.Initialized(conversationIn(desk, 0), 0)) // the channel, at 0
	return b
}

// loadBook loads p's book on desk and checks it against want and version.
func loadBook(t reporter, st books.Store, when, desk string, p transcript.Author, want sharing.Book, version books.Version) {
	t.Helper()
	got, v, err := st.LoadBook(t.Context(), desk, p)
	switch {
	case err != nil:
		t.Errorf("LoadBook of %v on desk %q %s: %v", p, desk, when, err)
	case v != version:
		t.Errorf("LoadBook of %v on desk %q %s: version %d, want %d", p, desk, when, v, version)
	case !got.Equal(want):
		t.Errorf("LoadBook of %v on desk %q %s: not the book saved: %s", p, desk, when, bookDiff(got, want))
	}
}

// bookDiff shows where the JSON of got and want first differ, for a failure's message.
func bookDiff(got, want sharing.Book) string {
	g, w := bookText(got), bookText(want)
	i := 0
	for i < len(g) && i < len(w) && g[i] == w[i] {
		i++
	}
	from := max(i-60, 0)
	return fmt.Sprintf("at byte %d,\n got ...%s\nwant ...%s", i, g[from:min(i+60, len(g))], w[from:min(i+60, len(w))])
}

// bookText returns b's JSON, for a failure's message.
func bookText(b sharing.Book) string {
	data, err := b.MarshalJSON()
	if err != nil {
		return fmt.Sprintf("(unencodable book: %v)", err)
	}
	return string(data)
}

// checkBookVersions: new books, versions, compare-and-swap, exact round trips.
func checkBookVersions(t reporter, st books.Store) {
	t.Helper()
	ctx := t.Context()
	loadBook(t, st, "in a new store", bookDesk, bookAgent, sharing.Book{}, 0)

	small := mustPut(t, sharing.Book{}, sharing.State{Conversation: conversationIn(bookDesk, 0), Watermark: 10, Present: []transcript.Sequence{12, 15}})
	full := fullBook(t, bookDesk)
	other := mustPut(t, sharing.Book{}, sharing.Initialized(conversationIn(bookDesk, 7), 3))
	save := func(what string, b sharing.Book, expect, want books.Version) {
		t.Helper()
		v, err := st.SaveBook(ctx, bookDesk, bookAgent, b, expect)
		if err != nil || v != want {
			t.Fatalf("SaveBook of %s over version %d = %d, %v; want version %d", what, expect, v, err, want)
		}
	}
	refused := func(what string, b sharing.Book, expect books.Version) {
		t.Helper()
		if v, err := st.SaveBook(ctx, bookDesk, bookAgent, b, expect); !errors.Is(err, books.ErrChanged) {
			t.Errorf("SaveBook of %s over version %d = %d, %v; want books.ErrChanged", what, expect, v, err)
		}
	}

	save("a new book", small, 0, 1)
	loadBook(t, st, "after its first save", bookDesk, bookAgent, small, 1)
	refused("a second new book", other, 0)
	refused("a book over a version ahead", other, 2)
	refused("a book over a negative version", other, -1)
	loadBook(t, st, "after refused saves", bookDesk, bookAgent, small, 1)

	save("a full book", full, 1, 2)
	loadBook(t, st, "after saving a full book", bookDesk, bookAgent, full, 2)
	refused("a book over a stale version", other, 1)
	loadBook(t, st, "after a stale save", bookDesk, bookAgent, full, 2)
	// The loaded book remembers what the saved one does of its evicted conversations: the
	// first put was evicted longest ago, beyond EvictedLimit, the second within it.
	if got, _, err := st.LoadBook(ctx, bookDesk, bookAgent); err == nil {
		top := ^transcript.Sequence(0) - 1000
		for _, c := range []struct {
			thread transcript.Sequence
			why    sharing.Reason
		}{{top, 0}, {top - 1, sharing.StateEvicted}} {
			if _, why, ok := got.Lookup(conversationIn(bookDesk, c.thread)); ok || why != c.why {
				t.Errorf("the loaded full book's Lookup of thread %d = %v, %v; want %v, false", c.thread, why, ok, c.why)
			}
		}
	}

	save("the empty book", sharing.Book{}, 2, 3)
	loadBook(t, st, "after saving the empty book", bookDesk, bookAgent, sharing.Book{}, 3)
	save("a book over the empty one", small, 3, 4)
	loadBook(t, st, "after saving over the empty book", bookDesk, bookAgent, small, 4)
}

// checkBookIdentity: a book is the desk's and the participant's Kind and ID.
func checkBookIdentity(t reporter, st books.Store) {
	t.Helper()
	ctx := t.Context()
	const desk = "identity"
	ana := transcript.Agent("ana", "Ana")
	b1 := mustPut(t, sharing.Book{}, sharing.Initialized(conversationIn(desk, 0), 5))
	if _, err := st.SaveBook(ctx, desk, ana, b1, 0); err != nil {
		t.Fatalf("SaveBook of %v on desk %q: %v", ana, desk, err)
	}
	for _, label := range []string{"Ana Lima ✍", "", "ana"} {
		loadBook(t, st, "under another label", desk, transcript.Agent("ana", label), b1, 1)
	}
	b2 := mustPut(t, b1, sharing.Initialized(conversationIn(desk, 9), 11))
	if v, err := st.SaveBook(ctx, desk, transcript.Agent("ana", "Renamed"), b2, 1); err != nil || v != 2 {
		t.Errorf("SaveBook under another label = %d, %v; want version 2", v, err)
	}
	loadBook(t, st, "after a save under another label", desk, ana, b2, 2)

	others := []struct {
		desk string
		p    transcript.Author
	}{
		{desk, transcript.Person("ana", "Ana")},
		{desk, transcript.System("ana", "Ana")},
		{desk, transcript.Agent("Ana", "Ana")},
		{desk, transcript.Agent("ana ", "Ana")},
		{desk, transcript.Agent(" ana", "Ana")},
		{desk, transcript.Author{Kind: transcript.KindOperator, Label: "ana"}},
		{"Identity", ana},
		{"identity ", ana},
		{"identity/2", ana},
		{"équipe ✍", ana},
	}
	for _, o := range others {
		loadBook(t, st, "when another identity's book is stored", o.desk, o.p, sharing.Book{}, 0)
	}
	for i, o := range others {
		b := mustPut(t, sharing.Book{}, sharing.Initialized(conversationIn(o.desk, transcript.Sequence(100+i)), transcript.Sequence(i)))
		if v, err := st.SaveBook(ctx, o.desk, o.p, b, 0); err != nil || v != 1 {
			t.Errorf("SaveBook of a new book for %v on desk %q = %d, %v; want version 1", o.p, o.desk, v, err)
			continue
		}
		loadBook(t, st, "after its save", o.desk, o.p, b, 1)
	}
	loadBook(t, st, "after other identities' saves", desk, ana, b2, 2)
}

// checkBookRefusals: bad desks, participants and books are sharing.ErrInvalidBook.
func checkBookRefusals(t reporter, st books.Store) {
	t.Helper()
	ctx := t.Context()
	const desk = "refusals"
	ana := transcript.Agent("ana", "Ana")
	kept := mustPut(t, sharing.Book{}, sharing.Initialized(conversationIn(desk, 0), 1))
	if _, err := st.SaveBook(ctx, desk, ana, kept, 0); err != nil {
		t.Fatalf("SaveBook: %v", err)
	}
	for _, bad := range []struct {
		name     string
		desk     string
		p        transcript.Author
		isAuthor bool // the error matches transcript.ErrInvalidAuthor too
	}{
		{"an empty desk", "", ana, false},
		{"a desk with a NUL byte", "ref\x00usals", ana, false},
		{"a desk not UTF-8", "ref\xffusals", ana, false},
		{"an agent without an id", desk, transcript.Agent("", "Ana"), true},
		{"an operator with an id", desk, transcript.Author{Kind: transcript.KindOperator, ID: "ana"}, true},
		{"an unknown kind", desk, transcript.Author{Kind: 9, ID: "ana"}, true},
		{"the zero author", desk, transcript.Author{}, true},
		{"an id with a NUL byte", desk, transcript.Agent("an\x00a", "Ana"), false},
		{"an id not UTF-8", desk, transcript.Agent("an\xffa", "Ana"), false},
	} {
		matches := func(err error) bool {
			return errors.Is(err, sharing.ErrInvalidBook) && (!bad.isAuthor || errors.Is(err, transcript.ErrInvalidAuthor))
		}
		if b, v, err := st.LoadBook(ctx, bad.desk, bad.p); !matches(err) {
			t.Errorf("LoadBook with %s = %s, %d, %v; want sharing.ErrInvalidBook", bad.name, bookText(b), v, err)
		}
		b := sharing.Book{}
		if bad.desk != "" {
			b = mustPut(t, b, sharing.Initialized(conversationIn(bad.desk, 0), 1))
		}
		for _, expect := range []books.Version{0, 1} {
			if v, err := st.SaveBook(ctx, bad.desk, bad.p, b, expect); !matches(err) {
				t.Errorf("SaveBook with %s over version %d = %d, %v; want sharing.ErrInvalidBook", bad.name, expect, v, err)
			}
		}
	}
	elsewhere := mustPut(t, sharing.Book{}, sharing.Initialized(conversationIn("elsewhere", 0), 2))
	for _, expect := range []books.Version{0, 1} {
		if v, err := st.SaveBook(ctx, desk, ana, elsewhere, expect); !errors.Is(err, sharing.ErrInvalidBook) {
			t.Errorf("SaveBook of a book of desk %q for desk %q over version %d = %d, %v; want sharing.ErrInvalidBook", "elsewhere", desk, expect, v, err)
		}
	}
	loadBook(t, st, "after refused saves", desk, ana, kept, 1)
	loadBook(t, st, "after refused saves", "elsewhere", ana, sharing.Book{}, 0)
}

// The shape of concurrentBooks.
const (
	bookWorkers = 8
	bookRounds  = 12
)

// concurrentBooks is ConcurrentBookRule, on a desk named desk.
func concurrentBooks(t reporter, desk string, stores ...books.Store) {
	t.Helper()
	ctx := t.Context()
	shared := conversationIn(desk, 0)
	own := func(w int) transcript.Conversation { return conversationIn(desk, transcript.Sequence(100+w)) }
	sharedAck := func(w, round int) sharing.State {
		return sharing.State{Conversation: shared, Watermark: transcript.Sequence(round*bookWorkers + w), Present: []transcript.Sequence{1_000_000 + transcript.Sequence(w)}}
	}
	var (
		wg   sync.WaitGroup
		errs = make([]error, bookWorkers)
	)
	for w := range bookWorkers {
		wg.Go(func() {
			st := stores[w%len(stores)]
			p := transcript.Agent("racer", fmt.Sprintf("Racer %d", w)) // one identity, a label each
			errs[w] = func() error {
				for round := 1; round <= bookRounds; round++ {
					acks := []sharing.State{sharing.Initialized(own(w), transcript.Sequence(10*round)), sharedAck(w, round)}
					batches := [][]sharing.State{acks} // both in one update on odd rounds
					if round%2 == 0 {
						batches = [][]sharing.State{acks[:1], acks[1:]}
					}
					for _, batch := range batches {
						got, err := books.Update(ctx, st, desk, p, func(b sharing.Book) (sharing.Book, error) {
							for _, s := range batch {
								var err error
								if b, err = b.Acknowledge(s); err != nil {
									return b, err
								}
							}
							return b, nil
						})
						if err != nil {
							return fmt.Errorf("round %d: books.Update: %w", round, err)
						}
						for _, s := range batch {
							if stored, _, ok := got.Lookup(s.Conversation); !ok || stored.Watermark < s.Watermark {
								return fmt.Errorf("round %d: books.Update returned a book whose state of thread %d is %+v (found %v), below its acknowledgement %+v", round, s.Conversation.Thread, stored, ok, s)
							}
						}
					}
				}
				return nil
			}()
		})
	}
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			t.Errorf("%s: worker %d: %v", desk, w, err)
		}
	}
	b, v, err := stores[0].LoadBook(ctx, desk, transcript.Agent("racer", ""))
	if err != nil {
		t.Fatalf("%s: LoadBook after the updates: %v", desk, err)
	}
	if v < bookRounds {
		t.Errorf("%s: version %d after the updates, want at least %d", desk, v, bookRounds)
	}
	if b.Len() != bookWorkers+1 {
		t.Errorf("%s: the book holds %d conversations, want %d: %s", desk, b.Len(), bookWorkers+1, bookText(b))
	}
	for w := range bookWorkers {
		if s, _, ok := b.Lookup(own(w)); !ok || s.Watermark != 10*bookRounds || len(s.Present) != 0 {
			t.Errorf("%s: worker %d's conversation: %+v (found %v), want watermark %d: an acknowledgement was lost", desk, w, s, ok, 10*bookRounds)
		}
	}
	var wantPresent []transcript.Sequence
	for w := range bookWorkers {
		wantPresent = append(wantPresent, 1_000_000+transcript.Sequence(w))
	}
	wantMark := transcript.Sequence(bookRounds*bookWorkers + bookWorkers - 1)
	if s, _, ok := b.Lookup(shared); !ok || s.Watermark != wantMark || !slices.Equal(s.Present, wantPresent) {
		t.Errorf("%s: the shared conversation: %+v (found %v), want watermark %d and present %v: an acknowledgement was lost", desk, s, ok, wantMark, wantPresent)
	}
}
