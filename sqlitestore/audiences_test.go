package sqlitestore

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sharedesk/transcript"
)

var (
	opAuthor    = transcript.Operator()
	triageAgent = transcript.Agent("triage", "Triage")
	reviewAgent = transcript.Agent("review", "Reviewer")
	anaPerson   = transcript.Person("ana", "Ana Lima ✍")
)

// audienceRows returns the number of rows of the file's audiences table.
func audienceRows(t *testing.T, st *Store) int {
	t.Helper()
	var n int
	if err := st.readers.QueryRowContext(t.Context(), `SELECT count(*) FROM audiences`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestMigrateFromV3 writes rows with the version 3 schema, which knew no asides, then opens
// the file: Open migrates it, every row reads back as it was (no Audience), and the desks
// take asides and replies to them after their old rows.
func TestMigrateFromV3(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "v3.db")
	db := openRaw(t, path)
	if found, err := migrate(ctx, db, 3); err != nil || found != 0 {
		t.Fatalf("migrate to version 3: found %d, %v", found, err)
	}
	at := time.Date(2026, 4, 1, 9, 0, 0, 456_000, time.UTC)
	want := map[string][]transcript.Message{
		"eng": {
			{Seq: 1, Author: opAuthor, Content: "deploy at noon?", At: at},
			{Seq: 2, Parent: 1, Author: triageAgent, Content: "yes", At: at.Add(time.Second)},
			{Seq: 3, Author: transcript.System("workflow", "Nightly"), Content: "  ", At: at.Add(2 * time.Second)},
		},
		"sales": {
			{Seq: 1, Author: anaPerson, Content: "naïve café 🚀", At: at.Add(-time.Hour)},
		},
	}
	authorIDs := map[transcript.Author]int{}
	for i, desk := range []string{"eng", "sales"} {
		if _, err := db.ExecContext(ctx, `INSERT INTO desks (id, name) VALUES (?, ?)`, i+1, desk); err != nil {
			t.Fatal(err)
		}
		for _, m := range want[desk] {
			id, ok := authorIDs[m.Author]
			if !ok {
				id = len(authorIDs) + 1
				authorIDs[m.Author] = id
				if _, err := db.ExecContext(ctx, `INSERT INTO authors (id, kind, ident, label) VALUES (?, ?, ?, ?)`, id, int64(m.Author.Kind), m.Author.ID, m.Author.Label); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := db.ExecContext(ctx, `INSERT INTO messages (desk, seq, parent, author, content, at_us) VALUES (?, ?, ?, ?, ?, ?)`,
				i+1, int64(m.Seq), int64(m.Parent), id, m.Content, m.At.UnixMicro()); err != nil {
				t.Fatal(err)
			}
		}
	}
	db.Close()

	st, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open of a version 3 database: %v", err)
	}
	defer st.Close()
	if v := schemaVersion(t, path); v != SchemaVersion {
		t.Errorf("schema version %d after Open, want %d", v, SchemaVersion)
	}
	for desk, rows := range want {
		if diff := cmp.Diff(rows, readDesk(t, st, desk)); diff != "" {
			t.Errorf("desk %q after the migration (-want +got):\n%s", desk, diff)
		}
	}
	if n := audienceRows(t, st); n != 0 {
		t.Errorf("%d audiences rows after the migration, want none", n)
	}
	aside, err := st.Append(ctx, "eng", transcript.Message{Parent: 2, Author: opAuthor, Content: "between us", Audience: []transcript.Author{triageAgent}})
	if err != nil {
		t.Fatal(err)
	}
	reply, err := st.Append(ctx, "eng", transcript.Message{Parent: aside.Seq, Author: triageAgent, Content: "agreed"})
	if err != nil {
		t.Fatal(err)
	}
	if aside.Seq != 4 || !cmp.Equal(reply.Audience, []transcript.Author{opAuthor}) {
		t.Errorf("after the migration: aside %d, reply's audience %v; want row 4 and [operator]", aside.Seq, reply.Audience)
	}
	if diff := cmp.Diff(append(want["eng"], aside, reply), readDesk(t, st, "eng")); diff != "" {
		t.Errorf("desk eng after new asides (-want +got):\n%s", diff)
	}
	if _, err := st.Append(ctx, "eng", transcript.Message{Parent: aside.Seq, Author: anaPerson, Content: "may I?"}); !errors.Is(err, transcript.ErrNotReadable) {
		t.Errorf("a reply by an outsider after the migration: %v, want ErrNotReadable", err)
	}
}

// TestPageOwnsAudiences: the audiences a read returns are the caller's. Changing them, or
// appending to one, changes neither another row's, nor the next read's, nor what later
// appends store; the same holds for the Audience Append returns. And a page of asides
// costs a fixed number of allocations more than a page of desk rows, not one more a row.
func TestPageOwnsAudiences(t *testing.T) {
	ctx := t.Context()
	st := openTempInternal(t)
	const rows = 64
	var desk, asides []transcript.Message
	for i := range rows {
		m := transcript.Message{Author: opAuthor, Content: fmt.Sprint("row ", i)}
		desk = append(desk, m)
		m.Audience = []transcript.Author{triageAgent, anaPerson}
		if i%2 == 1 {
			m.Audience = []transcript.Author{reviewAgent}
		}
		asides = append(asides, m)
	}
	if err := st.AppendBatch(ctx, "desk", desk); err != nil {
		t.Fatal(err)
	}
	if err := st.AppendBatch(ctx, "asides", asides); err != nil {
		t.Fatal(err)
	}
	first := readDesk(t, st, "asides")
	want := []transcript.Author{anaPerson, triageAgent} // canonical: people before agents
	for i, m := range first {
		w := want
		if i%2 == 1 {
			w = []transcript.Author{reviewAgent}
		}
		if !cmp.Equal(m.Audience, w) {
			t.Fatalf("row %d: audience %v, want %v", m.Seq, m.Audience, w)
		}
		if cap(m.Audience) != len(m.Audience) {
			t.Errorf("row %d: audience of length %d has capacity %d: appending to it would reach the next row's", m.Seq, len(m.Audience), cap(m.Audience))
		}
	}
	first[0].Audience[0].Label = "changed"
	first[0].Audience = append(first[0].Audience, reviewAgent)
	first[2].Audience[1] = opAuthor
	if got := readDesk(t, st, "asides"); !cmp.Equal(got[0].Audience, want) || !cmp.Equal(got[2].Audience, want) || !cmp.Equal(first[1].Audience, []transcript.Author{reviewAgent}) {
		t.Errorf("after the caller changed a page's audiences, rows 1 and 3 read %v and %v, the page's row 2 %v", got[0].Audience, got[2].Audience, first[1].Audience)
	}
	m, err := st.Append(ctx, "asides", transcript.Message{Author: opAuthor, Content: "more", Audience: []transcript.Author{anaPerson, triageAgent}})
	if err != nil {
		t.Fatal(err)
	}
	m.Audience[0] = reviewAgent
	if got := readDesk(t, st, "asides"); !cmp.Equal(got[rows].Audience, want) {
		t.Errorf("after the caller changed Append's result, the row reads %v, want %v", got[rows].Audience, want)
	}

	log, deskLog := st.Log("asides"), st.Log("desk")
	read := func(l transcript.Log) func() {
		return func() {
			if _, err := l.ReadBefore(ctx, rows+1, rows); err != nil {
				t.Fatal(err)
			}
		}
	}
	withAsides, without := testing.AllocsPerRun(20, read(log)), testing.AllocsPerRun(20, read(deskLog))
	t.Logf("a read of %d rows: %.0f allocations, %.0f when all are asides", rows, without, withAsides)
	if withAsides-without > 4 {
		t.Errorf("a read of %d asides costs %.0f allocations more than one of desk rows, want at most 4 (one array for the page's audiences, and the lookup of the page's sets)", rows, withAsides-without)
	}
}

// TestMissingAudienceRow: a row naming an audience the file does not hold (a file changed
// outside this package) is a read error naming the row and the audience, and a reply to it
// is refused without storing anything.
func TestMissingAudienceRow(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "broken.db")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Append(ctx, "eng", transcript.Message{Author: opAuthor, Content: "fine"}); err != nil {
		t.Fatal(err)
	}
	db := openRaw(t, path)
	if _, err := db.ExecContext(ctx, `INSERT INTO messages (desk, seq, parent, author, audience, content, at_us) VALUES (1, 2, 0, 1, 999, 'orphan', 0)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = st.Log("eng").ReadBefore(ctx, 0, 10)
	if err == nil || !strings.Contains(err.Error(), "row 2 names audience 999") {
		t.Errorf("ReadBefore over a row naming a missing audience: %v, want an error naming row 2 and audience 999", err)
	}
	_, err = st.Append(ctx, "eng", transcript.Message{Parent: 2, Author: triageAgent, Content: "reply"})
	if err == nil || !strings.Contains(err.Error(), "audience 999") || strings.Contains(err.Error(), "orphan") {
		t.Errorf("Append of a reply to that row: %v, want an error naming audience 999, without the row's content", err)
	}
	if page, err := st.Log("eng").ReadBefore(ctx, 2, 10); err != nil || len(page.Messages) != 1 {
		t.Errorf("ReadBefore below that row: %+v, %v; want the good row alone", page, err)
	}
}

// TestAudienceOfFailedBatch: a batch refused after it created an audiences row leaves
// neither the row nor a cache entry for it, and the audience's next append stores it.
func TestAudienceOfFailedBatch(t *testing.T) {
	ctx := t.Context()
	st := openTempInternal(t)
	err := st.AppendBatch(ctx, "eng", []transcript.Message{
		{Author: opAuthor, Content: "to Triage", Audience: []transcript.Author{triageAgent}},
		{Parent: transcript.BatchParent(0), Author: reviewAgent, Content: "may I?"}, // refused by the reply rule
	})
	var appendErr *AppendError
	if !errors.As(err, &appendErr) || appendErr.Index != 1 || !errors.Is(err, transcript.ErrNotReadable) || !errors.Is(err, transcript.ErrInvalidMessage) {
		t.Fatalf("AppendBatch with an outsider's reply: %v, want an *AppendError for message 1 matching ErrNotReadable and ErrInvalidMessage", err)
	}
	if strings.Contains(err.Error(), "to Triage") {
		t.Errorf("the refusal quotes the aside: %v", err)
	}
	if n := audienceRows(t, st); n != 0 {
		t.Errorf("%d audiences rows after the refused batch, want none", n)
	}
	if len(st.audiences.byID) != 0 || len(st.audiences.byKey) != 0 {
		t.Errorf("the cache holds the refused batch's audience")
	}
	m, err := st.Append(ctx, "eng", transcript.Message{Author: opAuthor, Content: "to Triage", Audience: []transcript.Author{triageAgent}})
	if err != nil {
		t.Fatal(err)
	}
	if got := readDesk(t, st, "eng"); len(got) != 1 || !cmp.Equal(got[0], m) {
		t.Errorf("desk reads %+v, want %+v alone", got, m)
	}
}

// TestBatchRepliesToBatchRows: a reply to an earlier row of its batch, named by BatchParent
// or by the Seq that row will get, replies to it as stored, its audience filled in; one
// audiences row serves every row with the same audience.
func TestBatchRepliesToBatchRows(t *testing.T) {
	ctx := t.Context()
	st := openTempInternal(t)
	if _, err := st.Append(ctx, "eng", transcript.Message{Author: opAuthor, Content: "desk row"}); err != nil {
		t.Fatal(err)
	}
	if err := st.AppendBatch(ctx, "eng", []transcript.Message{
		{Parent: 1, Author: anaPerson, Content: "to the agents", Audience: []transcript.Author{triageAgent, reviewAgent}}, // 2
		{Parent: transcript.BatchParent(0), Author: triageAgent, Content: "by BatchParent"},                               // 3
		{Parent: 3, Author: reviewAgent, Content: "by Seq"},                                                               // 4
		{Parent: 1, Author: reviewAgent, Content: "a public reply"},                                                       // 5
	}); err != nil {
		t.Fatal(err)
	}
	want := [][]transcript.Author{nil, {reviewAgent, triageAgent}, {anaPerson, reviewAgent}, {anaPerson, triageAgent}, nil}
	for i, m := range readDesk(t, st, "eng") {
		if !cmp.Equal(m.Audience, want[i]) {
			t.Errorf("row %d: audience %v, want %v", m.Seq, m.Audience, want[i])
		}
	}
	if n := audienceRows(t, st); n != 3 {
		t.Errorf("%d audiences rows, want 3", n)
	}
	if err := st.AppendBatch(ctx, "eng", []transcript.Message{
		{Parent: 2, Author: triageAgent, Content: "again"},
		{Parent: 6, Author: opAuthor, Content: "and again"}, // all three: a new set
	}); err != nil {
		t.Fatal(err)
	}
	if n := audienceRows(t, st); n != 4 {
		t.Errorf("%d audiences rows after replies with known audiences and one new, want 4", n)
	}
}

// TestAudiencesAcrossStores: a Store reads, and replies to, the asides another Store on the
// same file wrote, although its cache has never seen their audiences, also with a single
// reader connection.
func TestAudiencesAcrossStores(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "shared.db")
	a, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(ctx, path, WithReaders(1))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	aside, err := a.Append(ctx, "eng", transcript.Message{Author: opAuthor, Content: "for Triage", Audience: []transcript.Author{triageAgent}})
	if err != nil {
		t.Fatal(err)
	}
	reply, err := b.Append(ctx, "eng", transcript.Message{Parent: aside.Seq, Author: triageAgent, Content: "seen"})
	if err != nil || !cmp.Equal(reply.Audience, []transcript.Author{opAuthor}) {
		t.Fatalf("the other store's reply: audience %v, %v; want [operator]", reply.Audience, err)
	}
	c, err := Open(ctx, path, WithReaders(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if diff := cmp.Diff([]transcript.Message{aside, reply}, readDesk(t, c, "eng")); diff != "" {
		t.Errorf("a third store reads (-want +got):\n%s", diff)
	}
	if n := audienceRows(t, a); n != 2 {
		t.Errorf("%d audiences rows, want 2", n)
	}
}

// TestAudienceText: an audience entry's id and label are stored text, refused as an author's
// are: not UTF-8, or holding a NUL byte.
func TestAudienceText(t *testing.T) {
	ctx := t.Context()
	st := openTempInternal(t)
	for _, entry := range []transcript.Author{
		transcript.Agent("tri\x00age", "Triage"),
		transcript.Agent("triage", "Tri\x00age"),
		transcript.Person("\xffana", "Ana"),
		transcript.Person("ana", "An\xffa"),
	} {
		_, err := st.Append(ctx, "eng", transcript.Message{Author: opAuthor, Content: "x", Audience: []transcript.Author{reviewAgent, entry}})
		if !errors.Is(err, transcript.ErrInvalidMessage) || !strings.Contains(err.Error(), "audience entry 1") {
			t.Errorf("Append with the audience entry %q (%q): %v, want ErrInvalidMessage naming audience entry 1", entry, entry.Label, err)
		}
	}
	if desks, err := st.Desks(ctx); err != nil || len(desks) != 0 {
		t.Errorf("Desks = %q, %v after the refusals; want none", desks, err)
	}
}

// TestAudienceCacheLimit: past the cache's limit, audiences are still written and read
// right, and the cache never holds more than its limit.
func TestAudienceCacheLimit(t *testing.T) {
	ctx := t.Context()
	st := openTempInternal(t)
	st.audiences.limit = 2
	var msgs []transcript.Message
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		msgs = append(msgs, transcript.Message{Author: opAuthor, Content: "to " + id, Audience: []transcript.Author{transcript.Agent(id, strings.ToUpper(id))}})
	}
	if err := st.AppendBatch(ctx, "eng", msgs); err != nil {
		t.Fatal(err)
	}
	for i := range msgs { // replies whose parents' audiences the cache may have lost
		if _, err := st.Append(ctx, "eng", transcript.Message{Parent: transcript.Sequence(i + 1), Author: opAuthor, Content: "again"}); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		got := readDesk(t, st, "eng")
		if len(got) != 10 {
			t.Fatalf("%d rows, want 10", len(got))
		}
		for i, m := range got {
			if want := msgs[i%5].Audience; !slices.Equal(m.Audience, want) {
				t.Errorf("row %d: audience %v, want %v", m.Seq, m.Audience, want)
			}
		}
	}
	if n, m := len(st.audiences.byID), len(st.audiences.byKey); n == 0 || n > 2 || m != n {
		t.Errorf("the cache holds %d audiences by id and %d by key, want as many, 1 or 2 (its limit)", n, m)
	}
}
