package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sharedesk/transcript"
)

// The workload's clients: a writer that appends with keys and retries whatever fails, and
// a live stream that reconnects with Last-Event-ID.

// requestTimeout bounds one request of a writer (a server that hangs is retried).
const requestTimeout = 15 * time.Second

// loadWriter appends its workload's share to one desk as one participant.
type loadWriter struct {
	w      *workload
	i      int
	desk   *loadDesk
	who    transcript.Author
	secret string
	rng    *rand.Rand
}

// appendBody is the body of an append, as a client sends it.
type appendBody struct {
	Content  string              `json:"content"`
	Parent   transcript.Sequence `json:"parent,omitempty"`
	Audience []string            `json:"audience,omitempty"`
	Key      string              `json:"key"`
}

func (wr *loadWriter) run(ctx context.Context) error {
	for j := range wr.w.cfg.appends {
		body, parent := wr.choose(j)
		m, err := wr.append(ctx, body, parent)
		if err != nil {
			return fmt.Errorf("key %s: %w", body.Key, err)
		}
		wr.desk.add(m)
		if j < wr.w.cfg.large {
			wr.desk.large.Add(1)
		}
		wr.w.acked.Add(1)
	}
	return nil
}

// choose makes the j-th message: the first cfg.large large asides to scout; then mostly roots, some asides to one or two others of the
// desk, replies to recent rows the writer may read (asides among them, whose replies are
// asides to the same readers), replies to the seed thread. (The service refuses blank
// content: the blank rows are the workload's seed.)
func (wr *loadWriter) choose(j int) (appendBody, *transcript.Message) {
	key := fmt.Sprintf("w%d-%03d", wr.i, j)
	b := appendBody{Key: key, Content: fmt.Sprintf("%s by %s", key, wr.who)}
	if j < wr.w.cfg.large {
		b.Content = "ASIDE large " + b.Content + " " + strings.Repeat("x", largeRowMin+wr.rng.IntN(largeRowMax-largeRowMin))
		b.Audience = []string{workloadExtras[0].String()}
		return b, nil
	}
	var parent *transcript.Message
	switch r := wr.rng.Float64(); {
	case r < 0.50:
	case r < 0.64:
		b.Content = "ASIDE " + b.Content
		b.Audience = wr.audience()
	case r < 0.92:
		if recent := wr.desk.recent(wr.who, 30); len(recent) > 0 {
			p := recent[wr.rng.IntN(len(recent))]
			parent = &p
		}
	default:
		parent = &wr.desk.root
	}
	if parent != nil {
		b.Parent = parent.Seq
		switch {
		case parent.IsAside():
			b.Content = "ASIDE reply " + b.Content
		case wr.rng.IntN(5) == 0:
			b.Content = "ASIDE reply " + b.Content
			b.Audience = wr.audience()
		}
	}
	return b, parent
}

// audience is one or two of the desk's participants other than the writer, now and then
// the operator.
func (wr *loadWriter) audience() []string {
	var out []string
	for len(out) < 1+wr.rng.IntN(2) {
		var p transcript.Author
		if wr.rng.IntN(8) == 0 {
			p = transcript.Operator()
		} else {
			p = wr.desk.people[wr.rng.IntN(len(wr.desk.people))]
		}
		if p.Same(wr.who) || slices.Contains(out, p.String()) {
			continue
		}
		out = append(out, p.String())
	}
	return out
}

// append appends body until it is answered: 201, or 200 with the same row. The first
// attempts of about cfg.drop of the appends throw their answer away, one or two of them;
// every attempt that fails (no answer, 5xx) is tried again with the same key and body.
func (wr *loadWriter) append(ctx context.Context, body appendBody, parent *transcript.Message) (transcript.Message, error) {
	want := transcript.Message{Author: wr.who, Content: body.Content, Parent: body.Parent, Key: body.Key}
	for _, a := range body.Audience {
		p, err := transcript.ParseAuthor(a)
		if err != nil {
			return transcript.Message{}, err
		}
		want.Audience = append(want.Audience, p)
	}
	audience, err := want.ResolveAudience(parent)
	if err != nil {
		return transcript.Message{}, fmt.Errorf("the workload chose a refused message: %w", err)
	}
	drops := 0
	if wr.rng.Float64() < wr.w.cfg.drop {
		drops = 1 + wr.rng.IntN(2)
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return transcript.Message{}, err
	}
	ep := wr.w.writerAt(wr.i)
	backoff := 5 * time.Millisecond
	for attempt := 0; ; attempt++ {
		if ctx.Err() != nil {
			return transcript.Message{}, fmt.Errorf("%w: %w", errStopped, ctx.Err())
		}
		wr.w.attempts.Add(1)
		if attempt < drops {
			wr.w.dropped.Add(1)
			wr.drop(ctx, ep.get(), raw, attempt%2 == 0)
			continue
		}
		status, answer, err := wr.post(ctx, ep.get(), raw)
		if err != nil || status >= 500 {
			wr.w.failed.Add(1)
			select {
			case <-ctx.Done():
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, 200*time.Millisecond)
			continue
		}
		if status != http.StatusCreated && status != http.StatusOK {
			return transcript.Message{}, fmt.Errorf("status %d: %s", status, answer)
		}
		var m transcript.Message
		if err := json.Unmarshal(answer, &m); err != nil {
			return transcript.Message{}, fmt.Errorf("answer %s: %w", answer, err)
		}
		if status == http.StatusOK {
			wr.w.replays.Add(1)
		}
		if !m.Author.Same(wr.who) || m.Author.Label != wr.who.Label || m.Content != want.Content || m.Parent != want.Parent ||
			m.Key != want.Key || m.Seq == 0 || identities(m.Audience) != identities(audience) {
			return transcript.Message{}, fmt.Errorf("answered %d with %s, not the row sent (audience %s)", status, answer, identities(audience))
		}
		return m, nil
	}
}

// request is an append's request to base.
func (wr *loadWriter) request(ctx context.Context, base string, raw []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", base+"/v1/desks/"+wr.desk.name+"/messages", bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+wr.secret)
	req.Header.Set("Content-Type", "application/json")
	return req, nil
}

// post sends an append and returns its answer.
func (wr *loadWriter) post(ctx context.Context, base string, raw []byte) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	req, err := wr.request(ctx, base, raw)
	if err != nil {
		return 0, nil, err
	}
	res, err := wr.w.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(res.Body)
	return res.StatusCode, answer, err
}

// drop sends an append and throws its answer away: byCancel cancels the request as soon
// as it is written; otherwise the request is written on a connection of its own, which is
// closed before anything is read.
func (wr *loadWriter) drop(ctx context.Context, base string, raw []byte, byCancel bool) {
	if byCancel {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { cancel() }}
		req, err := wr.request(httptrace.WithClientTrace(ctx, trace), base, raw)
		if err != nil {
			return
		}
		if res, err := wr.w.client.Do(req); err == nil {
			res.Body.Close() // the answer came before the cancellation: unread all the same
		}
		return
	}
	u, err := url.Parse(base)
	if err != nil {
		return
	}
	dialer := net.Dialer{Timeout: 5 * time.Second}
	conn, err := dialer.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return
	}
	defer conn.Close()
	conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	req, err := wr.request(context.Background(), base, raw)
	if err == nil {
		req.Write(conn)
	}
}

// Stream modes: when a stream first connects and from where.
const (
	modeHead  = iota // before the writers, without after=: from the desk's head, the seed head
	modeStart        // before the writers, after=0: the seed rows too
	modeLate         // while the writers write, after= a row answered lately
)

// streamIdle is how long a stream waits for a line (the servers' heartbeat is shorter)
// before it takes its connection for lost and reconnects.
const streamIdle = 10 * time.Second

// liveStream is one stream of a workload: its viewer's events of one conversation, read
// over as many connections as it takes.
type liveStream struct {
	w         *workload
	k         int
	desk      *loadDesk
	secret    string
	as        string
	viewer    transcript.Author
	thread    transcript.Sequence
	mode      int
	from      transcript.Sequence // the watermark it starts from
	dropsLeft int                 // connections it ends on purpose
	catchUp   bool                // late, from the start, once the desk's large rows are answered
	rng       *rand.Rand

	events   []streamEvent
	last     transcript.Sequence // the last id received
	through  transcript.Sequence // its end row, once received
	connects int                 // connections a server took (not refused)
	err      error
}

func (s *liveStream) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// run reads the stream until its end row comes, ctx is done or something is wrong, over
// connections made again, with Last-Event-ID, whenever one ends. ready, when not nil,
// gets the first connection's outcome once it is known.
func (s *liveStream) run(ctx context.Context, ready chan<- error) {
	if s.mode == modeHead {
		s.from = s.desk.seedHead
	}
	s.last = s.from
	backoff := 10 * time.Millisecond
	for first := true; ; first = false {
		finished, err := s.session(ctx, first, ready)
		ready = nil
		if finished || s.err != nil {
			return
		}
		if ctx.Err() != nil {
			s.fail(fmt.Errorf("%w: %w (last connection: %v)", errStopped, ctx.Err(), err))
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 250*time.Millisecond)
	}
}

// session is one connection of the stream: it reports whether the end row came, and why
// the connection ended. A refusal that is no server failure, a reinitialize event, or an
// event that breaks the protocol is fatal (s.err).
func (s *liveStream) session(ctx context.Context, first bool, ready chan<- error) (bool, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	q := url.Values{}
	if s.thread != 0 {
		q.Set("thread", fmt.Sprint(s.thread))
	}
	if s.as != "" {
		q.Set("as", s.as)
	}
	if first && s.mode != modeHead {
		q.Set("after", fmt.Sprint(s.from))
	}
	target := s.w.streamAt(s.k).get() + "/v1/desks/" + s.desk.name + "/events"
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, "GET", target, nil)
	if err != nil {
		s.fail(err)
		return false, err
	}
	req.Header.Set("Authorization", "Bearer "+s.secret)
	if !first {
		req.Header.Set("Last-Event-ID", fmt.Sprint(s.last))
	}
	res, err := s.w.client.Do(req)
	if err == nil || !errors.Is(err, syscall.ECONNREFUSED) {
		// A server took the connection: counted even when it died before its answer's
		// headers, as a kill may catch a stream still starting.
		s.connects++
	}
	if err == nil && res.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		err = fmt.Errorf("status %d: %s", res.StatusCode, body)
		if res.StatusCode < 500 {
			s.fail(err)
		}
	}
	if ready != nil {
		ready <- err
	}
	if err != nil {
		return false, err
	}
	defer res.Body.Close()

	idle := time.AfterFunc(streamIdle, cancel)
	defer idle.Stop()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	var event, id, data string
	received := 0
	dropAt := -1
	if s.dropsLeft > 0 {
		dropAt = 5 + s.rng.IntN(40)
	}
	for sc.Scan() {
		idle.Reset(streamIdle)
		line := sc.Text()
		if line != "" {
			if strings.HasPrefix(line, ":") {
				continue
			}
			name, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch name {
			case "event":
				event = value
			case "id":
				id = value
			case "data":
				data += value
			}
			continue
		}
		if event == "" && data == "" {
			continue
		}
		done, err := s.dispatch(event, id, data)
		event, id, data = "", "", ""
		if err != nil {
			s.fail(err)
			return false, err
		}
		if done {
			return true, nil
		}
		if received++; received == dropAt {
			s.dropsLeft--
			return false, errors.New("ended on purpose")
		}
	}
	if err := sc.Err(); err != nil {
		return false, err
	}
	return false, io.EOF // an event cut short at the end is dropped, as EventSource does
}

// dispatch takes one whole event, and reports whether it was the end row.
func (s *liveStream) dispatch(event, id, data string) (bool, error) {
	if event != "message" && event != "elided" {
		return false, fmt.Errorf("event %q: %s", event, data) // reinitialize among them: the desk is under ScanLimit rows
	}
	n, err := strconv.ParseUint(id, 10, 64)
	if err != nil {
		return false, fmt.Errorf("event %q with id %q: %w", event, id, err)
	}
	seq := transcript.Sequence(n)
	switch event {
	case "message":
		var m transcript.Message
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			return false, fmt.Errorf("message %s: %w", data, err)
		}
		if m.Seq != seq {
			return false, fmt.Errorf("message %d with id %d", m.Seq, seq)
		}
		s.events = append(s.events, streamEvent{id: seq, msg: &m})
		s.last = seq
		if m.Author.Same(endAuthor) && m.Parent == s.thread {
			s.through = m.Seq
			return true, nil
		}
	case "elided":
		if strings.Contains(data, `"content"`) || strings.Contains(data, "ASIDE") {
			return false, fmt.Errorf("an elision with content: %s", data)
		}
		var e transcript.Elision
		if err := json.Unmarshal([]byte(data), &e); err != nil {
			return false, fmt.Errorf("elision %s: %w", data, err)
		}
		if e.Through != seq {
			return false, fmt.Errorf("elision %d-%d with id %d", e.From, e.Through, seq)
		}
		s.events = append(s.events, streamEvent{id: seq, eli: &e})
		s.last = seq
	}
	return false, nil
}
