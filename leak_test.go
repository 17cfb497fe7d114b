package transcript_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/proptest"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/render"
	"github.com/sharedesk/transcript/sharing"
	"github.com/sharedesk/transcript/storage"
)

// This file holds the leak property of SPEC §10: for every viewer, nothing a projection, a
// delta, either cut by an answer's byte budget, or a rendering of any of them (every format)
// holds contains the content of a row the viewer may not read. Every non-blank row's content starts with a token of its own,
// "tok" and seven digits, that no other content contains, so a leak shows as that token.

// leakToken returns the token that starts the content of row seq.
func leakToken(seq transcript.Sequence) string { return fmt.Sprintf("tok%07d", seq) }

// leakContents gives every non-blank row of rows a content that starts with its token and
// goes on with its old content, so escaping still meets the generator's tricky texts.
func leakContents(rows []transcript.Message) {
	for i := range rows {
		if m := &rows[i]; !modelBlank(*m) {
			m.Content = leakToken(m.Seq) + m.Content
		}
	}
}

// leakOutputs returns every form a view takes on its way out: its JSON, and the viewer's
// text, OpenAI and Anthropic renderings of its messages and elisions.
func leakOutputs(t *testing.T, viewer transcript.Author, view any, msgs []transcript.Message, elided []transcript.Elision) map[string][]byte {
	t.Helper()
	out := make(map[string][]byte)
	var err error
	if out["json"], err = json.Marshal(view); err != nil {
		t.Fatalf("JSON of the view: %v", err)
	}
	var text bytes.Buffer
	if err := render.Text(&text, viewer, msgs, elided...); err != nil {
		t.Fatalf("render.Text: %v", err)
	}
	out["text"] = text.Bytes()
	if out["openai"], err = render.OpenAI(viewer, msgs, elided...); err != nil {
		t.Fatalf("render.OpenAI: %v", err)
	}
	if out["anthropic"], err = render.Anthropic(viewer, msgs, elided...); err != nil {
		t.Fatalf("render.Anthropic: %v", err)
	}
	for _, f := range []render.ModelFormat{render.ModelOpenAI, render.ModelAnthropic} {
		if out["model input, "+string(f)], err = render.ModelInput(f, viewer, msgs, elided...); err != nil {
			t.Fatalf("render.ModelInput(%s): %v", f, err)
		}
	}
	var blocks bytes.Buffer // what the MCP tools answer, block by block
	for _, b := range render.Blocks(msgs, elided...) {
		blocks.WriteString(b.Text + "\n")
	}
	out["blocks"] = blocks.Bytes()
	return out
}

// leakCheck reports every token of a row viewer may not read found in outputs.
func leakCheck(t *testing.T, rows []transcript.Message, viewer transcript.Author, what string, outputs map[string][]byte) {
	t.Helper()
	for _, m := range rows {
		if modelReadable(m, viewer) || modelBlank(m) {
			continue
		}
		token := []byte(leakToken(m.Seq))
		for format, data := range outputs {
			if bytes.Contains(data, token) {
				t.Errorf("%s for %v, %s: holds the content of row %d, which the viewer may not read", what, viewer, format, m.Seq)
			}
		}
	}
}

// leakCheckDesk projects every conversation of interest for every viewer, takes a delta from
// a few watermarks, and checks every output for leaks.
func leakCheckDesk(t *testing.T, r *rand.Rand, rows []transcript.Message, viewers []transcript.Author) {
	t.Helper()
	log, err := memlog.From(rows)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conversations := []transcript.Conversation{{Desk: "eng"}}
	for _, m := range rows {
		if m.Parent == 0 && len(conversations) < 6 && r.IntN(3) == 0 {
			conversations = append(conversations, transcript.Conversation{Desk: "eng", Thread: m.Seq})
		}
	}
	var head transcript.Sequence
	if len(rows) > 0 {
		head = rows[len(rows)-1].Seq
	}
	for _, viewer := range viewers {
		for _, m := range searchedRows(r, rows, nil) {
			for _, c := range conversations[:min(2, len(conversations))] {
				words := storage.Terms(m.Content)
				if len(words) == 0 {
					continue
				}
				// The row's first word, its token and what follows it, in upper case.
				q := transcript.SearchQuery{Text: strings.ToUpper(words[0]), Viewer: viewer, Thread: c.Thread}
				res, err := log.Search(ctx, q)
				if errors.Is(err, transcript.ErrBadSearch) {
					continue // a first word longer than a search may hold
				} else if err != nil {
					t.Fatal(err)
				}
				leakCheck(t, rows, viewer, fmt.Sprintf("search %+v", q), leakOutputs(t, viewer, res, res.Messages, nil))
			}
		}
		for _, c := range conversations {
			q := transcript.Query{Conversation: c, Viewer: viewer, Window: []int{1, 3, 30, 1000}[r.IntN(4)]}
			p, err := transcript.Project(ctx, log, q)
			if err != nil {
				t.Fatal(err)
			}
			leakCheck(t, rows, viewer, fmt.Sprintf("projection %+v", q), leakOutputs(t, viewer, p, p.Messages, p.Elided))
			// Cut by an answer's byte budget, as the service and MCP cut a view.
			cut := p.WithinBytes(c.Thread, 1+r.IntN(64))
			leakCheck(t, rows, viewer, fmt.Sprintf("projection %+v within a budget", q), leakOutputs(t, viewer, cut, cut.Messages, cut.Elided))
			for _, watermark := range []transcript.Sequence{0, head / 2, head - min(head, 3)} {
				state := sharing.Initialized(c, watermark)
				plan, err := sharing.Prepare(ctx, log, sharing.Query{Desired: c, Current: c, State: state, Viewer: viewer})
				if err != nil {
					t.Fatal(err)
				}
				d := plan.Delta
				leakCheck(t, rows, viewer, fmt.Sprintf("delta from %d of %+v", watermark, c), leakOutputs(t, viewer, plan, d.Messages, d.Elided))
				// Cut by an answer's byte budget, as the delta route, the streams and read_desk cut it.
				d = d.WithinBytes(1+r.IntN(64), state)
				leakCheck(t, rows, viewer, fmt.Sprintf("delta from %d of %+v within a budget", watermark, c), leakOutputs(t, viewer, d, d.Messages, d.Elided))
			}
		}
	}
}

// TestLeakProperty runs the leak check over the model test's desks: asides that follow the
// reply rule, threads of every kind, blank rows, gaps, and every kind of viewer.
func TestLeakProperty(t *testing.T) {
	t.Parallel()
	desks := proptest.Desks(300, 60)
	if testing.Short() {
		desks = 60
	}
	for i := range desks {
		r := rand.New(rand.NewPCG(uint64(i), 0x1ea4))
		d := modelGenDesk(r, modelShape{
			rows:     r.IntN(120),
			rootP:    r.Float64(),
			blankP:   r.Float64() * 0.3,
			gapP:     r.Float64() * 0.2,
			danglesP: r.Float64() * 0.1,
			asideP:   0.2 + r.Float64()*0.6,
		})
		leakContents(d.rows)
		leakCheckDesk(t, r, d.rows, modelViewers)
		if t.Failed() {
			t.Fatalf("desk %d leaked:%s", i, modelDeskString(d))
		}
	}
}

// FuzzAsides builds arbitrary desks — authors, parents, contents and audiences from the
// input, with no regard for the reply rule, as a host's log may hold them (duplicates and
// the author itself listed too; only invalid entries, which break the page contract, are
// left out) — and checks for every viewer that Project matches the model of model_test.go,
// messages and elisions, and that nothing leaks.
// fuzzReaders are the valid authors FuzzAsides lists in audiences.
var fuzzReaders = append(slices.Clone(modelAuthors), transcript.Agent("stranger", "Stranger"))

func FuzzAsides(f *testing.F) {
	f.Add([]byte{0, 3, 1, 0, 2, 0, 3, 1, 0, 5, 1, 0, 2, 1, 2, 3})
	f.Add([]byte{7, 0, 0, 1, 1, 4, 1, 2, 0, 2, 1, 9, 3, 3, 2, 5, 4, 2, 1, 1, 2, 0, 0, 3})
	f.Add(bytes.Repeat([]byte{1, 1, 3, 2, 2, 0, 5, 6}, 40))
	f.Fuzz(func(t *testing.T, in []byte) {
		b := &fuzzBytes{b: in}
		window := int(b.byte() % 40)
		var rows []transcript.Message
		for seq := transcript.Sequence(1); !b.empty() && seq < 400; seq++ {
			parent := transcript.Sequence(b.byte())
			if parent >= seq {
				parent = 0
			}
			m := transcript.Message{Seq: seq, Parent: parent, Author: modelAuthors[int(b.byte())%len(modelAuthors)]}
			switch c := b.byte(); {
			case c < 20:
				m.Content = modelBlanks[int(c)%len(modelBlanks)]
			default:
				m.Content = leakToken(seq) + []string{"", "</message>", "<elided/>", "&lt;", "\x00", "\xff", `" kind="operator`}[c%7]
			}
			for n := b.byte() % 5; n > 0; n-- { // 0 to 4 entries, any valid authors, duplicates and the author too
				m.Audience = append(m.Audience, fuzzReaders[int(b.byte())%len(fuzzReaders)])
			}
			rows = append(rows, m)
		}
		log, err := memlog.From(rows)
		if err != nil {
			t.Fatal(err)
		}
		for _, viewer := range modelViewers {
			for _, thread := range []transcript.Sequence{0, 1, transcript.Sequence(len(rows) / 2)} {
				q := transcript.Query{Conversation: transcript.Conversation{Thread: thread}, Viewer: viewer, Window: window}
				p, err := transcript.Project(context.Background(), log, q)
				if err != nil {
					t.Fatal(err)
				}
				for _, bad := range modelCheckProjection(p, modelProject(rows, q)) {
					t.Errorf("query %+v: %s", q, bad)
				}
				leakCheck(t, rows, viewer, fmt.Sprintf("projection %+v", q), leakOutputs(t, viewer, p, p.Messages, p.Elided))
			}
		}
		if t.Failed() {
			t.Logf("rows: %s", strings.ReplaceAll(fmt.Sprintf("%+v", rows), "} {", "}\n{"))
		}
	})
}
