package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/storage"
)

var (
	_ digest.Store = memDesk{}
	_ DeskDeleter  = (*memStore)(nil)
)

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
	deskIgnored      brokenDigests = "PutDigest stores what was read of a desk deleted since"
	asideDeletes     brokenDigests = "a correction of an aside deletes digests"
	asideSupersedes  brokenDigests = "a correction of an aside supersedes a fold"
)

// TestDigestRuleCatches runs DigestRule's checks on memStores whose digests each get one
// thing wrong: each is caught by some check.
func TestDigestRuleCatches(t *testing.T) {
	for _, broken := range []brokenDigests{keptOnCorrection, rootThreadGone, belowGone, anyGeneration, readIgnored, boundIgnored, oldestFirst, unchecked, deskIgnored, asideDeletes, asideSupersedes} {
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
// its parent's thread whose Through is at or above its Seq, none for an aside. The caller
// holds s.mu.
func (s *memStore) dropDigests(desk string, row transcript.Message) {
	if s.digests == nil || s.broken == keptOnCorrection || row.IsAside() && s.broken != asideDeletes {
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

// DeleteDesk deletes desk's rows and digests; its books and tokens stay.
func (s *memStore) DeleteDesk(_ context.Context, desk string, _ bool) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var head int64
	if log := s.desks[desk]; log != nil {
		head = int64(log.Head())
	}
	delete(s.desks, desk)
	delete(s.deskIDs, desk)
	for c := range s.digests {
		if c.Desk == desk {
			delete(s.digests, c)
		}
	}
	return head, nil
}

// deskID returns desk's Desk in a storage.DigestRead, 0 while it holds no row. The caller
// holds s.mu.
func (s *memStore) deskID(desk string) int64 {
	if s.desks[desk] == nil {
		return 0
	}
	if s.deskIDs[desk] == 0 {
		if s.deskIDs == nil {
			s.deskIDs = make(map[string]int64)
		}
		s.lastDeskID++
		s.deskIDs[desk] = s.lastDeskID
	}
	return s.deskIDs[desk]
}

func (d memDesk) DigestRead(context.Context) (storage.DigestRead, error) {
	d.s.mu.Lock()
	defer d.s.mu.Unlock()
	r := storage.DigestRead{Desk: d.s.deskID(d.desk)}
	if log := d.s.desks[d.desk]; log != nil {
		r.Head = log.Head()
	}
	return r, nil
}

func (d memDesk) PutDigest(_ context.Context, dg transcript.Digest, r storage.DigestRead) error {
	read := r.Head
	if err := storage.CheckDigest(d.desk, dg, read); err != nil && d.s.broken != unchecked {
		return err
	}
	d.s.mu.Lock()
	defer d.s.mu.Unlock()
	log := d.s.desks[d.desk]
	if log == nil || log.Head() < read {
		return fmt.Errorf("%w: the desk holds fewer rows than the fold read", digest.ErrSuperseded)
	}
	if r.Desk != d.s.deskID(d.desk) && d.s.broken != deskIgnored {
		return fmt.Errorf("%w: the desk was deleted since the fold read it", digest.ErrSuperseded)
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
		if m.Corrects != 0 && m.Corrects <= dg.Through && d.s.broken != readIgnored && (!m.IsAside() || d.s.broken == asideSupersedes) {
			return fmt.Errorf("%w: row %d corrects row %d", digest.ErrSuperseded, m.Seq, m.Corrects)
		}
	}
	if d.s.digests == nil {
		d.s.digests = make(map[transcript.Conversation][]transcript.Digest)
	}
	d.s.digests[dg.Conversation] = append(gens, dg)
	return nil
}
