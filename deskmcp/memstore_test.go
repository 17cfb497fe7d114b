package deskmcp_test

import (
	"context"
	"sync"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/sharing/books"
)

// memStore is a store of memlog desks, with its books in memory: the reference log, which
// applies corrections as every store must.
type memStore struct {
	mu    sync.Mutex
	desks map[string]*memlog.Log
	books.Memory
}

func newMemStore() *memStore { return &memStore{desks: map[string]*memlog.Log{}} }

func (s *memStore) desk(name string) *memlog.Log {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.desks[name]
	if l == nil {
		l = memlog.New()
		s.desks[name] = l
	}
	return l
}

func (s *memStore) Log(desk string) transcript.Log { return s.desk(desk) }

func (s *memStore) Append(ctx context.Context, desk string, m transcript.Message) (transcript.Message, error) {
	return s.desk(desk).Append(ctx, m)
}

func (s *memStore) AppendNew(ctx context.Context, desk string, m transcript.Message) (transcript.Message, bool, error) {
	return s.desk(desk).AppendNew(ctx, m)
}

func (s *memStore) Close() error { return nil }
