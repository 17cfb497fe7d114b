package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/internal/memdesks"
	"github.com/sharedesk/transcript/render"
	"github.com/sharedesk/transcript/server"
)

// nextDigestEvent returns the next digest event of st, a desk's rows stream, skipping its
// rows; it fails after timeout.
func nextDigestEvent(t *testing.T, st *stream, timeout time.Duration) server.DigestEvent {
	t.Helper()
	for deadline := time.Now().Add(timeout); ; {
		ev, ok := st.next(time.Until(deadline))
		if !ok {
			t.Fatalf("no digest event on the rows stream within %s", timeout)
		}
		if ev.event == "row" {
			continue
		}
		if ev.event != "digest" || ev.id != "" {
			t.Fatalf("event %+v on the rows stream, want a row or a digest without an id", ev)
		}
		var d server.DigestEvent
		if err := json.Unmarshal([]byte(ev.data), &d); err != nil || strings.Contains(ev.data, "text") {
			t.Fatalf("digest event %s: %v; want the conversation alone", ev.data, err)
		}
		return d
	}
}

// TestPageDigest: what the inspector's columns show of a digest. The desk's rows stream,
// the operator's, tells of each digest the server stores (POST digest, a background fold),
// with the conversation alone; a column's view read as= its participant carries the digest,
// the same for every participant (for the same window: a digest stands for the rows below
// it); the model route with digest=true renders it first, as
// render.View does; and after a redaction of a folded row neither holds its words.
func TestPageDigest(t *testing.T) {
	eachDigestStore(t, testPageDigest)
}

func testPageDigest(t *testing.T, st server.Store) {
	e := newEnv(t, st, server.Options{Digester: digest.Extractive{}, DigestPolicy: smallPolicy, Rate: rate.Inf})
	op, coderTok := e.token("eng", operator), e.token("eng", coder)
	rows := e.open("/v1/desks/eng/rows/events", op)
	// Written to the store directly: no background fold runs, and POST digest folds once.
	write := func(m transcript.Message) transcript.Message {
		stored, _, err := st.AppendNew(t.Context(), "eng", m)
		if err != nil {
			t.Fatal(err)
		}
		return stored
	}
	write(transcript.Message{Author: operator, Content: "ASIDEWORD for triage", Audience: []transcript.Author{triage}})
	var roots []transcript.Message
	for i := range 6 {
		roots = append(roots, write(transcript.Message{Author: coder, Content: fmt.Sprintf("ERASEME%d root", i)}))
	}
	if got := decode[server.DigestAnswer](t, e.do("POST", "/v1/desks/eng/digest", op, nil), http.StatusOK); !got.Folded || got.Digest.Through != roots[3].Seq {
		t.Fatalf("fold: %+v, want a digest through %d", got, roots[3].Seq)
	}
	if got := nextDigestEvent(t, rows, 30*time.Second); got.Conversation != (transcript.Conversation{Desk: "eng"}) {
		t.Fatalf("digest event for %+v, want the channel of eng", got.Conversation)
	}
	v := decode[digestView](t, e.do("GET", "/v1/desks/eng/view?digest=true&window=2&as=agent:triage", op, nil), http.StatusOK)
	if v.Digest == nil || !strings.Contains(v.Digest.Text, "ERASEME0") || strings.Contains(v.Digest.Text, "ASIDEWORD") {
		t.Fatalf("triage's column's digest %+v: want one with the first root's words, never the aside's", v.Digest)
	}
	for _, as := range []string{"agent:coder", "operator"} {
		other := decode[digestView](t, e.do("GET", "/v1/desks/eng/view?digest=true&window=2&as="+as, op, nil), http.StatusOK)
		if other.Digest == nil || *other.Digest != *v.Digest {
			t.Errorf("as %s the digest is %+v, want triage's %+v", as, other.Digest, *v.Digest)
		}
	}

	// The model input, as the column's switch shows it: the digest first, with digest=true.
	for _, format := range []render.ModelFormat{render.ModelOpenAI, render.ModelAnthropic} {
		path := "/v1/desks/eng/model?format=" + string(format) + "&window=2&as=agent:coder"
		view := decode[transcript.Projection](t, e.do("GET", "/v1/desks/eng/view?digest=true&window=2&as=agent:coder", op, nil), http.StatusOK)
		want, err := render.View{Digest: view.Digest, Messages: view.Messages, Elided: view.Elided}.ModelInput(format, coder)
		if err != nil {
			t.Fatal(err)
		}
		if r := e.do("GET", path+"&digest=true", op, nil); r.status != http.StatusOK || string(r.body) != string(want) || !strings.Contains(string(r.body), "<digest ") {
			t.Errorf("GET %s&digest=true: %d\n got %s\nwant %s", path, r.status, r.body, want)
		}
		if r := e.do("GET", path, op, nil); r.status != http.StatusOK || strings.Contains(string(r.body), "<digest ") {
			t.Errorf("GET %s without digest=true: %d %s; want no digest", path, r.status, r.body)
		}
	}

	// A redaction of a folded row deletes the digests that cover it: the column's reads
	// after its answer hold none of its words.
	e.redact("eng", roots[0].Seq, coderTok)
	for _, path := range []string{
		"/v1/desks/eng/view?digest=true&window=2&as=agent:triage",
		"/v1/desks/eng/model?format=anthropic&digest=true&window=2&as=agent:coder",
		"/v1/desks/eng/model?format=openai&digest=true&window=1",
	} {
		if r := e.do("GET", path, op, nil); r.status != http.StatusOK || strings.Contains(string(r.body), "ERASEME0") {
			t.Errorf("after the redaction GET %s: %d %s", path, r.status, r.body)
		}
	}

	// A background fold is told too: a thread's, with its root.
	for i := range 6 { // a burst smallPolicy folds
		e.post(coderTok, map[string]any{"content": fmt.Sprintf("reply %d", i), "parent": roots[1].Seq})
	}
	thread := transcript.Conversation{Desk: "eng", Thread: roots[1].Seq}
	for {
		got := nextDigestEvent(t, rows, 30*time.Second)
		if got.Conversation == thread {
			break
		}
		if got.Conversation != (transcript.Conversation{Desk: "eng"}) {
			t.Fatalf("digest event for %+v, want the channel or thread %d", got.Conversation, thread.Thread)
		}
	}
	tv := waitDigest(t, e, fmt.Sprintf("/v1/desks/eng/view?digest=true&window=2&as=agent:triage&thread=%d", thread.Thread), op, 1)
	if tv.Digest.Conversation != thread || strings.Contains(tv.Digest.Text, "ERASEME0") {
		t.Errorf("thread %d's digest %+v", thread.Thread, *tv.Digest)
	}
}

// TestPageDigestOtherProcess: a fold made through another handle on the store's file or
// database, as the transcript digest command beside serve makes one, reaches the desk's
// rows stream as a fold of the server's own does: a digest event, the conversation alone.
// The server folds nothing itself (no Digester), and the rows are written through the
// other handle too.
func TestPageDigestOtherProcess(t *testing.T) {
	eachStoreWithAnother(t, func(t *testing.T, st server.Store, another func() server.Store) {
		e := newEnv(t, st, server.Options{Rate: rate.Inf})
		other := another()
		log, ok := other.Log("eng").(digest.Store)
		if !ok {
			t.Fatalf("%T keeps no digests", other)
		}
		rows := e.open("/v1/desks/eng/rows/events", e.token("eng", operator))
		// The stream answers once the store's digest watch is up: a fold made from then on
		// is reported.
		for i := range 6 {
			if _, _, err := other.AppendNew(t.Context(), "eng", transcript.Message{Author: coder, Content: fmt.Sprintf("FOLDWORD row %d", i)}); err != nil {
				t.Fatal(err)
			}
		}
		if _, folded, err := digest.Fold(t.Context(), log, digest.Extractive{}, smallPolicy, transcript.Conversation{Desk: "eng"}); err != nil || !folded {
			t.Fatalf("the other handle's fold: folded %v, %v", folded, err)
		}
		c, ok := digestEventWithin(t, rows, 10*time.Second)
		if !ok {
			t.Fatal("no digest event on the rows stream for a fold through another handle made after the stream answered")
		}
		if c != (transcript.Conversation{Desk: "eng"}) {
			t.Fatalf("digest event for %+v, want the channel of eng", c)
		}
	})
}

// lossyDigestStore is a memDigestStore whose digest watch the test drives.
type lossyDigestStore struct {
	*memDigestStore
	*memdesks.DigestFeed
}

// TestRowsStreamEndsOnceDigestsMayBeMissed: the desk's rows stream tells of the digests the
// store's watch reports; once that watch was lost and is up again (a digest stored
// meanwhile was told to nobody), the stream ends, so that its client reconnects and reads
// its digests again; a stream opened then tells of digests again.
func TestRowsStreamEndsOnceDigestsMayBeMissed(t *testing.T) {
	st := &lossyDigestStore{memDigestStore: newMemDigestStore(), DigestFeed: memdesks.NewDigestFeed()}
	e := newEnv(t, st, server.Options{Rate: rate.Inf})
	secret := e.token("eng", operator)
	e.post(secret, map[string]any{"content": "a row"})
	rows := e.open("/v1/desks/eng/rows/events", secret)
	channel := transcript.Conversation{Desk: "eng"}
	st.Convs <- channel
	if c, ok := digestEventWithin(t, rows, 10*time.Second); !ok || c != channel {
		t.Fatalf("digest event %+v (%v), want the channel's", c, ok)
	}
	st.Lose <- struct{}{}
	for deadline := time.After(15 * time.Second); ; {
		select {
		case _, ok := <-rows.events:
			if ok {
				continue
			}
		case <-deadline:
			t.Fatal("the rows stream did not end once the store's digest watch was lost and up again")
		}
		break
	}
	again := e.open("/v1/desks/eng/rows/events", secret)
	st.Convs <- channel
	if c, ok := digestEventWithin(t, again, 10*time.Second); !ok || c != channel {
		t.Fatalf("digest event on the stream opened again %+v (%v), want the channel's", c, ok)
	}
}

// digestEventWithin returns the conversation of st's next digest event, skipping its rows,
// or false when none comes within d. The event must hold the conversation alone.
func digestEventWithin(t *testing.T, st *stream, d time.Duration) (transcript.Conversation, bool) {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case ev, ok := <-st.events:
			if !ok {
				t.Fatal("the rows stream ended")
			}
			if ev.event != "digest" {
				continue
			}
			var got server.DigestEvent
			if err := json.Unmarshal([]byte(ev.data), &got); err != nil || strings.Contains(ev.data, "FOLDWORD") || strings.Contains(ev.data, "text") {
				t.Fatalf("digest event %s: %v; want the conversation alone", ev.data, err)
			}
			return got.Conversation, true
		case <-deadline:
			return transcript.Conversation{}, false
		}
	}
}
