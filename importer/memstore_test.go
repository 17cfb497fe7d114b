package importer

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/storage"
)

// memStore is a Store keeping desks in memory, for the importer's tests: a
// batch is settled by storage.Batch and written, its corrections
// applied, all or nothing, as the stores do.
type memStore struct {
	desks map[string][]transcript.Message
}

var _ Store = (*memStore)(nil)

func newMemStore() *memStore { return &memStore{desks: map[string][]transcript.Message{}} }

func (s *memStore) Append(ctx context.Context, desk string, m transcript.Message) (transcript.Message, error) {
	rows, err := s.write(desk, []transcript.Message{m}, false)
	if err != nil {
		return transcript.Message{}, err
	}
	return rows[0], nil
}

// AppendNew is Append that also says whether it stored a new row.
func (s *memStore) AppendNew(ctx context.Context, desk string, m transcript.Message) (transcript.Message, bool, error) {
	n := len(s.desks[desk])
	stored, err := s.Append(ctx, desk, m)
	return stored, err == nil && len(s.desks[desk]) > n, err
}

func (s *memStore) AppendBatch(ctx context.Context, desk string, msgs []transcript.Message) error {
	_, err := s.write(desk, msgs, false)
	return err
}

func (s *memStore) RestoreBatch(ctx context.Context, desk string, rows []transcript.Message) error {
	_, err := s.write(desk, rows, true)
	return err
}

// write appends msgs to desk, or restores them, and returns the rows settled.
func (s *memStore) write(desk string, msgs []transcript.Message, restored bool) ([]transcript.Message, error) {
	rows := s.desks[desk]
	stored := make(map[transcript.Sequence]transcript.Message, len(rows))
	present := map[string]*transcript.Message{}
	for i := range rows {
		stored[rows[i].Seq] = rows[i]
		if rows[i].Key != "" {
			present[rows[i].Key] = &rows[i]
		}
	}
	b := storage.Batch{Desk: desk, Messages: msgs, Restore: restored}
	settled, err := b.Settle(transcript.Sequence(len(rows)), stored, present)
	if ae := (*transcript.AppendError)(nil); errors.As(err, &ae) {
		return nil, fmt.Errorf("message %d: %w", ae.Index, ae.Err)
	}
	out := append([]transcript.Message(nil), rows...)
	for _, r := range settled.Revisions {
		for k := range out {
			r.Apply(&out[k])
		}
	}
	s.desks[desk] = append(out, settled.Added...)
	return settled.Rows, nil
}

func (s *memStore) LookupKeys(ctx context.Context, desk string, keys []string) (map[string]transcript.Message, error) {
	want := make(map[string]bool, len(keys))
	for _, k := range keys {
		want[k] = true
	}
	found := map[string]transcript.Message{}
	for _, m := range s.desks[desk] {
		if m.Key != "" && want[m.Key] {
			found[m.Key] = m
		}
	}
	return found, nil
}

func (s *memStore) Desks(context.Context) ([]string, error) {
	return slices.Sorted(maps.Keys(s.desks)), nil
}

func (s *memStore) Log(desk string) transcript.Log {
	log, err := memlog.From(s.desks[desk])
	if err != nil {
		panic(err) // the store wrote rows memlog refuses: the test is wrong
	}
	return log
}
