package storetest

import (
	"context"
	"fmt"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/storage"
)

var _ digest.Store = memDesk{}

// dropDigests deletes what a correction of row deletes: the digests of its channel and of
// its parent's thread whose Through is at or above its Seq. The caller holds s.mu.
func (s *memStore) dropDigests(desk string, row transcript.Message) {
	if s.digests == nil {
		return
	}
	for _, thread := range []transcript.Sequence{0, row.Parent} {
		c := transcript.Conversation{Desk: desk, Thread: thread}
		gens := s.digests[c]
		for len(gens) > 0 && gens[len(gens)-1].Through >= row.Seq {
			gens = gens[:len(gens)-1]
		}
		s.digests[c] = gens
	}
}

func (d memDesk) Digest(_ context.Context, c transcript.Conversation, below transcript.Sequence) (transcript.Digest, bool, error) {
	if err := storage.CheckDigestDesk(d.desk, c); err != nil {
		return transcript.Digest{}, false, err
	}
	d.s.mu.Lock()
	defer d.s.mu.Unlock()
	gens := d.s.digests[c]
	for i := len(gens) - 1; i >= 0; i-- {
		if below == 0 || gens[i].Through < below {
			return gens[i], true, nil
		}
	}
	return transcript.Digest{}, false, nil
}

func (d memDesk) PutDigest(_ context.Context, dg transcript.Digest, read transcript.Sequence) error {
	if err := storage.CheckDigest(d.desk, dg, read); err != nil {
		return err
	}
	d.s.mu.Lock()
	defer d.s.mu.Unlock()
	log := d.s.desks[d.desk]
	if log == nil || log.Head() < read {
		return fmt.Errorf("%w: the desk holds fewer rows than the fold read", digest.ErrSuperseded)
	}
	gens := d.s.digests[dg.Conversation]
	var newest transcript.Digest
	if len(gens) > 0 {
		newest = gens[len(gens)-1]
	}
	if newest.Generation != dg.Generation-1 || newest.Through >= dg.Through {
		return fmt.Errorf("%w: the newest digest is generation %d", digest.ErrSuperseded, newest.Generation)
	}
	for _, m := range log.Messages()[read:] {
		if m.Corrects != 0 && m.Corrects <= dg.Through {
			return fmt.Errorf("%w: row %d corrects row %d", digest.ErrSuperseded, m.Seq, m.Corrects)
		}
	}
	if d.s.digests == nil {
		d.s.digests = make(map[transcript.Conversation][]transcript.Digest)
	}
	d.s.digests[dg.Conversation] = append(gens, dg)
	return nil
}
