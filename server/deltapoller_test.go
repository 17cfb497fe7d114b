package server_test

import (
	"bytes"
	stdcmp "cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/sharing"
)

// deltaPoller is a workload's client of the delta route: once its desk's large rows are
// answered it asks for the delta of its viewer's channel from the start, commits each
// answer's next as it comes, and asks again, until the channel's end row comes. Its first
// delta exceeds the budget, so the route answers it in parts ("remaining"): the events the
// parts add up to are checked against the model like a stream's.
type deltaPoller struct {
	w      *workload
	k      int // its server is the workload's streamAt(k)
	desk   *loadDesk
	secret string
	viewer transcript.Author

	state   sharing.State
	events  []streamEvent
	through transcript.Sequence // the end row, once received
	polls   int                 // deltas answered
	split   int                 // of them, the ones that left messages for the next (remaining > 0)
	err     error
}

// run polls until the end row comes, ctx is done or an answer is wrong. Whatever fails
// without an answer, or with a 5xx (a server killed, a database restarting), is asked
// again from the same state.
func (p *deltaPoller) run(ctx context.Context) {
	for !p.desk.largeAnswered(p.w) {
		select {
		case <-ctx.Done():
			p.err = fmt.Errorf("%w: %w (not yet started)", errStopped, ctx.Err())
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
	p.state = sharing.Initialized(transcript.Conversation{Desk: p.desk.name}, 0)
	for p.through == 0 {
		if ctx.Err() != nil {
			p.err = fmt.Errorf("%w: %w", errStopped, ctx.Err())
			return
		}
		r, err := p.poll(ctx)
		if p.err != nil {
			return
		}
		if err != nil {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		if r.Delta == nil {
			p.err = fmt.Errorf("no delta: %+v", r)
			return
		}
		if err := p.take(r); err != nil {
			p.err = err
			return
		}
		if len(r.Delta.Messages) == 0 && len(r.Delta.Elided) == 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// poll asks for the delta from the poller's state; an error is an attempt to make again,
// a refusal below 500 is fatal (p.err).
func (p *deltaPoller) poll(ctx context.Context) (server.DeltaResult, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	var r server.DeltaResult
	raw, err := json.Marshal(map[string]any{"state": p.state})
	if err != nil {
		return r, err
	}
	req, err := http.NewRequestWithContext(ctx, "POST", p.w.streamAt(p.k).get()+"/v1/desks/"+p.desk.name+"/delta", bytes.NewReader(raw))
	if err != nil {
		return r, err
	}
	req.Header.Set("Authorization", "Bearer "+p.secret)
	req.Header.Set("Content-Type", "application/json")
	res, err := p.w.client.Do(req)
	if err != nil {
		return r, err
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(res.Body)
	if err != nil {
		return r, err
	}
	if res.StatusCode != http.StatusOK {
		err := fmt.Errorf("status %d: %s", res.StatusCode, answer)
		if res.StatusCode < 500 {
			p.err = err
		}
		return r, err
	}
	return r, json.Unmarshal(answer, &r)
}

// take adds one answer's events, as a stream sends them (the viewer's own messages left
// out, in sequence order), and commits its next.
func (p *deltaPoller) take(r server.DeltaResult) error {
	p.polls++
	d := r.Delta
	if r.Remaining > 0 {
		p.split++
		if len(d.Messages) == 0 {
			return fmt.Errorf("an empty delta with %d remaining", r.Remaining)
		}
	}
	var batch []streamEvent
	for i := range d.Messages {
		m := &d.Messages[i]
		if m.Author.Same(endAuthor) && m.Parent == 0 {
			p.through = m.Seq
		}
		if !m.Author.Same(p.viewer) {
			batch = append(batch, streamEvent{id: m.Seq, msg: m})
		}
	}
	for i := range d.Elided {
		batch = append(batch, streamEvent{id: d.Elided[i].Through, eli: &d.Elided[i]})
	}
	slices.SortFunc(batch, func(a, b streamEvent) int { return stdcmp.Compare(a.at(), b.at()) })
	p.events = append(p.events, batch...)
	p.state = d.Next
	return nil
}

// verify checks the poller's events against the model over rows, the desk's final log,
// from the start through the channel's end row, and that the budget split its first delta.
func (p *deltaPoller) verify(t *testing.T, rows []transcript.Message) {
	t.Helper()
	if p.through != p.desk.ends[1] {
		t.Errorf("delta poller %d ended at %d, want the channel's end row %d", p.k, p.through, p.desk.ends[1])
	}
	if p.w.cfg.large > 0 && p.split == 0 {
		t.Errorf("delta poller %d: none of its %d deltas was split by the budget, though its first held the desk's large rows", p.k, p.polls)
	}
	errs := checkStream(rows, p.viewer, 0, 0, p.through, p.events)
	for i, e := range errs {
		if i == 5 {
			t.Errorf("delta poller %d: and %d more", p.k, len(errs)-5)
			break
		}
		t.Errorf("delta poller %d (%s on %s, %d polls, %d split): %s", p.k, p.viewer, p.desk.name, p.polls, p.split, e)
	}
}
