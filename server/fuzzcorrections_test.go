package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/posting"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/sharing"
	"github.com/sharedesk/transcript/token"
)

// correctionsDesk is a desk served in process for FuzzCorrections: three participants'
// tokens and what was written, by row.
type correctionsDesk struct {
	t       *testing.T
	srv     *server.Server
	other   server.Store      // a second handle on the database, as another process holds
	secrets map[string]string // by participant's name: operator, coder, triage
	rows    []fuzzRow         // by Seq-1
	erased  []string          // every content a redaction erased
	n       int               // contents made so far
	digests int               // answers checked that held a digest

	// held are the streams open all along, one per participant and the operator's rows,
	// each checking what it writes: once a redaction's 201 is sent (answered), no write
	// holds what it erased, and none to coder an aside's content. A write that does is
	// noted in leak, which checkAll reports.
	mu           sync.Mutex
	answered     []string
	leak         string
	digestEvents int // digest events the operator's rows stream wrote
}

// fuzzRow is a row the fuzzer wrote: by whom, whether an aside to triage, what it said.
type fuzzRow struct {
	author     string
	aside      bool
	correction bool
	redacted   bool
	contents   []string // the row's contents, and its edits', in order
	corrects   int      // the index in rows of its target, for a correction
}

var fuzzParticipants = []struct {
	name   string
	author transcript.Author
}{{"operator", operator}, {"coder", coder}, {"triage", triage}}

func newCorrectionsDesk(t *testing.T) *correctionsDesk {
	dir := t.TempDir()
	st := openSQLite(t, dir)
	// Folding all but the newest qualifying row, in the background after each append:
	// digests hold the words of rows the fuzzer redacts, and the rows stream tells of them.
	srv, err := server.New(st, server.Options{Rate: rate.Inf, Digester: digest.Extractive{}, DigestPolicy: digest.Policy{KeepLive: 1, FoldAfter: 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Shutdown(context.Background()) })
	d := &correctionsDesk{t: t, srv: srv, other: openSQLite(t, dir), secrets: map[string]string{}}
	for _, p := range fuzzParticipants {
		secret, tok, err := token.New("eng", p.author, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := st.AddToken(t.Context(), tok); err != nil {
			t.Fatal(err)
		}
		d.secrets[p.name] = secret
	}
	for _, p := range fuzzParticipants {
		d.hold(p.name, "/v1/desks/eng/events?after=0")
	}
	d.hold("operator", "/v1/desks/eng/rows/events?after=0")
	return d
}

// hold opens a stream as who on target for the rest of the test, whose every write
// heldWriter checks, and returns once the stream is open.
func (d *correctionsDesk) hold(who, target string) {
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequestWithContext(ctx, "GET", target, nil)
	req.Header.Set("Authorization", "Bearer "+d.secrets[who])
	done, opened := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		d.srv.ServeHTTP(&heldWriter{d: d, who: who, header: http.Header{}, opened: opened}, req)
	}()
	d.t.Cleanup(func() { cancel(); <-done })
	select { // what is stored from now on, the stream tells of
	case <-opened:
	case <-done:
		d.t.Fatalf("the stream %s as %s ended before it opened", target, who)
	case <-time.After(10 * time.Second):
		d.t.Fatalf("the stream %s as %s did not open within 10 s", target, who)
	}
}

// heldWriter is the response of a held stream: it checks each write when it is made, and
// closes opened once the stream's header is written.
type heldWriter struct {
	d          *correctionsDesk
	who        string
	header     http.Header
	opened     chan struct{}
	openedOnce sync.Once
}

func (w *heldWriter) Header() http.Header { return w.header }
func (w *heldWriter) WriteHeader(int)     { w.openedOnce.Do(func() { close(w.opened) }) }
func (w *heldWriter) Flush()              {}

func (w *heldWriter) Write(p []byte) (int, error) {
	d := w.d
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, gone := range d.answered {
		if d.leak == "" && bytes.Contains(p, []byte(gone)) {
			d.leak = fmt.Sprintf("a stream held open as %s writes %s after its redaction's 201:\n%s", w.who, gone, p)
		}
	}
	if w.who == "coder" && d.leak == "" && bytes.Contains(p, []byte("ASIDE")) {
		d.leak = fmt.Sprintf("a stream held open as coder writes an aside's content:\n%s", p)
	}
	d.digestEvents += bytes.Count(p, []byte("event: digest\n"))
	return len(p), nil
}

// do sends one request as who and returns its status and body; a stream is read for a
// moment, then ended.
func (d *correctionsDesk) do(who, method, target string, body any) (int, string) {
	timeout := 2 * time.Second
	if strings.Contains(target, "/events") {
		timeout = 80 * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var rd *strings.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			d.t.Fatal(err)
		}
		rd = strings.NewReader(string(b))
	}
	req := httptest.NewRequestWithContext(ctx, method, target, nil)
	if rd != nil {
		req = httptest.NewRequestWithContext(ctx, method, target, rd)
		req.Header.Set("Content-Type", "application/json")
	}
	if who != "" {
		req.Header.Set("Authorization", "Bearer "+d.secrets[who])
	}
	rec := httptest.NewRecorder()
	d.srv.ServeHTTP(rec, req)
	if rec.Code >= 500 {
		d.t.Fatalf("%s %s as %s: %d %s", method, target, who, rec.Code, rec.Body)
	}
	return rec.Code, rec.Body.String()
}

// content makes a new content, unique and no part of another: an aside's is marked ASIDE.
func (d *correctionsDesk) content(aside bool) string {
	d.n++
	if aside {
		return fmt.Sprintf("[ASIDE-%d]", d.n)
	}
	return fmt.Sprintf("[ROW-%d]", d.n)
}

// step does what op says: post a root, a reply or an aside, or edit or redact a row, by
// one participant or the row's author.
func (d *correctionsDesk) step(op, actor, target byte) {
	who := fuzzParticipants[int(actor)%len(fuzzParticipants)].name
	var row *fuzzRow
	if len(d.rows) > 0 {
		row = &d.rows[int(target)%len(d.rows)]
	}
	switch {
	case op%5 == 0 || row == nil: // a root, an aside to triage when who is not coder and op says so
		aside := who != "coder" && op&0x10 != 0
		body := map[string]any{"content": d.content(aside)}
		if aside {
			body["audience"] = []string{"agent:triage"}
			if who == "triage" {
				body["audience"] = []string{"operator"}
			}
		}
		d.append(who, "POST", "/v1/desks/eng/messages", body, fuzzRow{author: who, aside: aside})
	case op%5 == 1: // a reply: to an aside, an aside with its readers
		parent := int(target) % len(d.rows)
		if row.aside && who == "coder" || row.correction {
			return
		}
		c := d.content(row.aside)
		d.append(who, "POST", "/v1/desks/eng/messages", map[string]any{"content": c, "parent": parent + 1}, fuzzRow{author: who, aside: row.aside})
	case op%5 == 2 || op%5 == 3: // an edit, by the row's author unless op says otherwise
		if op&0x20 == 0 {
			who = row.author
		}
		c := d.content(row.aside)
		i := int(target) % len(d.rows)
		if d.append(who, "PATCH", fmt.Sprintf("/v1/desks/eng/messages/%d", i+1), map[string]any{"content": c},
			fuzzRow{author: who, aside: row.aside, correction: true, corrects: i}) {
			d.rows[i].contents = append(d.rows[i].contents, c)
		}
	default: // a redaction, by the row's author, the operator or anyone, through the server or another process
		switch {
		case op&0x20 == 0:
			who = row.author
		case op&0x40 == 0:
			who = "operator"
		}
		i := int(target) % len(d.rows)
		redaction := fuzzRow{author: who, aside: row.aside, correction: true, corrects: i, redacted: true}
		elsewhere := op&0x80 != 0
		if elsewhere && d.appendElsewhere(who, i, redaction) ||
			!elsewhere && d.append(who, "DELETE", fmt.Sprintf("/v1/desks/eng/messages/%d", i+1), nil, redaction) {
			d.rows[i].redacted = true
			d.erased = append(d.erased, d.rows[i].contents...)
			if !elsewhere { // the streams held open learn of it before the 201; of another process's, at the next poll
				d.mu.Lock()
				d.answered = append(d.answered, d.rows[i].contents...)
				d.mu.Unlock()
			}
			d.rows[i].contents = nil
		}
	}
}

// appendElsewhere appends a redaction of row i by who through the second handle on the
// database, as the command line would while the server runs; on success it records the
// row and reports true.
func (d *correctionsDesk) appendElsewhere(who string, i int, row fuzzRow) bool {
	var author transcript.Author
	for _, p := range fuzzParticipants {
		if p.name == who {
			author = p.author
		}
	}
	c, err := posting.PrepareCorrection(author, posting.Correction{Target: transcript.Sequence(i + 1), Redact: true})
	if err != nil {
		d.t.Fatal(err)
	}
	m, _, err := d.other.AppendNew(d.t.Context(), "eng", c)
	if err != nil {
		return false // refused by the correction rule
	}
	if int(m.Seq) != len(d.rows)+1 {
		d.t.Fatalf("a redaction through another handle: row %d, want %d", m.Seq, len(d.rows)+1)
	}
	d.rows = append(d.rows, row)
	return true
}

// append sends a request that appends a row; on 201 it records the row and reports true.
func (d *correctionsDesk) append(who, method, target string, body map[string]any, row fuzzRow) bool {
	var b any
	if body != nil {
		b = body
	}
	status, out := d.do(who, method, target, b)
	if status != http.StatusCreated {
		d.check(who, method+" "+target, out)
		return false
	}
	var m transcript.Message
	if err := json.Unmarshal([]byte(out), &m); err != nil || int(m.Seq) != len(d.rows)+1 {
		d.t.Fatalf("%s %s: row %d (%v), want %d", method, target, m.Seq, err, len(d.rows)+1)
	}
	if c, ok := body["content"].(string); ok && !row.correction {
		row.contents = []string{c}
	}
	d.rows = append(d.rows, row)
	return true
}

// check fails the test when what who was answered holds erased content, or, for coder,
// any aside's.
func (d *correctionsDesk) check(who, what, out string) {
	d.t.Helper()
	if strings.Contains(out, `"digest":{"conversation"`) || strings.Contains(out, "<digest ") {
		d.digests++
	}
	for _, gone := range d.erased {
		if strings.Contains(out, gone) {
			d.t.Fatalf("after its redaction, %s as %s answers erased content %s:\n%s", what, who, gone, out)
		}
	}
	if who == "coder" && strings.Contains(out, "ASIDE") {
		d.t.Fatalf("%s as coder answers an aside's content:\n%s", what, out)
	}
}

// fuzzRoute is one request of checkAll.
type fuzzRoute struct {
	method, target string
	body           any
}

// checkAll reads the desk through every route as every participant, and the public ones,
// and reports what the streams held open wrote that they must not have.
func (d *correctionsDesk) checkAll() {
	d.t.Helper()
	d.mu.Lock()
	leak := d.leak
	d.mu.Unlock()
	if leak != "" {
		d.t.Fatal(leak)
	}
	folds := []fuzzRoute{{"POST", "/v1/desks/eng/digest", nil}} // their answers hold the digest
	for i := range d.rows {
		folds = append(folds, fuzzRoute{"POST", fmt.Sprintf("/v1/desks/eng/digest?thread=%d", i+1), nil})
	}
	for _, r := range folds {
		_, out := d.do("operator", r.method, r.target, r.body)
		d.check("operator", r.method+" "+r.target, out)
	}
	for _, p := range fuzzParticipants {
		routes := []fuzzRoute{
			{"GET", "/v1/desks/eng/view", nil},
			{"GET", "/v1/desks/eng/view?digest=true&window=1&rendered=true", nil},
			{"GET", "/v1/desks/eng/threads", nil},
			{"GET", "/v1/desks/eng/events?after=0", nil},
			{"POST", "/v1/desks/eng/delta", map[string]any{"state": sharing.Initialized(transcript.Conversation{Desk: "eng"}, 0)}},
			{"GET", "/v1/desks", nil},
			{"GET", "/v1/desks/eng/search?q=row&limit=100", nil},
			{"GET", "/v1/desks/eng/search?q=aside&limit=100", nil},
		}
		for n := 1; n <= d.n; n++ { // every content made, by its number
			routes = append(routes, fuzzRoute{"GET", fmt.Sprintf("/v1/desks/eng/search?q=%d", n), nil})
		}
		for i := range d.rows {
			routes = append(routes,
				fuzzRoute{"GET", fmt.Sprintf("/v1/desks/eng/view?thread=%d", i+1), nil},
				fuzzRoute{"GET", fmt.Sprintf("/v1/desks/eng/view?thread=%d&digest=true&window=1", i+1), nil},
				fuzzRoute{"PATCH", fmt.Sprintf("/v1/desks/eng/messages/%d", i+1), map[string]any{"content": " "}}, // refused: an error's body
			)
		}
		if p.name == "operator" {
			routes = append(routes,
				fuzzRoute{"GET", "/v1/desks/eng/rows", nil},
				fuzzRoute{"GET", "/v1/desks/eng/rows/events?after=0", nil},
				fuzzRoute{"GET", "/v1/desks/eng/model?format=anthropic&as=agent:triage", nil},
				fuzzRoute{"GET", "/v1/desks/eng/model?format=openai", nil},
				fuzzRoute{"GET", "/v1/desks/eng/model?format=anthropic&digest=true&window=1&as=agent:coder", nil},
				fuzzRoute{"GET", "/v1/desks/eng/model?format=openai&digest=true&window=1", nil},
				fuzzRoute{"GET", "/v1/desks/eng/participants", nil},
			)
		}
		for _, r := range routes {
			_, out := d.do(p.name, r.method, r.target, r.body)
			d.check(p.name, r.method+" "+r.target, out)
		}
	}
	for _, gone := range d.erased { // found by nothing: not even the row it was, now blank
		for _, p := range fuzzParticipants {
			_, out := d.do(p.name, "GET", "/v1/desks/eng/search?q="+url.QueryEscape(gone), nil)
			if !strings.HasPrefix(out, `{"messages":[],`) {
				d.t.Fatalf("after its redaction, a search for %s as %s finds: %s", gone, p.name, out)
			}
		}
	}
	for _, target := range []string{"/metrics", "/healthz", "/"} {
		_, out := d.do("", "GET", target, nil)
		d.check("", "GET "+target, out)
	}
}

// FuzzCorrections: whatever the posts, edits and redactions, by their authors, the
// operator or anyone (refused), through the server or another process on its database, no
// answer of any route holds content a redaction erased once it committed — views, threads,
// deltas, streams opened after it and resumed from the start, searches, digests (views and
// model inputs with digest=true, the answers of folds), the inspector's routes, errors,
// /metrics —, no search finds it, no stream held open all along writes it
// once the redaction's 201 is sent, and no answer to coder holds an aside's content,
// which coder may never read, through a correction or otherwise.
func FuzzCorrections(f *testing.F) {
	for _, seed := range [][]byte{
		{0, 1, 0, 2, 1, 0, 4, 1, 0},             // a root by coder, edited, redacted
		{0x10, 0, 0, 2, 0, 0, 4, 0, 0},          // an aside by the operator, edited, redacted
		{0, 0, 0, 1, 2, 0, 2, 2, 1, 0x24, 0, 1}, // a root, triage's first reply, edited, the operator redacts it
		{0x10, 2, 0, 1, 0, 0, 2, 0, 1, 4, 2, 1}, // triage's aside to the operator, a reply, edited, redacted
		{0, 1, 0, 0x22, 2, 0, 0x64, 2, 0},       // refusals: an edit and a redaction by another
		{0, 1, 0, 0x81, 1, 0},                   // a root by coder, redacted by coder through another process
		{0x10, 2, 0, 2, 2, 0, 0x81, 0, 0},       // triage's aside to the operator, edited, redacted through another process
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 36 {
			ops = ops[:36]
		}
		d := newCorrectionsDesk(t)
		for i := 0; i+2 < len(ops); i += 3 {
			redactions := len(d.erased)
			d.step(ops[i], ops[i+1], ops[i+2])
			if len(d.erased) != redactions || i+5 >= len(ops) {
				d.checkAll()
			}
		}
	})
}

// TestCorrectionsDigests: FuzzCorrections' property meets digests: a folded row's words are
// in a digest checkAll reads, the operator's rows stream held open tells of a fold, and after
// the row's redaction no answer and no held stream holds them.
func TestCorrectionsDigests(t *testing.T) {
	d := newCorrectionsDesk(t)
	for range 3 {
		d.step(0, 1, 0) // a root by coder
	}
	d.checkAll()
	if d.digests == 0 {
		t.Fatal("no answer held a digest: the property checks none")
	}
	if _, out := d.do("coder", "GET", "/v1/desks/eng/view?digest=true&window=1", nil); !strings.Contains(out, "[ROW-1]") {
		t.Fatalf("the channel's digest does not hold the first root's words: %s", out)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		d.mu.Lock()
		told := d.digestEvents
		d.mu.Unlock()
		if told > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the operator's rows stream wrote no digest event within 30 s")
		}
	}
	d.step(4, 1, 0) // coder redacts the first root, which the channel's digest folded
	if len(d.erased) != 1 {
		t.Fatalf("erased %v, want the first root's content", d.erased)
	}
	d.checkAll()
}
