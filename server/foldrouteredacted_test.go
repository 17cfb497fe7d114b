package server_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/server"
)

// pausingStore is a memDigestStore whose logs, once armed, hold the first ReadBefore:
// it says entered, and reads once release is closed.
type pausingStore struct {
	*memDigestStore
	mu      sync.Mutex
	armed   bool
	entered chan struct{}
	release chan struct{}
}

type pausingLog struct {
	*memlog.Log
	s *pausingStore
}

func (s *pausingStore) Log(desk string) transcript.Log { return &pausingLog{Log: s.Desk(desk), s: s} }

func (l *pausingLog) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	l.s.mu.Lock()
	armed := l.s.armed
	l.s.armed = false
	l.s.mu.Unlock()
	if armed {
		close(l.s.entered)
		<-l.s.release
	}
	return l.Log.ReadBefore(ctx, before, limit)
}

// TestFoldRouteNeverAnswersADeletedDigest: POST …/digest with nothing due never answers a
// digest that a redaction of a folded row deleted (its 201 given) while the fold read its
// rows: the answer holds no erased word.
func TestFoldRouteNeverAnswersADeletedDigest(t *testing.T) {
	st := &pausingStore{memDigestStore: newMemDigestStore(), entered: make(chan struct{}), release: make(chan struct{})}
	e := newEnv(t, st, server.Options{Digester: digest.Extractive{}, DigestPolicy: smallPolicy, Rate: rate.Inf})
	op, coderTok := e.token("eng", operator), e.token("eng", coder)
	var first transcript.Message
	for i := range 6 {
		// Written to the store directly: no background fold runs.
		m, err := st.Append(t.Context(), "eng", transcript.Message{Author: coder, Content: fmt.Sprintf("row %d, erasable%d", i, i)})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = m
		}
	}
	if got := decode[server.DigestAnswer](t, e.do("POST", "/v1/desks/eng/digest", op, nil), 200); !got.Folded || !strings.Contains(got.Digest.Text, "erasable0") {
		t.Fatalf("first fold: %+v", got)
	}
	st.mu.Lock()
	st.armed = true
	st.mu.Unlock()
	answer := make(chan response, 1)
	go func() { answer <- e.do("POST", "/v1/desks/eng/digest", op, nil) }() // nothing due
	<-st.entered                                                            // the fold reads its rows
	if r := e.do("DELETE", fmt.Sprintf("/v1/desks/eng/messages/%d", first.Seq), coderTok, nil); r.status != http.StatusCreated {
		t.Fatalf("redact: %d %s", r.status, r.body)
	}
	close(st.release)
	r := <-answer
	if strings.Contains(string(r.body), "erasable0") {
		t.Errorf("POST …/digest answered after the redaction's 201 with the erased word: %s", r.body)
	}
}
