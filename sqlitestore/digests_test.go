package sqlitestore_test

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/importer"
	"github.com/sharedesk/transcript/internal/storetest"
	"github.com/sharedesk/transcript/sqlitestore"
	"github.com/sharedesk/transcript/storage"
)

// TestDigestErasureFiles: once a redaction has committed and the store is closed, no file
// in the database's directory holds a word of the digests the redaction deleted: neither
// digests checkpointed into the database before the redaction (one of them over a page,
// on overflow pages) nor those of storetest.DigestErasure, written and deleted while the
// store stayed open; a digest no correction touched is still there. Another connection
// keeps the file open across the closes, as another process would, so that SQLite does
// not remove the write-ahead log by itself.
func TestDigestErasureFiles(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	path := filepath.Join(dir, "desk.db")
	const (
		erased = "qzvxkwfoldedsecret"
		kept   = "qzvxkwfoldedkept"
	)
	large := strings.Repeat("the desk talked about the deploy ", 400) // over a page
	open := func() *sqlitestore.Store {
		t.Helper()
		st, err := sqlitestore.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	st := open()
	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ana, bot := transcript.Person("ana", "Ana"), transcript.Agent("triage", "Triage")
	for _, m := range []transcript.Message{
		{Author: ana, Content: "the deploy plan"},               // 1
		{Author: bot, Parent: 1, Content: "the key: " + erased}, // 2
		{Author: ana, Content: "deploy done"},                   // 3
		{Author: ana, Content: "next week"},                     // 4
	} {
		if _, err := st.Append(ctx, "eng", m); err != nil {
			t.Fatal(err)
		}
	}
	log := st.Log("eng").(digest.Store)
	channel, thread := transcript.Conversation{Desk: "eng"}, transcript.Conversation{Desk: "eng", Thread: 1}
	for _, d := range []transcript.Digest{
		{Conversation: channel, Through: 1, Rows: 1, Generation: 1, Digester: "extractive", Text: "ana: the deploy plan " + kept},
		{Conversation: channel, Through: 3, Rows: 3, Generation: 2, Digester: "extractive", Text: large + "triage: the key: " + erased + " " + large},
		{Conversation: thread, Through: 2, Rows: 1, Generation: 1, Digester: "extractive", Text: "triage: the key: " + erased},
	} {
		if err := log.PutDigest(ctx, d, storetest.MustDigestRead(t, log)); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil { // checkpoints: the digests are in the database file
		t.Fatal(err)
	}
	for _, w := range []string{erased, kept} {
		if len(filesHolding(t, dir, w)) == 0 {
			t.Fatalf("no file holds %q once written: the test would find nothing", w)
		}
	}
	var n int
	if err := other.QueryRow(`SELECT count(*) FROM digests`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("%d digests in the file (%v), want 3", n, err)
	}

	st = open()
	if _, err := st.Append(ctx, "eng", transcript.Message{Corrects: 2, Author: bot, Redacted: true}); err != nil {
		t.Fatal(err)
	}
	storetest.DigestErasure(t, storetest.DigestDeskOf(t, st, "ops"))
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	for _, w := range append([]string{erased}, storetest.DigestErasedWords...) {
		if files := filesHolding(t, dir, w); len(files) > 0 {
			t.Errorf("after the redactions and Close, %v hold the erased %q", files, w)
		}
	}
	if len(filesHolding(t, dir, kept)) == 0 {
		t.Errorf("no file holds %q of the digest below the redacted row", kept)
	}
}

// TestDigestRaceAcrossStores: two Stores on one file, as two processes would, put the same
// generation at once, 40 times: each time exactly one is stored.
func TestDigestRaceAcrossStores(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "desk.db")
	const generations = 40
	var logs [2]digest.Store
	for i := range logs {
		st, err := sqlitestore.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		logs[i] = st.Log("eng").(digest.Store)
		if i == 0 {
			rows := make([]transcript.Message, generations)
			for j := range rows {
				rows[j] = transcript.Message{Author: transcript.Operator(), Content: "a row"}
			}
			if err := st.AppendBatch(ctx, "eng", rows); err != nil {
				t.Fatal(err)
			}
		}
	}
	reads := [2]storage.DigestRead{storetest.MustDigestRead(t, logs[0]), storetest.MustDigestRead(t, logs[1])}
	for gen := 1; gen <= generations; gen++ {
		var (
			wg    sync.WaitGroup
			start = make(chan struct{})
			errs  [2]error
		)
		for i, log := range logs {
			d := transcript.Digest{Conversation: transcript.Conversation{Desk: "eng"}, Through: transcript.Sequence(gen), Generation: gen, Digester: "test", Text: fmt.Sprintf("by store %d", i)}
			wg.Go(func() {
				<-start
				errs[i] = log.PutDigest(ctx, d, reads[i])
			})
		}
		close(start)
		wg.Wait()
		stored := 0
		for i, err := range errs {
			switch {
			case err == nil:
				stored++
			case !errors.Is(err, digest.ErrSuperseded):
				t.Fatalf("generation %d through store %d: %v", gen, i, err)
			}
		}
		if stored != 1 {
			t.Fatalf("generation %d put through two stores at once: %d stored, want 1", gen, stored)
		}
	}
}

// TestExportLeavesDigestsOut: an export is the desk's rows, never its digests (they are
// derived from the rows), and a desk imported from it holds no digest until it folds.
func TestExportLeavesDigestsOut(t *testing.T) {
	ctx := t.Context()
	st, err := sqlitestore.Open(ctx, filepath.Join(t.TempDir(), "desk.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ana := transcript.Person("ana", "Ana")
	for _, text := range []string{"one", "two", "three"} {
		if _, err := st.Append(ctx, "eng", transcript.Message{Author: ana, Content: text}); err != nil {
			t.Fatal(err)
		}
	}
	const folded = "qzvxkwonlyinthedigest"
	d := transcript.Digest{Conversation: transcript.Conversation{Desk: "eng"}, Through: 2, Rows: 2, Generation: 1, Digester: "extractive", Text: "ana: one, two " + folded}
	if err := st.Log("eng").(digest.Store).PutDigest(ctx, d, storetest.MustDigestRead(t, st.Log("eng").(digest.Store))); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := importer.Export(ctx, &out, st.Log("eng")); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), folded) || strings.Contains(out.String(), "extractive") {
		t.Errorf("the export holds the digest:\n%s", out.String())
	}
	if lines := strings.Count(out.String(), "\n"); lines != 3 {
		t.Errorf("the export has %d lines, want the desk's 3 rows", lines)
	}
	if _, err := importer.Import(ctx, st, "copy", importer.JSONLines(bytes.NewReader(out.Bytes()), int64(out.Len()))); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := st.Log("copy").(digest.Store).Digest(ctx, transcript.Conversation{Desk: "copy"}, 0); err != nil || ok {
		t.Errorf("Digest of the imported desk = %+v, %v, %v; want none", got, ok, err)
	}
}

// BenchmarkDigest reads the newest digest of a channel that holds 500 generations, below no
// bound and below a bound in the middle of the desk, as Query.Digest's one read does.
func BenchmarkDigest(b *testing.B) {
	ctx := b.Context()
	st, err := sqlitestore.Open(ctx, filepath.Join(b.TempDir(), "desk.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	rows := make([]transcript.Message, 10_000)
	for i := range rows {
		rows[i] = transcript.Message{Author: transcript.Operator(), Content: "a row of the desk"}
	}
	if err := st.AppendBatch(ctx, "eng", rows); err != nil {
		b.Fatal(err)
	}
	log := st.Log("eng").(digest.Store)
	channel := transcript.Conversation{Desk: "eng"}
	for g := 1; g <= 500; g++ {
		d := transcript.Digest{Conversation: channel, Through: transcript.Sequence(20 * g), Rows: 20 * g, Generation: g, Digester: "extractive", Text: strings.Repeat("an outline line\n", 200)}
		if err := log.PutDigest(ctx, d, storetest.MustDigestRead(b, log)); err != nil {
			b.Fatal(err)
		}
	}
	for _, below := range []transcript.Sequence{0, 5_000} {
		b.Run(fmt.Sprintf("below=%d", below), func(b *testing.B) {
			for b.Loop() {
				if _, ok, err := log.Digest(ctx, channel, below); err != nil || !ok {
					b.Fatal(ok, err)
				}
			}
		})
	}
}

// TestDigestsGoWithADeskDeletedByOldCode: a desk deleted by a process that does not know of
// digests, as older versions delete one (its rows, then its desks row renamed or deleted,
// in plain SQL on the file), leaves no digest of it (storetest.DigestsGoWithDesk), and the
// file holds none under its id.
func TestDigestsGoWithADeskDeletedByOldCode(t *testing.T) {
	for _, c := range []struct{ name, deleteRow string }{
		{"renamed", `UPDATE desks SET name = ' deleted ' || id WHERE id = ?1`}, // version 11's and 12's DeleteDesk
		{"dropped", `DELETE FROM desks WHERE id = ?1`},                         // an older DeleteDesk
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			path := filepath.Join(t.TempDir(), "desk.db")
			st, err := sqlitestore.Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			old, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
			if err != nil {
				t.Fatal(err)
			}
			defer old.Close()
			var id int64
			storetest.DigestsGoWithDesk(t, st, func(desk string) {
				if err := old.QueryRowContext(ctx, `SELECT id FROM desks WHERE name = ?1`, desk).Scan(&id); err != nil {
					t.Fatal(err)
				}
				tx, err := old.BeginTx(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer tx.Rollback()
				for _, stmt := range []string{`DELETE FROM messages WHERE desk = ?1`, c.deleteRow} {
					if _, err := tx.ExecContext(ctx, stmt, id); err != nil {
						t.Fatalf("%s: %v", stmt, err)
					}
				}
				if err := tx.Commit(); err != nil {
					t.Fatal(err)
				}
			})
			var n int
			if err := old.QueryRowContext(ctx, `SELECT count(*) FROM digests WHERE desk = ?1`, id).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != 0 {
				t.Errorf("desk gone deleted by code that knows no digests: %d digests remain under its id, want none", n)
			}
		})
	}
}
