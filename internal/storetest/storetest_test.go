package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/sharing/books"
	"github.com/sharedesk/transcript/storage"
	"github.com/sharedesk/transcript/token"
)

// TestRunMemStore runs the suite against memStore, a simple store kept in memory, so the
// suite is tested without a database.
func TestRunMemStore(t *testing.T) {
	Run(t, func(t *testing.T) Store { return newMemStore(transcript.MaxContent) })
}

func TestContentLimitMemStore(t *testing.T) {
	for _, limit := range []int{2, 3, 1000} {
		ContentLimit(t, newMemStore(limit), limit)
	}
}

// memStore is a Store over one memlog.Log per desk, serialised by one mutex, with the
// reference token.Store and the reference books.Store.
type memStore struct {
	books.Memory
	token.MemStore
	mu         sync.Mutex
	desks      map[string]*memlog.Log
	maxContent int
	rowsRead   atomic.Int64 // by searches, every desk's
	digests    map[transcript.Conversation][]transcript.Digest
	deskIDs    map[string]int64 // each desk's Desk in a storage.DigestRead, given on first need
	lastDeskID int64
	broken     brokenDigests // what its digests get wrong: nothing, as newMemStore makes it
}

var _ token.Store = (*memStore)(nil)

func newMemStore(maxContent int) *memStore {
	return &memStore{desks: make(map[string]*memlog.Log), maxContent: maxContent}
}

func (s *memStore) Append(ctx context.Context, desk string, m transcript.Message) (transcript.Message, error) {
	stored, _, err := s.AppendNew(ctx, desk, m)
	return stored, err
}

func (s *memStore) AppendNew(ctx context.Context, desk string, m transcript.Message) (transcript.Message, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := storage.Batch{Desk: desk, Messages: []transcript.Message{m}, Single: true, MaxContent: s.maxContent}
	if err := b.Check(); err != nil {
		return transcript.Message{}, false, err
	}
	log := s.desks[desk]
	if log == nil {
		log = memlog.New()
	}
	if m.Parent >= log.Head()+1 {
		return transcript.Message{}, false, fmt.Errorf("%w: %w: parent %d is not older", transcript.ErrInvalidMessage, transcript.ErrNoParent, m.Parent)
	}
	m.At = stamp(m.At)
	got, added, err := log.AppendNew(ctx, m)
	if err == nil {
		s.desks[desk] = log
	}
	if err == nil && added && got.IsCorrection() {
		s.dropDigests(desk, log.Messages()[got.Corrects-1])
	}
	return got, added, err
}

func (s *memStore) AppendBatch(ctx context.Context, desk string, msgs []transcript.Message) error {
	return s.settle(desk, msgs, false)
}

func (s *memStore) RestoreBatch(ctx context.Context, desk string, rows []transcript.Message) error {
	return s.settle(desk, rows, true)
}

// settle appends msgs to desk through a storage.Batch (Restore when restored), applying
// its Revisions to the stored rows, all or nothing.
func (s *memStore) settle(desk string, msgs []transcript.Message, restored bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := storage.Batch{Desk: desk, Messages: msgs, Restore: restored, MaxContent: s.maxContent}
	if err := b.Check(); err != nil {
		return err
	}
	var rows []transcript.Message
	if log := s.desks[desk]; log != nil {
		rows = log.Messages()
	}
	stored := make(map[transcript.Sequence]transcript.Message, len(rows))
	present := make(map[string]*transcript.Message)
	for i, m := range rows {
		stored[m.Seq] = m
		if m.Key != "" {
			present[m.Key] = &rows[i]
		}
	}
	settled, err := b.Settle(transcript.Sequence(len(rows)), stored, present)
	if err != nil || len(settled.Added) == 0 {
		return err
	}
	for _, r := range settled.Revisions {
		s.dropDigests(desk, rows[r.Target-1])
		for i := range rows {
			r.Apply(&rows[i])
		}
	}
	for _, m := range settled.Added {
		m.At = stamp(m.At)
		rows = append(rows, m)
	}
	next, err := memlog.From(rows)
	if err != nil {
		return err
	}
	s.desks[desk] = next
	return nil
}

func stamp(at time.Time) time.Time {
	if at.IsZero() {
		at = time.Now()
	}
	return at.Truncate(time.Microsecond).UTC()
}

func (s *memStore) Log(desk string) transcript.Log { return memDesk{s, desk} }

func (s *memStore) LookupKeys(_ context.Context, desk string, keys []string) (map[string]transcript.Message, error) {
	s.mu.Lock()
	log := s.desks[desk]
	s.mu.Unlock()
	found := make(map[string]transcript.Message)
	if log == nil {
		return found, nil
	}
	for _, m := range log.Messages() {
		if m.Key != "" && slices.Contains(keys, m.Key) {
			found[m.Key] = m
		}
	}
	return found, nil
}

func (s *memStore) Desks(context.Context) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(func(yield func(string) bool) {
		for name := range s.desks {
			if !yield(name) {
				return
			}
		}
	}), nil
}

// memDesk reads the desk's current log at every read.
type memDesk struct {
	s    *memStore
	desk string
}

// Search searches the desk's current log, by brute force: it counts every row of the
// desk as read.
func (d memDesk) Search(ctx context.Context, q transcript.SearchQuery) (transcript.SearchResult, error) {
	d.s.mu.Lock()
	log := d.s.desks[d.desk]
	d.s.mu.Unlock()
	if log == nil {
		log = memlog.New()
	}
	d.s.rowsRead.Add(int64(log.Head()))
	return log.Search(ctx, q)
}

// SearchWork implements SearchWorkCounter: memlog reads no index, and every row.
func (d memDesk) SearchWork() (entries, rows int64) { return 0, d.s.rowsRead.Load() }

func (d memDesk) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	d.s.mu.Lock()
	log := d.s.desks[d.desk]
	d.s.mu.Unlock()
	if log == nil {
		log = memlog.New()
	}
	return log.ReadBefore(ctx, before, limit)
}
