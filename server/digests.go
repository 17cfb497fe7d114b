package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/server/internal/fanout"
)

// maxFolders is how many background folds run at once, all desks together.
const maxFolders = 2

// foldDelay is how long a queued fold waits before it starts: the appends of a burst in
// that time ask for one fold, not one each.
const foldDelay = 100 * time.Millisecond

// folder runs the background folds of a server whose Options name a Digester: after an
// append, the fold of the desk's channel and of the appended reply's thread, each in its
// own turn, foldDelay after the append. A conversation has at most one fold queued and one
// running; an append while it waits is coalesced into it, and one while it runs asks for
// one more after it. At most maxFolders goroutines fold, and none runs while nothing is
// queued. Each digest it stores is noted in notes, once the store took it.
type folder struct {
	st     Store
	d      digest.Digester
	policy digest.Policy
	logger *slog.Logger
	notes  *fanout.DigestNotes

	ctx    context.Context // cancelled by close: folds in flight end
	cancel context.CancelFunc
	wg     sync.WaitGroup // the folding goroutines

	mu      sync.Mutex
	closed  bool
	queue   []transcript.Conversation
	state   map[transcript.Conversation]foldState
	workers int
	failed  map[transcript.Conversation]string // the last failure logged of each conversation

	noDigests sync.Once // the log line for a store that keeps no digests
}

// foldState is where a conversation is in the folder: queued, running, or running with
// another fold asked for.
type foldState uint8

const (
	foldQueued foldState = iota + 1
	foldRunning
	foldAgain
)

func newFolder(st Store, d digest.Digester, p digest.Policy, logger *slog.Logger, notes *fanout.DigestNotes) *folder {
	ctx, cancel := context.WithCancel(context.Background())
	return &folder{st: st, d: d, policy: p, logger: logger, notes: notes, ctx: ctx, cancel: cancel, state: map[transcript.Conversation]foldState{}, failed: map[transcript.Conversation]string{}}
}

// appended asks for the folds m's append makes due: its desk's channel, and the thread m
// replies in. An aside and a correction change no digest's rows, so they ask for none.
func (f *folder) appended(desk string, m transcript.Message) {
	if f == nil || len(m.Audience) > 0 || m.IsCorrection() {
		return
	}
	f.enqueue(transcript.Conversation{Desk: desk})
	if m.Parent != 0 {
		f.enqueue(transcript.Conversation{Desk: desk, Thread: m.Parent})
	}
}

// enqueue asks for a fold of c: queued once however often it is asked while it waits, and
// once more after the fold that runs now.
func (f *folder) enqueue(c transcript.Conversation) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	switch f.state[c] {
	case foldQueued, foldAgain:
		return
	case foldRunning:
		f.state[c] = foldAgain
		return
	}
	f.state[c] = foldQueued
	f.queue = append(f.queue, c)
	if f.workers < maxFolders {
		f.workers++
		f.wg.Add(1)
		go f.work()
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
		f.mu.Lock()
		f.state[c] = foldRunning
		f.mu.Unlock()

		f.fold(c)

		f.mu.Lock()
		if f.state[c] == foldAgain && !f.closed {
			f.state[c] = foldQueued
			f.queue = append(f.queue, c)
		} else {
			delete(f.state, c)
		}
		f.mu.Unlock()
	}
}

// fold folds c as often as the policy allows now (an older backlog folds over several),
// and logs a failure once, not again while c's folds keep failing the same way: what
// failed and where, never a row's words or the key.
func (f *folder) fold(c transcript.Conversation) {
	st, ok := f.st.Log(c.Desk).(digest.Store)
	if !ok {
		f.noDigests.Do(func() {
			f.logger.Warn("the store keeps no digests: the server folds none")
		})
		return
	}
	for f.ctx.Err() == nil {
		_, folded, err := digest.Fold(f.ctx, st, f.d, f.policy, c)
		switch {
		case err != nil && f.ctx.Err() != nil: // closing
			return
		case errors.Is(err, digest.ErrNoConversation) || errors.Is(err, digest.ErrSuperseded):
			return // a reply to a reply (no thread's root), or another fold stored one
		case err != nil:
			f.mu.Lock()
			again := f.failed[c] == err.Error()
			f.failed[c] = err.Error()
			f.mu.Unlock()
			if !again {
				f.logger.Warn("background fold failed", "desk", c.Desk, "thread", uint64(c.Thread), "err", err)
			}
			return
		}
		f.mu.Lock()
		delete(f.failed, c)
		f.mu.Unlock()
		if !folded {
			return
		}
		f.notes.Changed(c)
	}
}

// close cancels the folds in flight, refuses new ones and waits for the goroutines.
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
		"and answers its newest digest. 403 for any token but the operator's; 404 for a thread that does not exist or a desk that holds no row; " +
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
	rec := &recordingDigester{Digester: s.folds.d}
	d, folded, err := digest.Fold(ctx, st, rec, s.folds.policy, c)
	if folded {
		s.folds.notes.Changed(c)
	}
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
// digester's failure can be told from the store's.
type recordingDigester struct {
	digest.Digester
	mu  sync.Mutex
	err error
}

func (r *recordingDigester) Digest(ctx context.Context, req digest.Request) (string, error) {
	text, err := r.Digester.Digest(ctx, req)
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

// Name is the wrapped digester's name, which the digests it writes carry.
func (r *recordingDigester) Name() string {
	if n, ok := r.Digester.(digest.Named); ok {
		return n.Name()
	}
	return fmt.Sprintf("%T", r.Digester)
}
