package books_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/sharing"
	"github.com/sharedesk/transcript/sharing/books"
)

var triage = transcript.Agent("triage", "Triage")

// rivalStore is a Memory on which, before each of the first rivals saves, another
// session of the participant saves first, acknowledging rival(i): the caller's save then
// finds the book changed. It counts loads and saves.
type rivalStore struct {
	books.Memory
	rivals       int
	rival        func(i int) sharing.State
	loads, saves atomic.Int64
	done         int
	loadErr      error
}

func (s *rivalStore) LoadBook(ctx context.Context, desk string, p transcript.Author) (sharing.Book, books.Version, error) {
	s.loads.Add(1)
	if s.loadErr != nil {
		return sharing.Book{}, 0, s.loadErr
	}
	return s.Memory.LoadBook(ctx, desk, p)
}

func (s *rivalStore) SaveBook(ctx context.Context, desk string, p transcript.Author, b sharing.Book, expect books.Version) (books.Version, error) {
	s.saves.Add(1)
	if s.done < s.rivals {
		rival := s.rival(s.done)
		s.done++
		stored, v, err := s.Memory.LoadBook(ctx, desk, p)
		if err != nil {
			return 0, err
		}
		if stored, err = stored.Acknowledge(rival); err != nil {
			return 0, err
		}
		if _, err := s.Memory.SaveBook(ctx, desk, p, stored, v); err != nil {
			return 0, err
		}
	}
	return s.Memory.SaveBook(ctx, desk, p, b, expect)
}

// acknowledging returns Update's fn that acknowledges s, counting its calls in calls.
func acknowledging(s sharing.State, calls *int) func(sharing.Book) (sharing.Book, error) {
	return func(b sharing.Book) (sharing.Book, error) {
		*calls++
		return b.Acknowledge(s)
	}
}

// TestUpdateRetries: a save that finds the book changed is retried on the book as
// stored, so the rivals' acknowledgements and the caller's all end in it.
func TestUpdateRetries(t *testing.T) {
	ctx := t.Context()
	st := &rivalStore{rivals: 3, rival: func(i int) sharing.State {
		if i == 2 { // a rival ahead on the caller's conversation
			return sharing.State{Conversation: thread(0), Watermark: 40, Present: []transcript.Sequence{45}}
		}
		return sharing.Initialized(thread(10+i), transcript.Sequence(i+1))
	}}
	calls := 0
	mine := sharing.State{Conversation: thread(0), Watermark: 30, Present: []transcript.Sequence{41, 50}}
	got, err := books.Update(ctx, st, "eng", triage, acknowledging(mine, &calls))
	if err != nil {
		t.Fatal(err)
	}
	if calls != 4 || st.saves.Load() != 4 {
		t.Errorf("fn called %d times, %d saves; want 4 of each (3 conflicts)", calls, st.saves.Load())
	}
	stored, v, err := st.Memory.LoadBook(ctx, "eng", triage)
	if err != nil || v != 4 || !stored.Equal(got) {
		t.Errorf("stored book at version %d (%v) is not the one Update returned", v, err)
	}
	if s := lookup(t, got, thread(0)); s.Watermark != 40 || !slices.Equal(s.Present, []transcript.Sequence{41, 45, 50}) {
		t.Errorf("the channel's state = %v, want {40 [41 45 50]}: the rival's and the caller's acknowledgements joined", show(s))
	}
	for _, n := range []int{10, 11} {
		lookup(t, got, thread(n))
	}
	if cs := threads(got.Conversations()); !slices.Equal(cs, []int{10, 11, 0}) {
		t.Errorf("Conversations = %v, want [10 11 0]: the caller's the most recent", cs)
	}
}

// TestUpdateGivesUp: a book that changes before every save is ErrChanged after
// UpdateAttempts tries, with fn applied each time and nothing of the caller's saved.
func TestUpdateGivesUp(t *testing.T) {
	st := &rivalStore{rivals: 1 << 30, rival: func(i int) sharing.State { return sharing.Initialized(thread(1), transcript.Sequence(i)) }}
	calls := 0
	_, err := books.Update(t.Context(), st, "eng", triage, acknowledging(sharing.Initialized(thread(0), 5), &calls))
	if !errors.Is(err, books.ErrChanged) || calls != books.UpdateAttempts {
		t.Errorf("Update = %v after %d calls; want ErrChanged after %d", err, calls, books.UpdateAttempts)
	}
	stored, _, _ := st.Memory.LoadBook(t.Context(), "eng", triage)
	if _, _, ok := stored.Lookup(thread(0)); ok {
		t.Error("the caller's acknowledgement was saved")
	}
}

func TestUpdateCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	st := &rivalStore{rivals: 1 << 30, rival: func(i int) sharing.State { return sharing.Initialized(thread(1), transcript.Sequence(i)) }}
	calls := 0
	_, err := books.Update(ctx, st, "eng", triage, func(b sharing.Book) (sharing.Book, error) {
		if calls++; calls == 2 {
			cancel()
		}
		return b.Acknowledge(sharing.Initialized(thread(0), 5))
	})
	if !errors.Is(err, context.Canceled) || calls > 3 {
		t.Errorf("Update with ctx canceled = %v after %d calls; want context.Canceled", err, calls)
	}
}

// TestUpdateNoSave: fn's error comes back as it is, and an unchanged book is not saved.
func TestUpdateNoSave(t *testing.T) {
	ctx := t.Context()
	st := &rivalStore{}
	calls := 0
	if _, err := books.Update(ctx, st, "eng", triage, acknowledging(sharing.Initialized(thread(0), 5), &calls)); err != nil {
		t.Fatal(err)
	}
	mine := errors.New("mine")
	if _, err := books.Update(ctx, st, "eng", triage, func(b sharing.Book) (sharing.Book, error) { return b, mine }); err != mine {
		t.Errorf("Update with fn failing = %v, want fn's error as it is", err)
	}
	if _, err := books.Update(ctx, st, "eng", triage, func(b sharing.Book) (sharing.Book, error) {
		return b.Put(sharing.Initialized(transcript.Conversation{Desk: "sales"}, 1))
	}); !errors.Is(err, sharing.ErrInvalidBook) {
		t.Errorf("Update putting another desk's state = %v, want ErrInvalidBook", err)
	}
	// Acknowledging again what the book holds, as its most recent conversation, changes nothing.
	got, err := books.Update(ctx, st, "eng", triage, acknowledging(sharing.Initialized(thread(0), 2), &calls))
	if err != nil || lookup(t, got, thread(0)).Watermark != 5 {
		t.Errorf("Update acknowledging an older state = %v", err)
	}
	if n := st.saves.Load(); n != 1 {
		t.Errorf("%d saves, want 1: only the first update changed the book", n)
	}
	st.loadErr = errors.New("disk on fire")
	if _, err := books.Update(ctx, st, "eng", triage, acknowledging(sharing.Initialized(thread(0), 9), &calls)); err != st.loadErr {
		t.Errorf("Update on a failing store = %v, want the store's error", err)
	}
}

// TestMemory: the reference store's versions, refusals and identity (the full contract
// is storetest.BookRule's, which runs on it in internal/storetest).
func TestMemory(t *testing.T) {
	ctx := t.Context()
	var st books.Memory
	if b, v, err := st.LoadBook(ctx, "eng", triage); err != nil || v != 0 || b.Len() != 0 {
		t.Fatalf("LoadBook of a new store = %d, %d, %v", b.Len(), v, err)
	}
	b := put(t, sharing.Book{}, sharing.Initialized(thread(0), 3))
	if v, err := st.SaveBook(ctx, "eng", transcript.Agent("triage", "renamed"), b, 0); err != nil || v != 1 {
		t.Fatalf("SaveBook = %d, %v", v, err)
	}
	if got, v, err := st.LoadBook(ctx, "eng", triage); err != nil || v != 1 || !got.Equal(b) {
		t.Errorf("LoadBook under another label = %d, %d, %v", got.Len(), v, err)
	}
	if _, err := st.SaveBook(ctx, "eng", triage, b, 0); !errors.Is(err, books.ErrChanged) {
		t.Errorf("SaveBook over version 0 of a stored book: %v, want ErrChanged", err)
	}
	if _, err := st.SaveBook(ctx, "sales", triage, b, 0); !errors.Is(err, sharing.ErrInvalidBook) {
		t.Errorf("SaveBook of a book of eng for sales: %v, want ErrInvalidBook", err)
	}
	if _, _, err := st.LoadBook(ctx, "eng", transcript.Agent("", "x")); !errors.Is(err, sharing.ErrInvalidBook) || !errors.Is(err, transcript.ErrInvalidAuthor) {
		t.Errorf("LoadBook of an invalid participant: %v, want ErrInvalidBook and ErrInvalidAuthor", err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := st.LoadBook(canceled, "eng", triage); !errors.Is(err, context.Canceled) {
		t.Errorf("LoadBook with a canceled ctx: %v", err)
	}
	if _, err := st.SaveBook(canceled, "eng", triage, b, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("SaveBook with a canceled ctx: %v", err)
	}
	if _, v, _ := st.LoadBook(ctx, "eng", triage); v != 1 {
		t.Errorf("version %d after a canceled save, want 1", v)
	}
}

// TestValidateOwnerText: a desk name or participant id the stores cannot keep as text is
// refused by the project's one text rule (storage.ValidateText), as an invalid book.
func TestValidateOwnerText(t *testing.T) {
	for _, tt := range []struct {
		name, desk string
		p          transcript.Author
	}{
		{"a desk with a NUL byte", "e\x00ng", triage},
		{"a desk not UTF-8", "e\xffng", triage},
		{"an id with a NUL byte", "eng", transcript.Agent("tri\x00age", "Triage")},
		{"an id not UTF-8", "eng", transcript.Agent("tri\xffage", "Triage")},
	} {
		err := books.ValidateOwner(tt.desk, tt.p)
		if !errors.Is(err, sharing.ErrInvalidBook) || !errors.Is(err, transcript.ErrText) {
			t.Errorf("%s: %v, want ErrInvalidBook and transcript.ErrText", tt.name, err)
		}
	}
	if err := books.ValidateOwner("eng", triage); err != nil {
		t.Errorf("a valid owner: %v", err)
	}
}

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

// lookup returns b's state of c, failing t when it holds none.
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

func show(s sharing.State) string { return fmt.Sprintf("{%d %v}", s.Watermark, s.Present) }
