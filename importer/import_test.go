package importer_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/importer"
	"github.com/sharedesk/transcript/internal/exportfixture"
	"github.com/sharedesk/transcript/sqlitestore"
)

func openStore(t *testing.T) *sqlitestore.Store {
	t.Helper()
	st, err := sqlitestore.Open(t.Context(), filepath.Join(t.TempDir(), "desk.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func importLines(ctx context.Context, st importer.Store, lines string, opts ...importer.Option) (importer.Counts, error) {
	return importer.Import(ctx, st, "main", importer.JSONLines(strings.NewReader(lines), int64(len(lines))), opts...)
}

// TestImportRowsError: bad lines are one *RowsError, each problem named by its line, in
// order, and nothing is written.
func TestImportRowsError(t *testing.T) {
	st := openStore(t)
	_, err := importLines(t.Context(), st, `{"id":"1","author":{"type":"operator"},"content":"ok"}
{"id":"2","content":"no author"}

{"id":"3","author":{"type":"operator"},"content":"x","parent":"9"}
`)
	var rerr *importer.RowsError
	if !errors.As(err, &rerr) {
		t.Fatalf("Import: %v, want a *RowsError", err)
	}
	want := []importer.Problem{
		{Where: "line 2", Reason: `missing "author"`},
		{Where: "line 4", Reason: `parent "9" names no earlier message of this import and no row of desk "main"`},
	}
	if diff := cmp.Diff(want, rerr.Problems); diff != "" || rerr.N != 2 {
		t.Errorf("problems (-want +got):\n%s(N %d, want 2)", diff, rerr.N)
	}
	page, err := st.Log("main").ReadBefore(t.Context(), 0, 1)
	if err != nil || len(page.Messages) != 0 {
		t.Errorf("after a refused import the desk holds %v (%v), want nothing", page.Messages, err)
	}
}

// TestImportReportsWhatNoStoreKeeps: every line Message.ValidateNew refuses (a time
// outside the years 1 to 9999, a NUL byte, content over transcript.MaxContent) is a problem
// of that line in one *RowsError, in ValidateNew's words, and nothing is written.
func TestImportReportsWhatNoStoreKeeps(t *testing.T) {
	st := openStore(t)
	_, err := importLines(t.Context(), st, `{"id":"1","author":{"type":"operator"},"content":"ok"}
{"id":"2","author":{"type":"operator"},"content":"old","at":"0000-12-31T00:00:00Z"}
{"id":"3","author":{"type":"operator"},"content":"a\u0000b"}
{"id":"4","author":{"type":"operator"},"content":"`+strings.Repeat("x", transcript.MaxContent+1)+`"}
`)
	var rerr *importer.RowsError
	if !errors.As(err, &rerr) {
		t.Fatalf("Import: %v, want a *RowsError", err)
	}
	want := []importer.Problem{
		{Where: "line 2", Reason: "at 0000-12-31 00:00:00 +0000 UTC is outside the years 1 to 9999"},
		{Where: "line 3", Reason: "content holds a NUL byte at offset 1, which the stores refuse (PostgreSQL text cannot store one)"},
		{Where: "line 4", Reason: "content of 1048577 bytes, over the limit of 1048576"},
	}
	if diff := cmp.Diff(want, rerr.Problems); diff != "" || rerr.N != 3 {
		t.Errorf("problems (-want +got):\n%s(N %d, want 3)", diff, rerr.N)
	}
	page, err := st.Log("main").ReadBefore(t.Context(), 0, 1)
	if err != nil || len(page.Messages) != 0 {
		t.Errorf("after a refused import the desk holds %v (%v), want nothing", page.Messages, err)
	}
}

// TestImportPresentDiffers: a line whose key the desk holds as another message is a problem
// of that line, and nothing is written.
func TestImportPresentDiffers(t *testing.T) {
	st := openStore(t)
	ctx := t.Context()
	if _, err := importLines(ctx, st, `{"id":"1","author":{"type":"operator"},"content":"first"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	_, err := importLines(ctx, st, `{"id":"1","author":{"type":"operator"},"content":"changed"}`+"\n")
	var rerr *importer.RowsError
	if !errors.As(err, &rerr) || len(rerr.Problems) != 1 || rerr.Problems[0].Where != "line 1" {
		t.Fatalf("Import: %v, want a *RowsError about line 1", err)
	}
}

// refusingStore refuses every batch at its second message, as a store's AppendError does.
type refusingStore struct{ *sqlitestore.Store }

func (s refusingStore) AppendBatch(ctx context.Context, desk string, msgs []transcript.Message) error {
	return &sqlitestore.AppendError{Desk: desk, Index: 1, Err: transcript.ErrInvalidMessage}
}

// TestImportStoreRefusal: a store's refusal of a row is a *RowError naming the row's line.
func TestImportStoreRefusal(t *testing.T) {
	st := refusingStore{openStore(t)}
	_, err := importLines(t.Context(), st, `{"author":{"type":"operator"},"content":"a"}

{"author":{"type":"operator"},"content":"b"}
`)
	var rerr *importer.RowError
	if !errors.As(err, &rerr) || rerr.Where != "line 3" || !errors.Is(err, transcript.ErrInvalidMessage) {
		t.Fatalf("Import: %v, want a *RowError for line 3 matching ErrInvalidMessage", err)
	}
}

// stages records what a Progress is told.
type stages struct {
	labels []string
	read   int
	open   int
}

func (s *stages) Begin(label string, total int64) { s.labels = append(s.labels, label); s.open++ }
func (s *stages) Advance(n int)                   { s.read += n }
func (s *stages) End()                            { s.open-- }

// TestImportProgress: WithProgress hears of each stage, and of every byte read.
func TestImportProgress(t *testing.T) {
	lines := `{"author":{"type":"operator"},"content":"a"}` + "\n"
	var p stages
	if _, err := importLines(t.Context(), openStore(t), lines, importer.WithProgress(&p)); err != nil {
		t.Fatal(err)
	}
	want := []string{"reading", `checking 1 message against desk "main"`, "writing 1 message"}
	if diff := cmp.Diff(want, p.labels); diff != "" || p.read != len(lines) || p.open != 0 {
		t.Errorf("stages (-want +got):\n%s(read %d of %d bytes, %d left open)", diff, p.read, len(lines), p.open)
	}
}

// openers records which of a Database's openers ImportInto called.
type openers struct {
	st          *sqlitestore.Store
	open, reads int
}

func (o *openers) database(exists bool) importer.Database {
	return importer.Database{
		Exists:   exists,
		Open:     func(context.Context) (importer.StoreCloser, error) { o.open++; return nopClose{o.st}, nil },
		OpenRead: func(context.Context) (importer.StoreCloser, error) { o.reads++; return nopClose{o.st}, nil },
	}
}

// nopClose leaves the test's store open when ImportInto closes it.
type nopClose struct{ *sqlitestore.Store }

func (nopClose) Close() error { return nil }

// TestImportIntoOpens: ImportInto opens the database to write for good rows (while it reads
// them, when their size is known, and after, when not), read-only for bad rows, and not at
// all for rows bad alone or against an empty desk when the database does not exist yet.
func TestImportIntoOpens(t *testing.T) {
	good := `{"id":"1","author":{"type":"operator"},"content":"ok"}` + "\n"
	bad := `{"id":"2","content":"no author"}` + "\n"
	for _, tc := range []struct {
		name        string
		lines       string
		size        bool
		exists      bool
		open, reads int
		wantErr     bool
	}{
		{"good, size known", good, true, true, 1, 0, false},
		{"good, size unknown", good, false, true, 1, 0, false},
		{"good, no database yet", good, false, false, 1, 0, false},
		{"bad, size unknown", bad, false, true, 0, 1, true},
		{"bad, no database yet", bad, true, false, 0, 0, true},
		{"no parent, no database yet", `{"id":"2","author":{"type":"operator"},"content":"re","parent":"1"}` + "\n", false, false, 0, 0, true},
		{"a key twice, no database yet", good + good, false, false, 0, 0, true},
		{"a seq past the head, no database yet", `{"seq":3,"author":{"type":"operator"},"content":"late"}` + "\n", false, false, 0, 0, true},
		{"an edit by another, no database yet", good + `{"id":"3","author":{"type":"person","id":"bob"},"content":"changed","corrects":"1"}` + "\n", false, false, 0, 0, true},
		{"no parent, database", `{"id":"2","author":{"type":"operator"},"content":"re","parent":"1"}` + "\n", false, true, 1, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &openers{st: openStore(t)}
			size := int64(0)
			if tc.size {
				size = int64(len(tc.lines))
			}
			_, err := importer.ImportInto(t.Context(), o.database(tc.exists), "main", importer.JSONLines(strings.NewReader(tc.lines), size))
			var rerr *importer.RowsError
			var rowErr *importer.RowError
			if tc.wantErr != (errors.As(err, &rerr) || errors.As(err, &rowErr)) || (!tc.wantErr && err != nil) {
				t.Errorf("ImportInto: %v, want a *RowsError or *RowError: %v", err, tc.wantErr)
			}
			if o.open != tc.open || o.reads != tc.reads {
				t.Errorf("opened %d times to write and %d read-only, want %d and %d", o.open, o.reads, tc.open, tc.reads)
			}
		})
	}
}

// TestOpenJSONLinesFormat: a folder and a .zip archive given as JSON Lines are a
// *FormatError saying which export they hold.
func TestOpenJSONLinesFormat(t *testing.T) {
	zipped := filepath.Join(t.TempDir(), "export.zip")
	exportfixture.Zip(t, zipped, "testdata/discord/export", "")
	for _, tc := range []struct {
		path string
		want importer.FormatError
	}{
		{"testdata/slack/export", importer.FormatError{Name: "testdata/slack/export", Is: "a folder", Kind: "slack", Channels: "general, random"}},
		{zipped, importer.FormatError{Name: zipped, Is: "a .zip archive", Kind: "discord"}},
	} {
		_, _, err := importer.OpenJSONLines(tc.path, nil)
		var fe *importer.FormatError
		if !errors.As(err, &fe) {
			t.Errorf("OpenJSONLines(%s): %v, want a *FormatError", tc.path, err)
			continue
		}
		if diff := cmp.Diff(tc.want, *fe); diff != "" {
			t.Errorf("OpenJSONLines(%s) (-want +got):\n%s", tc.path, diff)
		}
	}
	_, _, err := importer.OpenJSONLines("-", strings.NewReader("PK\x03\x04rest"))
	if fe, ok := errors.AsType[*importer.FormatError](err); !ok || !fe.Stdin || fe.Is != "a .zip archive" {
		t.Errorf("OpenJSONLines of a .zip on standard input: %v", err)
	}
}

// TestJSONLinesBOM: JSONLines skips a byte-order mark at the start, as OpenJSONLines does.
func TestJSONLinesBOM(t *testing.T) {
	n, err := importLines(t.Context(), openStore(t), "\xEF\xBB\xBF"+`{"author":{"type":"operator"},"content":"a"}`+"\n")
	if err != nil || n.Added != 1 {
		t.Errorf("Import of a file that starts with a byte-order mark: %+v, %v", n, err)
	}
}
