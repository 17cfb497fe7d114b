package demodesk_test

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/internal/demodesk"
	"github.com/sharedesk/transcript/sqlitestore"
)

// TestTour: the first tour builds the desk and walks through it; a second, and Load, find
// it there and add nothing; without colour nothing is painted, and no line of the tables is
// wider than the terminal.
func TestTour(t *testing.T) {
	st, err := sqlitestore.Open(t.Context(), filepath.Join(t.TempDir(), "demo.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var first strings.Builder
	marks, err := demodesk.Tour(t.Context(), st, "demo", 8, demodesk.Terminal{Out: &first, Width: 100})
	if err != nil {
		t.Fatal(err)
	}
	if _, want := demodesk.Scenario(); marks != want {
		t.Errorf("Tour returned landmarks %+v, want the scenario's %+v", marks, want)
	}
	out := first.String()
	for _, want := range []string{`Built desk "demo"`, "Triage sees", "Reviewer sees", "A sharing cycle", "gap_too_large", "instead of a delta Scribe is told to start",
		"\n  Digest of the channel through #2331 · 2329 messages · extractive\n      …\n      #2327 CI (system:workflow): build #1862: login_flow flaky, retry 4\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the tour does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Error("the tour painted without colour")
	}
	for line := range strings.SplitSeq(out, "\n") {
		if strings.HasSuffix(line, " sees") && len([]rune(line)) > 100 {
			t.Errorf("a table line wider than the terminal: %q", line)
		}
	}
	var again strings.Builder
	if _, err := demodesk.Tour(t.Context(), st, "demo", 8, demodesk.Terminal{Out: &again, Width: 100}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(again.String(), `Desk "demo" already holds the demo`) {
		t.Errorf("the second tour begins %q", strings.SplitN(again.String(), "\n", 2)[0])
	}
	var loaded strings.Builder
	if err := demodesk.Load(t.Context(), st, "demo", &loaded); err != nil || !strings.HasPrefix(loaded.String(), `Desk "demo" already holds the demo`) {
		t.Errorf("Load = %v, saying %q", err, loaded.String())
	}
	rows, err := st.Log("demo").ReadBefore(t.Context(), 0, 1)
	if n := len(scenarioRows()); err != nil || rows.Messages[0].Seq != marks.PeerReply || int(marks.PeerReply) != n {
		t.Errorf("the desk's newest row is %v (%v), want the scenario's last, #%d", rows.Messages, err, n)
	}
}

// TestLoadFoldsDigest: Load builds the desk the demo command does, the channel's digest
// among it: the one Tour folds with the demo's default window.
func TestLoadFoldsDigest(t *testing.T) {
	loaded, toured := openStore(t), openStore(t)
	if err := demodesk.Load(t.Context(), loaded, "demo", io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := demodesk.Tour(t.Context(), toured, "demo", demodesk.Window, demodesk.Terminal{Out: io.Discard, Width: 100}); err != nil {
		t.Fatal(err)
	}
	channel := transcript.Conversation{Desk: "demo"}
	got, ok, err := loaded.Log("demo").(digest.Store).Digest(t.Context(), channel, 0)
	if err != nil || !ok {
		t.Fatalf("after Load, the channel's digest: ok %v, err %v; want one", ok, err)
	}
	want, _, err := toured.Log("demo").(digest.Store).Digest(t.Context(), channel, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the channel's digest after Load, against after Tour (-tour +load):\n%s", diff)
	}
}

// openStore returns a fresh SQLite store, closed when the test ends.
func openStore(t *testing.T) *sqlitestore.Store {
	t.Helper()
	st, err := sqlitestore.Open(t.Context(), filepath.Join(t.TempDir(), "demo.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func scenarioRows() []transcript.Message {
	rows, _ := demodesk.Scenario()
	return rows
}
