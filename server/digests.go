package server

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/internal/readable"
	"github.com/sharedesk/transcript/server/internal/fanout"
)

// maxFolders is how many folds run at once, all desks together: the background's and the
// route's.
const maxFolders = 2

// foldDelay is how long a queued fold waits before it starts: the appends of a burst in
// that time ask for one fold, not one each.
const foldDelay = 100 * time.Millisecond

// folder runs the folds of a server whose Options name a Digester. In the background, after
// an append: the fold of the desk's channel and of the appended reply's thread (after a
// correction, of the corrected row's), each in its own turn, foldDelay after the append. A conversation has at most one background fold
// queued; an append while it waits is coalesced into it, and one while a fold of the
// conversation runs asks for one more after it. At most maxFolders goroutines fold in the
// background, and none runs while nothing is queued.
//
// Every fold, the background's and the route's, takes the conversation's gate first (begin):
// one fold of a conversation runs at a time, and at most maxFolders of all. Its digester's
// every call is bounded by the server's DigestTimeout. Each digest it stores is noted in
// notes, once the store took it.
type folder struct {
	st     Store
	d      digest.Named // bounded by the server's DigestTimeout
	policy digest.Policy
	logger *slog.Logger
	notes  *fanout.DigestNotes
	slots  chan struct{} // one held by each fold that runs

	ctx    context.Context // cancelled by close: folds in flight end
	cancel context.CancelFunc
	wg     sync.WaitGroup // the folding goroutines

	mu      sync.Mutex
	closed  bool
	queue   []transcript.Conversation
	state   map[transcript.Conversation]*foldState
	workers int
	failed  map[transcript.Conversation]string // the last failure logged of each conversation

	noDigests sync.Once // the log line for a store that keeps no digests
}

// foldState is where a conversation is in the folder; a conversation with none of it has
// no entry.
type foldState struct {
	queued  bool          // a background fold is queued, or waits to begin
	again   bool          // a background fold is wanted after the one running
	running chan struct{} // while a fold runs (the gate is taken); closed when it ends
}

func (s *foldState) idle() bool { return !s.queued && !s.again && s.running == nil }

func newFolder(st Store, d digest.Digester, p digest.Policy, timeout time.Duration, logger *slog.Logger, notes *fanout.DigestNotes) *folder {
	ctx, cancel := context.WithCancel(context.Background())
	return &folder{
		st: st, d: digest.Bounded(d, timeout), policy: p, logger: logger, notes: notes, slots: make(chan struct{}, maxFolders),
		ctx: ctx, cancel: cancel, state: map[transcript.Conversation]*foldState{}, failed: map[transcript.Conversation]string{},
	}
}

// appended asks for the folds m's append makes due: its desk's channel, and the thread m
// replies in. An aside, and a correction of one, change no digest's rows, so they ask for
// none. A correction of a desk row may have deleted the digests that stand for the row: it
// asks for the folds of the channel and of the row's thread (corrected), which fold again
// from below the row.
func (f *folder) appended(desk string, m transcript.Message) {
	switch {
	case f == nil || len(m.Audience) > 0:
		return
	case m.IsCorrection():
		f.corrected(desk, m.Corrects)
		return
	}
	f.enqueue(transcript.Conversation{Desk: desk})
	if m.Parent != 0 {
		f.enqueue(transcript.Conversation{Desk: desk, Thread: m.Parent})
	}
}

// corrected asks for the folds of desk's channel and of the thread row seq is in (the
// row's own when it is a root, else its parent's), which it reads in the background: an
// append's answer never waits for it.
func (f *folder) corrected(desk string, seq transcript.Sequence) {
	f.enqueue(transcript.Conversation{Desk: desk})
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		row, ok, err := readable.Row(f.ctx, f.st.Log(desk), seq, transcript.Operator())
		switch {
		case err != nil || !ok:
		case row.Parent != 0:
			f.enqueue(transcript.Conversation{Desk: desk, Thread: row.Parent})
		default:
			f.enqueue(transcript.Conversation{Desk: desk, Thread: seq})
		}
	}()
}

// enqueue asks for a background fold of c: queued once however often it is asked while it
// waits, and once more after the fold of c that runs now.
func (f *folder) enqueue(c transcript.Conversation) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	s := f.state[c]
	switch {
	case s == nil:
		s = &foldState{}
		f.state[c] = s
	case s.queued || s.again:
		return
	case s.running != nil:
		s.again = true
		return
	}
	f.push(c, s)
}

// push queues c, whose state is s, and starts a folding goroutine if fewer than
// maxFolders run. f.mu is held.
func (f *folder) push(c transcript.Conversation, s *foldState) {
	s.queued = true
	f.queue = append(f.queue, c)
	if f.workers < maxFolders {
		f.workers++
		f.wg.Add(1)
		go f.work()
	}
}

// begin takes c's gate: it waits until no other fold of c runs and one of the maxFolders
// slots is free, and returns the end of the fold, which gives both back (and queues the
// background fold asked for meanwhile). It returns ctx's error, holding nothing, when ctx
// ends first.
func (f *folder) begin(ctx context.Context, c transcript.Conversation) (end func(), err error) {
	for {
		f.mu.Lock()
		s := f.state[c]
		if s == nil {
			s = &foldState{}
			f.state[c] = s
		}
		running := s.running
		if running == nil {
			s.running = make(chan struct{})
		}
		f.mu.Unlock()
		if running == nil {
			break
		}
		select {
		case <-running:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	select {
	case f.slots <- struct{}{}:
	case <-ctx.Done():
		f.release(c)
		return nil, ctx.Err()
	}
	return func() {
		<-f.slots
		f.release(c)
	}, nil
}

// release gives back c's gate, and queues the background fold asked for while it was taken.
func (f *folder) release(c transcript.Conversation) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.state[c]
	close(s.running)
	s.running = nil
	if s.again && !f.closed {
		s.again = false
		f.push(c, s)
	}
	if s.idle() {
		delete(f.state, c)
	}
}

// work folds queued conversations until none is left.
func (f *folder) work() {
	defer f.wg.Done()
	for {
		f.mu.Lock()
		if len(f.queue) == 0 || f.closed {
			f.workers--
			f.mu.Unlock()
			return
		}
		c := f.queue[0]
		f.queue = f.queue[1:]
		f.mu.Unlock()

		select { // appends to c meanwhile find it queued
		case <-time.After(foldDelay):
		case <-f.ctx.Done():
		}
		end, err := f.begin(f.ctx, c)
		f.mu.Lock()
		if s := f.state[c]; s != nil {
			s.queued = false
			if s.idle() {
				delete(f.state, c)
			}
		}
		f.mu.Unlock()
		if err != nil { // closing
			continue
		}
		f.fold(c)
		end()
	}
}

// fold folds c as often as the policy allows now (an older backlog folds over several),
// and logs a failure once, not again while c's folds keep failing the same way: what
// failed and where, never a row's words or the key. Its caller holds c's gate.
func (f *folder) fold(c transcript.Conversation) {
	st, ok := f.st.Log(c.Desk).(digest.Store)
	if !ok {
		f.noDigests.Do(func() {
			f.logger.Warn("the store keeps no digests: the server folds none")
		})
		return
	}
	switch _, _, err := f.foldAll(f.ctx, st, f.d, c); {
	case err != nil && f.ctx.Err() != nil: // closing
	case errors.Is(err, digest.ErrNoConversation) || errors.Is(err, digest.ErrSuperseded):
		// a reply to a reply (no thread's root), or another fold stored one
	case err != nil:
		f.mu.Lock()
		again := f.failed[c] == err.Error()
		f.failed[c] = err.Error()
		f.mu.Unlock()
		if !again {
			f.logger.Warn("background fold failed", "desk", c.Desk, "thread", uint64(c.Thread), "err", err)
		}
	default:
		f.mu.Lock()
		delete(f.failed, c)
		f.mu.Unlock()
	}
}

// foldAll folds c with d as often as the policy allows now (an older backlog folds over
// several generations), noting each digest stored, until a fold stores none or fails. It
// returns the last fold's digest (the newest held), whether any fold stored one, and the
// failure that ended it.
func (f *folder) foldAll(ctx context.Context, st digest.Store, d digest.Digester, c transcript.Conversation) (transcript.Digest, bool, error) {
	stored := false
	for {
		held, folded, err := digest.Fold(ctx, st, d, f.policy, c)
		if folded {
			stored = true
			f.notes.Changed(c)
		}
		if err != nil || !folded {
			return held, stored, err
		}
	}
}

// close cancels the background folds in flight, refuses new ones and waits for the
// goroutines.
func (f *folder) close() {
	if f == nil {
		return
	}
	f.mu.Lock()
	f.closed = true
	f.queue = nil
	f.mu.Unlock()
	f.cancel()
	f.wg.Wait()
}

type digestInput struct {
	Desk   string              `path:"desk" doc:"The desk: the token's."`
	Thread transcript.Sequence `query:"thread" doc:"The root of the thread to fold; 0 or absent: the channel."`
}

type digestOutput struct{ Body DigestAnswer }

// DigestAnswer is the answer of POST /v1/desks/{desk}/digest.
type DigestAnswer struct {
	// Digest is the conversation's newest digest after the fold: the one it stored, or
	// the one held before; nil when it has none.
	Digest *transcript.Digest `json:"digest,omitempty" doc:"The conversation's newest digest after the fold (the new one when folded, else the one held); absent when it has none."`
	// Folded tells whether the fold stored a new generation.
	Folded bool `json:"folded" doc:"Whether the fold stored a new digest."`
	// Refused says why the digester's text was not stored, when it was not.
	Refused string `json:"refused,omitempty" doc:"Why no new digest was stored although rows were due: the digester failed, timed out or wrote a text the rules refuse (blank, over the budget), or another fold or a correction overtook this one. Names no row's words."`
}

func (s *Server) digestOperation() huma.Operation {
	op := s.operation("foldDigest", http.MethodPost, "/v1/desks/{desk}/digest",
		"Fold the channel's or a thread's digest now (operator tokens only)", true,
		http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusNotImplemented)
	op.Description = "Folds the conversation's rows that are due, as the server's background folding would, with the server's digester and policy, " +
		"and answers its newest digest: a backlog larger than the policy's input limit folds over several generations, each its own call of the digester. One fold of a conversation runs at a time: when one is running (the background's or another request's), " +
		"this request waits for it to end and then folds what is still due, so requests at once ask the digester once for the same rows " +
		"and the later ones answer the digest the first stored, with folded false. " +
		"The digester's answer is bounded by the server's digest timeout (serve --digest-timeout): past it the held digest stays and refused says so. " +
		"403 for any token but the operator's; 404 for a thread that does not exist or a desk that holds no row; " +
		"400 for a thread whose row is not a root; 501 when the server folds no digests (serve --digester none) or its store keeps none."
	return op
}

// errNoDigests is the refusal of a server that folds no digests.
var errNoDigests = kindNotImplemented.problem("the server folds no digests")

// foldDigest folds in.Thread's conversation now, for an operator.
func (s *Server) foldDigest(ctx context.Context, in *digestInput) (*digestOutput, error) {
	if err := s.opService().OperatorOnly(ctx, "fold digests"); err != nil {
		return nil, err
	}
	if s.folds == nil {
		return nil, errNoDigests
	}
	st, ok := s.st.Log(in.Desk).(digest.Store)
	if !ok {
		return nil, kindNotImplemented.problem("the desk's store keeps no digests")
	}
	if err := s.checkThread(ctx, in.Desk, in.Thread, transcript.Operator()); err != nil {
		return nil, err
	}
	c := transcript.Conversation{Desk: in.Desk, Thread: in.Thread}
	end, err := s.folds.begin(ctx, c)
	if err != nil {
		return nil, s.internal(ctx, err)
	}
	defer end()
	rec := &recordingDigester{Named: s.folds.d}
	d, folded, err := s.folds.foldAll(ctx, st, rec, c)
	out := &digestOutput{Body: DigestAnswer{Folded: folded}}
	if d.Generation > 0 {
		out.Body.Digest = &d
	}
	switch {
	case err == nil:
	case errors.Is(err, digest.ErrNoConversation) && in.Thread != 0:
		return nil, kindInvalidRequest.problem("thread: the row is not a root of the desk")
	case errors.Is(err, digest.ErrNoConversation):
		return nil, kindNotFound.problem("no such desk: it holds no row")
	case errors.Is(err, digest.ErrRefused) || errors.Is(err, digest.ErrSuperseded) || rec.failed():
		out.Body.Refused = err.Error()
	default:
		return nil, s.internal(ctx, err)
	}
	return out, nil
}

// recordingDigester is a Digester that remembers whether its Digest failed, so that a
// digester's failure can be told from the store's. Its Name is the wrapped digester's.
type recordingDigester struct {
	digest.Named
	mu  sync.Mutex
	err error
}

func (r *recordingDigester) Digest(ctx context.Context, req digest.Request) (string, error) {
	text, err := r.Named.Digest(ctx, req)
	if err == nil {
		err = ctx.Err()
	}
	r.mu.Lock()
	r.err = err
	r.mu.Unlock()
	return text, err
}

func (r *recordingDigester) failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err != nil
}
