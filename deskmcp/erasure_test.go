package deskmcp_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/deskmcp"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/internal/proptest"
)

// erasureDesk is what TestErasure knows of its desk: every row, and the words of each.
type erasureDesk struct {
	t       *testing.T
	st      store
	svc     *deskmcp.Service
	cast    []transcript.Author
	agents  map[transcript.Author]*agent
	rows    map[transcript.Sequence]*erasureRow
	roots   []transcript.Sequence
	erased  map[string]bool // words a redaction erased
	words   int
	outputs int
	digests int // answers whose text held a digest
}

// erasureRow is one row: who may read it (nil: the whole desk), and every word it ever
// held, its edits' included.
type erasureRow struct {
	m        transcript.Message
	readers  []transcript.Author
	words    []string
	redacted bool
}

func (r *erasureRow) readableBy(p transcript.Author) bool {
	return r.readers == nil || p.Kind == transcript.KindOperator || slices.ContainsFunc(r.readers, p.Same)
}

// word returns a new word no other contains.
func (d *erasureDesk) word() string {
	d.words++
	return fmt.Sprintf("w%04dz", d.words)
}

// check fails the test when out, an answer to p, holds an erased word or a word of a row p
// may not read.
func (d *erasureDesk) check(p transcript.Author, what string, out ...any) {
	d.t.Helper()
	d.outputs++
	text := fmt.Sprint(out...)
	for _, r := range d.rows {
		for _, w := range r.words {
			switch {
			case !strings.Contains(text, w):
			case d.erased[w]:
				d.t.Fatalf("%s to %s holds the erased word %s of #%d:\n%s", what, p, w, r.m.Seq, text)
			case !r.readableBy(p):
				d.t.Fatalf("%s to %s holds the word %s of #%d, which it may not read:\n%s", what, p, w, r.m.Seq, text)
			}
		}
	}
}

// call calls a tool as p and checks its answer, refusals included.
func (d *erasureDesk) call(p transcript.Author, tool string, args any, out any) error {
	d.t.Helper()
	text, err := d.agents[p].Call(tool, args, out)
	structured, _ := json.Marshal(out) // with what its pointers (a digest) point to
	if strings.Contains(text, "<digest ") {
		d.digests++
	}
	d.check(p, tool, text, fmt.Sprintf("%+v", out), string(structured))
	return err
}

// sweep asks every participant, in a new session, for everything it can see: the views
// and reads of the channel and of every thread, the threads, and a correction of every
// redacted row (refused) and of a missing one.
func (d *erasureDesk) sweep() {
	d.t.Helper()
	for _, p := range d.cast {
		d.agents[p] = connect(d.t, d.svc, p)
		convs := []transcript.Sequence{0}
		for _, root := range d.roots {
			if d.rows[root].readableBy(p) {
				convs = append(convs, root)
			}
		}
		for _, th := range convs {
			d.call(p, "view", deskmcp.ViewArgs{Thread: th}, new(transcript.Projection))
			d.call(p, "view", deskmcp.ViewArgs{Thread: th, Digest: true, Window: 2}, new(transcript.Projection))
			d.call(p, "read_desk", deskmcp.ReadDeskArgs{Thread: th}, new(deskmcp.ReadDeskResult))
			d.call(p, "read_desk", deskmcp.ReadDeskArgs{Thread: th, MaxTokens: 200}, new(deskmcp.ReadDeskResult))
		}
		d.call(p, "list_threads", deskmcp.ListThreadsArgs{}, new(deskmcp.ThreadsResult))
		for _, r := range d.rows {
			for i := range r.words {
				d.search(p, r, i)
			}
		}
		for seq, r := range d.rows {
			if r.redacted {
				d.call(p, "edit_message", deskmcp.EditMessageArgs{Seq: seq, Content: d.word()}, new(transcript.Message))
				d.call(p, "redact_message", deskmcp.RedactMessageArgs{Seq: seq}, new(transcript.Message))
			}
		}
	}
}

// fold folds the digests of the channel and of every thread, when the store keeps them,
// with a policy that folds all but the newest qualifying row: the reads after it meet
// digests that hold the words of rows a later redaction erases.
func (d *erasureDesk) fold() {
	d.t.Helper()
	st, ok := d.st.Log(desk).(digest.Store)
	if !ok {
		return
	}
	for _, th := range append([]transcript.Sequence{0}, d.roots...) {
		c := transcript.Conversation{Desk: desk, Thread: th}
		if _, _, err := digest.Fold(d.t.Context(), st, digest.Extractive{}, digest.Policy{KeepLive: 1, FoldAfter: 1}, c); err != nil {
			d.t.Fatalf("folding %v: %v", c, err)
		}
	}
}

// search searches as p for the i-th word row r held, and checks the answer: r alone when
// p may read r, r is not redacted and the word is its current one (the last), else none.
func (d *erasureDesk) search(p transcript.Author, r *erasureRow, i int) {
	d.t.Helper()
	var res deskmcp.SearchDeskResult
	err := d.call(p, "search_desk", deskmcp.SearchDeskArgs{Query: r.words[i]}, &res)
	var want []transcript.Sequence
	if r.readableBy(p) && !r.redacted && i == len(r.words)-1 {
		want = []transcript.Sequence{r.m.Seq}
	}
	switch {
	case err != nil:
		d.t.Fatalf("%s's search for a word of #%d: %v", p, r.m.Seq, err)
	case !slices.Equal(seqs(res.Messages), want) || res.Next != 0:
		d.t.Fatalf("%s's search for word %d of #%d (redacted %v) found %v, next %d; want %v", p, i, r.m.Seq, r.redacted, seqs(res.Messages), res.Next, want)
	}
}

// TestErasure is the erasure property, through every tool: on random desks of roots,
// replies, asides, edits and redactions by their authors and the operator, no answer to
// anyone — view, read_desk (with and without max_tokens), list_threads, search_desk,
// edit_message's and redact_message's answers and refusals — holds a word a redaction
// erased (the row's own or one of its earlier edits'), and none holds a word of an aside,
// or of an edit of one, that its participant may not read; and search_desk finds a row by
// its current word only, when its participant may read it and it is not redacted. It draws
// 3 desks, one under the race detector (proptest.Desks).
func TestErasure(t *testing.T) {
	for seed := range uint64(proptest.Desks(3, 1)) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			forEachStore(t, func(t *testing.T, st store) {
				d := &erasureDesk{
					t: t, st: st, svc: service(t, st),
					cast:   []transcript.Author{agentA, agentB, ana, transcript.Operator()},
					agents: map[transcript.Author]*agent{},
					rows:   map[transcript.Sequence]*erasureRow{},
					erased: map[string]bool{},
				}
				for _, p := range d.cast {
					d.agents[p] = connect(t, d.svc, p)
				}
				r := rand.New(rand.NewPCG(seed, 22))
				for i := range 60 {
					d.step(r)
					if i%10 == 9 {
						d.fold()
					}
				}
				d.sweep()
				if len(d.erased) == 0 {
					t.Fatal("no redaction was made: the test tests nothing")
				}
				if _, keeps := st.Log(desk).(digest.Store); keeps && d.digests == 0 {
					t.Fatal("no answer held a digest: the test tests none")
				}
			})
		})
	}
}

// step makes one random move: a post, an edit, a redaction or a read, checking its answer.
func (d *erasureDesk) step(r *rand.Rand) {
	d.t.Helper()
	p := d.cast[r.IntN(len(d.cast))]
	readable := func(ok func(*erasureRow) bool) []*erasureRow {
		var out []*erasureRow
		for _, row := range d.rows {
			if row.readableBy(p) && ok(row) {
				out = append(out, row)
			}
		}
		slices.SortFunc(out, func(a, b *erasureRow) int { return int(a.m.Seq) - int(b.m.Seq) })
		return out
	}
	switch k := r.IntN(10); {
	case k < 3: // a root, or a reply to one
		args := deskmcp.PostMessageArgs{Content: d.word()}
		var readers []transcript.Author
		if roots := readable(func(row *erasureRow) bool { return row.m.IsRoot() }); len(roots) > 0 && r.IntN(2) == 0 {
			parent := roots[r.IntN(len(roots))]
			args.Parent, readers = parent.m.Seq, parent.readers
		} else if r.IntN(2) == 0 {
			other := d.cast[r.IntN(len(d.cast))]
			if other.Same(p) {
				break
			}
			args.Audience = []string{other.String()}
			readers = []transcript.Author{p, other}
		}
		var m transcript.Message
		if err := d.call(p, "post_message", args, &m); err != nil {
			d.t.Fatalf("%s's post %+v: %v", p, args, err)
		}
		d.rows[m.Seq] = &erasureRow{m: m, readers: readers, words: []string{args.Content}}
		if m.IsRoot() {
			d.roots = append(d.roots, m.Seq)
		}
	case k < 5: // an edit of one's own row
		own := readable(func(row *erasureRow) bool { return row.m.Author.Same(p) && !row.redacted })
		if len(own) == 0 {
			return
		}
		row := own[r.IntN(len(own))]
		w := d.word()
		row.words = append(row.words, w) // before the call: the word is the row's
		if err := d.call(p, "edit_message", deskmcp.EditMessageArgs{Seq: row.m.Seq, Content: w}, new(transcript.Message)); err != nil {
			d.t.Fatalf("%s's edit of #%d: %v", p, row.m.Seq, err)
		}
	case k < 7: // a redaction: of one's own row, or by the operator of any
		mayRedact := readable(func(row *erasureRow) bool {
			return !row.redacted && (row.m.Author.Same(p) || p.Kind == transcript.KindOperator)
		})
		if len(mayRedact) == 0 {
			return
		}
		row := mayRedact[r.IntN(len(mayRedact))]
		row.redacted = true
		for _, w := range row.words { // before the call: its answer holds none of them
			d.erased[w] = true
		}
		if err := d.call(p, "redact_message", deskmcp.RedactMessageArgs{Seq: row.m.Seq}, new(transcript.Message)); err != nil {
			d.t.Fatalf("%s's redaction of #%d: %v", p, row.m.Seq, err)
		}
	default: // a read, a view or the threads
		convs := []transcript.Sequence{0}
		for _, root := range d.roots {
			if d.rows[root].readableBy(p) {
				convs = append(convs, root)
			}
		}
		th := convs[r.IntN(len(convs))]
		d.call(p, "read_desk", deskmcp.ReadDeskArgs{Thread: th}, new(deskmcp.ReadDeskResult))
		d.call(p, "view", deskmcp.ViewArgs{Thread: th, Digest: true}, new(transcript.Projection))
		d.call(p, "list_threads", deskmcp.ListThreadsArgs{}, new(deskmcp.ThreadsResult))
		if len(d.rows) > 0 {
			rows := slices.Sorted(maps.Keys(d.rows))
			row := d.rows[rows[r.IntN(len(rows))]]
			d.search(p, row, r.IntN(len(row.words)))
		}
	}
}
