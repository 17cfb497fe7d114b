package deskmcp_test

import (
	"github.com/sharedesk/transcript/internal/memdesks"
	"github.com/sharedesk/transcript/sharing/books"
)

// memStore is a store of memlog desks, with its books in memory: the reference log, which
// applies corrections as every store must.
type memStore struct {
	memdesks.Desks
	books.Memory
}

func newMemStore() *memStore { return &memStore{} }

func (s *memStore) Close() error { return nil }
