package storetest

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/sharing"
	"github.com/sharedesk/transcript/token"
)

// TestRunMemStore runs the suite against memStore, a simple store kept in memory, so the
// suite is tested without a database.
func TestRunMemStore(t *testing.T) {
	Run(t, func(t *testing.T) Store { return newMemStore(DefaultMaxContent) })
}

func TestContentLimitMemStore(t *testing.T) {
	for _, limit := range []int{2, 3, 1000} {
		ContentLimit(t, newMemStore(limit), limit)
	}
}

// memStore is a Store over one memlog.Log per desk, a token.Store over a map of tokens
// by hash, serialised by one mutex, and sharing's reference BookStore.
type memStore struct {
	sharing.MemBookStore
	mu         sync.Mutex
	desks      map[string]*memlog.Log
	tokens     map[[32]byte]token.Token
	maxContent int
}

var _ token.Store = (*memStore)(nil)

func newMemStore(maxContent int) *memStore {
	return &memStore{desks: make(map[string]*memlog.Log), tokens: make(map[[32]byte]token.Token), maxContent: maxContent}
}

func (s *memStore) Append(ctx context.Context, desk string, m transcript.Message) (transcript.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(desk, m, -1); err != nil {
		return transcript.Message{}, err
	}
	log := s.desks[desk]
	if log == nil {
		log = memlog.New()
	}
	if m.Parent >= log.Head()+1 {
		return transcript.Message{}, fmt.Errorf("%w: %w: parent %d is not older", transcript.ErrInvalidMessage, transcript.ErrNoParent, m.Parent)
	}
	m.At = stamp(m.At)
	got, err := log.Append(ctx, m)
	if err == nil {
		s.desks[desk] = log
	}
	return got, err
}

func (s *memStore) AppendBatch(ctx context.Context, desk string, msgs []transcript.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	log := s.desks[desk]
	if log == nil {
		log = memlog.New()
	}
	rows := log.Messages()
	byKey := make(map[string]int) // key → index in rows
	for i, m := range rows {
		if m.Key != "" {
			byKey[m.Key] = i
		}
	}
	head := log.Head()
	seqOf := make([]transcript.Sequence, len(msgs)) // each batch message's stored Seq
	inBatch := make(map[string]bool)
	added := 0
	for i, m := range msgs {
		if err := s.check(desk, m, i); err != nil {
			return err
		}
		if m.Key != "" && inBatch[m.Key] {
			return fmt.Errorf("%w: %w: message %d: key %q twice in the batch", transcript.ErrInvalidMessage, transcript.ErrDuplicateKey, i, m.Key)
		}
		inBatch[m.Key] = m.Key != ""
		seq := head + 1 + transcript.Sequence(added)
		if j, ok := m.Parent.BatchIndex(); ok {
			m.Parent = seqOf[j]
		} else if m.Parent >= seq {
			return fmt.Errorf("%w: %w: message %d: parent %d is not older", transcript.ErrInvalidMessage, transcript.ErrNoParent, i, m.Parent)
		}
		var parent *transcript.Message
		if m.Parent != 0 {
			parent = &rows[m.Parent-1]
		}
		audience, err := transcript.ResolveAudience(m, parent)
		if err != nil {
			return err
		}
		m.Audience = audience
		if k, ok := byKey[m.Key]; ok && m.Key != "" {
			if err := transcript.MatchKey(rows[k], m); err != nil {
				return err
			}
			seqOf[i] = rows[k].Seq
			continue
		}
		m.Seq, m.At = seq, stamp(m.At)
		seqOf[i] = seq
		byKey[m.Key] = len(rows)
		rows = append(rows, m)
		added++
	}
	if added == 0 {
		return nil
	}
	next, err := memlog.From(rows)
	if err != nil {
		return err
	}
	s.desks[desk] = next
	return nil
}

func (s *memStore) check(desk string, m transcript.Message, index int) error {
	if desk == "" || !storable(desk) {
		return fmt.Errorf("%w: bad desk name", transcript.ErrInvalidMessage)
	}
	if err := transcript.ValidateNew(m); err != nil {
		return err
	}
	if !storable(m.Author.ID) || !storable(m.Author.Label) || !storable(m.Content) || len(m.Content) > s.maxContent {
		return fmt.Errorf("%w: bad author or content", transcript.ErrInvalidMessage)
	}
	if j, ok := m.Parent.BatchIndex(); ok && j >= index {
		return fmt.Errorf("%w: %w: bad BatchParent", transcript.ErrInvalidMessage, transcript.ErrNoParent)
	}
	return nil
}

// storable reports whether s is text the stores keep: valid UTF-8 without a NUL byte.
func storable(s string) bool { return utf8.ValidString(s) && !strings.Contains(s, "\x00") }

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

func (d memDesk) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	d.s.mu.Lock()
	log := d.s.desks[d.desk]
	d.s.mu.Unlock()
	if log == nil {
		log = memlog.New()
	}
	return log.ReadBefore(ctx, before, limit)
}

func (s *memStore) AddToken(ctx context.Context, t token.Token) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := t.Validate(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range s.tokens {
		if u.ID == t.ID || u.Hash == t.Hash {
			return fmt.Errorf("memstore: token %s: %w", t.ID, token.ErrExists)
		}
	}
	t.Created = token.Floor(t.Created)
	if t.IsRevoked() {
		t.Revoked = token.Floor(t.Revoked)
	}
	s.tokens[t.Hash] = t
	return nil
}

func (s *memStore) TokenByHash(ctx context.Context, hash [32]byte) (token.Token, error) {
	if err := ctx.Err(); err != nil {
		return token.Token{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.tokens[hash]; ok {
		return t, nil
	}
	return token.Token{}, fmt.Errorf("memstore: %w", token.ErrUnknown)
}

func (s *memStore) Tokens(ctx context.Context) ([]token.Token, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	all := slices.Collect(func(yield func(token.Token) bool) {
		for _, t := range s.tokens {
			if !yield(t) {
				return
			}
		}
	})
	slices.SortFunc(all, func(a, b token.Token) int {
		return cmp.Or(a.Created.Compare(b.Created), strings.Compare(a.ID, b.ID))
	})
	return all, nil
}

func (s *memStore) RevokeToken(ctx context.Context, id string, at time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !token.IsID(id) {
		return fmt.Errorf("memstore: not a token id: %w", token.ErrUnknown)
	}
	if err := token.CheckRevocation(at); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for hash, t := range s.tokens {
		if t.ID != id {
			continue
		}
		if !t.IsRevoked() {
			t.Revoked = token.Floor(at)
			s.tokens[hash] = t
		}
		return nil
	}
	return fmt.Errorf("memstore: token %q: %w", id, token.ErrUnknown)
}
