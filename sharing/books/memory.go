package books

import (
	"context"
	"fmt"
	"sync"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/sharing"
)

var _ Store = (*Memory)(nil)

// Memory is a Store in memory: the reference the stores are held to, and the books of a
// host whose store keeps none (a memlog desk, a test). Its books last as long as it does.
// The zero Memory is empty and ready to use; it is safe for concurrent use and must not
// be copied after first use. Books are immutable values, so it keeps and returns them as
// they are.
type Memory struct {
	mu    sync.Mutex
	books map[memKey]memBook
}

// memKey is a book's identity: the desk, and the participant's Kind and ID.
type memKey struct {
	desk string
	kind transcript.AuthorKind
	id   string
}

type memBook struct {
	book    sharing.Book
	version Version
}

// LoadBook implements Store.
func (m *Memory) LoadBook(ctx context.Context, desk string, p transcript.Author) (sharing.Book, Version, error) {
	if err := ctx.Err(); err != nil {
		return sharing.Book{}, 0, err
	}
	if err := ValidateOwner(desk, p); err != nil {
		return sharing.Book{}, 0, fmt.Errorf("books: loading a book: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	stored := m.books[memKey{desk, p.Kind, p.ID}]
	return stored.book, stored.version, nil
}

// SaveBook implements Store.
func (m *Memory) SaveBook(ctx context.Context, desk string, p transcript.Author, b sharing.Book, expect Version) (Version, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := Validate(desk, p, b); err != nil {
		return 0, fmt.Errorf("books: saving a book: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	key := memKey{desk, p.Kind, p.ID}
	if got := m.books[key].version; got != expect {
		return 0, fmt.Errorf("books: saving the book of %s on desk %q over version %d: %w", p, desk, expect, ErrChanged)
	}
	if m.books == nil {
		m.books = make(map[memKey]memBook)
	}
	m.books[key] = memBook{book: b, version: expect + 1}
	return expect + 1, nil
}
