package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/storage"
)

var _ digest.Store = memDesk{}

// brokenDigests is one thing a memStore's digests get wrong, for TestDigestRuleCatches;
// "" is none.
type brokenDigests string

const (
	keptOnCorrection brokenDigests = "a correction deletes no digest"
	rootThreadGone   brokenDigests = "a correction of a root deletes its thread's digests too"
	belowGone        brokenDigests = "a correction deletes the digests below the row too"
	anyGeneration    brokenDigests = "PutDigest stores any generation"
	readIgnored      brokenDigests = "PutDigest does not look for corrections after read"
	boundIgnored     brokenDigests = "Digest ignores its bound"
	oldestFirst      brokenDigests = "Digest returns the oldest digest below its bound"
	unchecked        brokenDigests = "PutDigest stores a digest no fold could make"
)

// TestDigestRuleCatches runs DigestRule's checks on memStores whose digests each get one
// thing wrong: each is caught by some check.
func TestDigestRuleCatches(t *testing.T) {
	for _, broken := range []brokenDigests{keptOnCorrection, rootThreadGone, belowGone, anyGeneration, readIgnored, boundIgnored, oldestFirst, unchecked} {
		t.Run(string(broken), func(t *testing.T) {
			st := newMemStore(transcript.MaxContent)
			st.broken = broken
			n := 0
			newDesk := func() DigestDesk {
				n++
				return DigestDeskOf(t, st, fmt.Sprintf("desk-%d", n))
			}
			var caught []string
			for _, c := range digestChecks {
				if failures := runDigestCheck(t, c.run, newDesk); len(failures) > 0 {
					caught = append(caught, c.name)
				}
			}
			if len(caught) == 0 {
				t.Errorf("no check caught it")
			}
			t.Logf("caught by %v", caught)
		})
	}
}

// runDigestCheck runs check on desks from newDesk and returns its failures.
func runDigestCheck(t *testing.T, check func(t reporter, newDesk func() DigestDesk), newDesk func() DigestDesk) (failures []string) {
	r := &recorder{ctx: t.Context()}
	defer func() {
		if x := recover(); x != nil && x != errFatal {
			panic(x)
		}
		failures = r.failures
	}()
	check(r, newDesk)
	return nil
}

// dropDigests deletes what a correction of row deletes: the digests of its channel and of
// its parent's thread whose Through is at or above its Seq. The caller holds s.mu.
func (s *memStore) dropDigests(desk string, row transcript.Message) {
	if s.digests == nil || s.broken == keptOnCorrection {
		return
	}
	threads := []transcript.Sequence{0, row.Parent}
	if s.broken == rootThreadGone && row.Parent == 0 {
		threads = append(threads, row.Seq)
	}
	for _, thread := range threads {
		c := transcript.Conversation{Desk: desk, Thread: thread}
		gens := s.digests[c]
		for len(gens) > 0 && (gens[len(gens)-1].Through >= row.Seq || s.broken == belowGone) {
			gens = gens[:len(gens)-1]
		}
		s.digests[c] = gens
	}
}

func (d memDesk) Digest(_ context.Context, c transcript.Conversation, below transcript.Sequence) (transcript.Digest, bool, error) {
	if err := storage.CheckDigestDesk(d.desk, c); err != nil {
		return transcript.Digest{}, false, err
	}
	c.Desk = d.desk // an empty Desk is the log's own
	d.s.mu.Lock()
	defer d.s.mu.Unlock()
	gens := d.s.digests[c]
	if d.s.broken == boundIgnored {
		below = 0
	}
	if d.s.broken == oldestFirst {
		for _, g := range gens {
			if below == 0 || g.Through < below {
				return g, true, nil
			}
		}
	}
	for i := len(gens) - 1; i >= 0; i-- {
		if below == 0 || gens[i].Through < below {
			return gens[i], true, nil
		}
	}
	return transcript.Digest{}, false, nil
}

func (d memDesk) PutDigest(_ context.Context, dg transcript.Digest, read transcript.Sequence) error {
	if err := storage.CheckDigest(d.desk, dg, read); err != nil && d.s.broken != unchecked {
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
	if (newest.Generation != dg.Generation-1 || newest.Through >= dg.Through) && d.s.broken != anyGeneration {
		return fmt.Errorf("%w: the newest digest is generation %d", digest.ErrSuperseded, newest.Generation)
	}
	for _, m := range log.Messages()[min(read, log.Head()):] {
		if m.Corrects != 0 && m.Corrects <= dg.Through && d.s.broken != readIgnored {
			return fmt.Errorf("%w: row %d corrects row %d", digest.ErrSuperseded, m.Seq, m.Corrects)
		}
	}
	if d.s.digests == nil {
		d.s.digests = make(map[transcript.Conversation][]transcript.Digest)
	}
	d.s.digests[dg.Conversation] = append(gens, dg)
	return nil
}
