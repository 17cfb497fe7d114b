package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/sharing"
	"github.com/sharedesk/transcript/sharing/books"
)

// TestBookRuleMemory runs the book checks on the reference store (books.Memory) alone, and
// ConcurrentBookRule on three of them sharing one map.
func TestBookRuleMemory(t *testing.T) {
	BookRule(t, new(books.Memory))
	shared := new(books.Memory)
	ConcurrentBookRule(t, shared, shared, shared)
}

// recorder is a reporter that keeps the failures; Fatalf ends the check by a panic that
// runBookRule recovers.
type recorder struct {
	ctx      context.Context
	failures []string
}

// errFatal is recorder.Fatalf's panic.
var errFatal = errors.New("fatal")

func (r *recorder) Helper()                  {}
func (r *recorder) Context() context.Context { return r.ctx }
func (r *recorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	panic(errFatal)
}

// runBookRule runs the book checks on st and returns their failures.
func runBookRule(t *testing.T, st books.Store) (failures []string) {
	r := &recorder{ctx: t.Context()}
	defer func() {
		if x := recover(); x != nil && x != errFatal {
			panic(x)
		}
		failures = r.failures
	}()
	bookRule(r, st)
	return nil
}

// brokenBooks is a books.Store with one thing wrong, chosen by its fields, over a map of
// books kept as JSON, under one mutex.
type brokenBooks struct {
	key      func(desk string, p transcript.Author) string // the identity of a book
	noCAS    bool                                          // saves whatever the version
	noBump   bool                                          // a save keeps version 1
	lenient  bool                                          // validates nothing
	lossy    bool                                          // forgets the evicted conversations
	mu       sync.Mutex
	books    map[string]string
	versions map[string]books.Version
}

func (s *brokenBooks) LoadBook(ctx context.Context, desk string, p transcript.Author) (sharing.Book, books.Version, error) {
	if err := books.ValidateOwner(desk, p); err != nil && !s.lenient {
		return sharing.Book{}, 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := s.key(desk, p)
	var b sharing.Book
	if data, ok := s.books[k]; ok {
		if err := json.Unmarshal([]byte(data), &b); err != nil {
			return sharing.Book{}, 0, err
		}
	}
	return b, s.versions[k], nil
}

func (s *brokenBooks) SaveBook(ctx context.Context, desk string, p transcript.Author, b sharing.Book, expect books.Version) (books.Version, error) {
	if err := books.Validate(desk, p, b); err != nil && !s.lenient {
		return 0, err
	}
	data, err := json.Marshal(b)
	if err != nil {
		return 0, err
	}
	if s.lossy {
		var w map[string]json.RawMessage
		if err := json.Unmarshal(data, &w); err != nil {
			return 0, err
		}
		delete(w, "evicted")
		if data, err = json.Marshal(w); err != nil {
			return 0, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.books == nil {
		s.books, s.versions = make(map[string]string), make(map[string]books.Version)
	}
	k := s.key(desk, p)
	v := s.versions[k]
	if v != expect && !s.noCAS {
		return 0, books.ErrChanged
	}
	next := v + 1
	if s.noBump {
		next = 1
	}
	s.books[k], s.versions[k] = string(data), next
	return next, nil
}

// rightKey is a book's identity as the contract has it.
func rightKey(desk string, p transcript.Author) string {
	return fmt.Sprintf("%q %d %q", desk, p.Kind, p.ID)
}

// TestBookRuleCatchesBrokenStores: the book checks pass on a brokenBooks with nothing
// broken, and report each way of breaking the contract.
func TestBookRuleCatchesBrokenStores(t *testing.T) {
	if failures := runBookRule(t, &brokenBooks{key: rightKey}); len(failures) != 0 {
		t.Fatalf("the checks fail a correct store:\n%s", strings.Join(failures, "\n"))
	}
	for _, broken := range []struct {
		name  string
		store *brokenBooks
		want  string // a failure must hold it
	}{
		{"no compare-and-swap", &brokenBooks{key: rightKey, noCAS: true}, "want books.ErrChanged"},
		{"versions not moved", &brokenBooks{key: rightKey, noBump: true}, "want version 2"},
		{"labels part of the identity", &brokenBooks{key: func(desk string, p transcript.Author) string { return rightKey(desk, p) + p.Label }}, "under another label"},
		{"kinds shared", &brokenBooks{key: func(desk string, p transcript.Author) string { return desk + " " + p.ID }}, "when another identity's book is stored"},
		{"desks shared", &brokenBooks{key: func(_ string, p transcript.Author) string { return rightKey("", p) }}, "when another identity's book is stored"},
		{"desks folded to lower case", &brokenBooks{key: func(desk string, p transcript.Author) string { return rightKey(strings.ToLower(desk), p) }}, "when another identity's book is stored"},
		{"nothing validated", &brokenBooks{key: rightKey, lenient: true}, "want sharing.ErrInvalidBook"},
		{"evicted conversations forgotten", &brokenBooks{key: rightKey, lossy: true}, "after saving a full book"},
	} {
		t.Run(broken.name, func(t *testing.T) {
			failures := runBookRule(t, broken.store)
			for _, f := range failures {
				if strings.Contains(f, broken.want) {
					t.Logf("%d failures, among them:\n%s", len(failures), f)
					return
				}
			}
			t.Errorf("no failure says %q; the failures:\n%s", broken.want, strings.Join(failures, "\n"))
		})
	}
}
