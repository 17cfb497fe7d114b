package sharing

import (
	"context"
	"fmt"
	"sync"

	"github.com/sharedesk/transcript"
)

var _ BookStore = (*MemBookStore)(nil)

// MemBookStore is a BookStore in memory: the reference the stores are held to, and the
// books of a host whose store keeps none (a memlog desk, a test). Its books last as long as
// it does. The zero MemBookStore is empty and ready to use; it is safe for concurrent use
// and must not be copied after first use. Books are immutable values, so it keeps and
// returns them as they are.
type MemBookStore struct {
	mu    sync.Mutex
	books map[memBookKey]memBook
}

// memBookKey is a book's identity: the desk, and the participant's Kind and ID.
type memBookKey struct {
	desk string
	kind transcript.AuthorKind
	id   string
}

type memBook struct {
	book    Book
	version Version
}

// LoadBook implements BookStore.
func (m *MemBookStore) LoadBook(ctx context.Context, desk string, p transcript.Author) (Book, Version, error) {
	if err := ctx.Err(); err != nil {
		return Book{}, 0, err
	}
	if err := ValidateOwner(desk, p); err != nil {
		return Book{}, 0, fmt.Errorf("sharing: loading a book: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	stored := m.books[memBookKey{desk, p.Kind, p.ID}]
	return stored.book, stored.version, nil
}

// SaveBook implements BookStore.
func (m *MemBookStore) SaveBook(ctx context.Context, desk string, p transcript.Author, b Book, expect Version) (Version, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := ValidateBook(desk, p, b); err != nil {
		return 0, fmt.Errorf("sharing: saving a book: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	key := memBookKey{desk, p.Kind, p.ID}
	if got := m.books[key].version; got != expect {
		return 0, fmt.Errorf("sharing: saving the book of %s on desk %q over version %d: %w", p, desk, expect, ErrBookChanged)
	}
	if m.books == nil {
		m.books = make(map[memBookKey]memBook)
	}
	m.books[key] = memBook{book: b, version: expect + 1}
	return expect + 1, nil
}
