package stores_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sharedesk/transcript/stores"
)

func TestCheckScheme(t *testing.T) {
	for name, want := range map[string]string{
		"desk.db":                        "",
		"./a://b.db":                     "",
		"postgres://u:secret@host/db":    "",
		"postgresql://u:secret@host/db":  "",
		"mysql://u:secret@host/db":       "mysql",
		"sqlite://u:secret@host/desk.db": "sqlite",
	} {
		var bad *stores.SchemeError
		err := stores.CheckScheme(name)
		switch {
		case want == "" && err != nil:
			t.Errorf("CheckScheme(%q) = %v, want nil", name, err)
		case want != "" && (!errors.As(err, &bad) || bad.Scheme != want):
			t.Errorf("CheckScheme(%q) = %v, want a *SchemeError of %q", name, err, want)
		case err != nil && strings.Contains(err.Error(), "secret"):
			t.Errorf("CheckScheme(%q) = %v: it quotes the URL", name, err)
		}
	}
}

// TestOpenRefusals: a SQLite file in a directory that is not there, standbys for a SQLite
// file, and a file that is not a database are refused, each saying what is wrong.
func TestOpenRefusals(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	missing := filepath.Join(dir, "nowhere", "desk.db")
	_, err := stores.Open(ctx, missing, stores.Options{})
	var open *stores.OpenError
	var noDir *stores.MissingDirError
	if !errors.As(err, &open) || !errors.As(err, &noDir) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Open in a missing directory = %v, want an *OpenError of a *MissingDirError", err)
	}
	if _, err := stores.Open(ctx, filepath.Join(dir, "desk.db"), stores.Options{Standbys: []string{"postgres://standby/db"}}); !errors.Is(err, stores.ErrStandbysNeedPostgres) {
		t.Errorf("Open of SQLite with standbys = %v, want ErrStandbysNeedPostgres", err)
	}
	if stores.Exists(missing) || !stores.Exists("postgres://host/db") {
		t.Error("Exists: a missing file exists, or a PostgreSQL URL does not")
	}
	st, err := stores.Open(ctx, filepath.Join(dir, "desk.db"), stores.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
}

// TestCheckSchemeMistypedURL: a name that begins with a PostgreSQL scheme and a colon but
// not "://" is a mistyped URL, refused with its scheme alone, and reported as existing so
// that no caller calls it a missing file and quotes it; Open refuses it as CheckScheme does.
func TestCheckSchemeMistypedURL(t *testing.T) {
	for name, want := range map[string]string{
		"postgres:/app:hunter2pw@h/db":  "postgres",
		"postgres:app:hunter2pw@h/db":   "postgres",
		"postgresql:/app:hunter2pw@h/d": "postgresql",
		"Postgres:/app:hunter2pw@h/db":  "Postgres",
		"POSTGRES://app:hunter2pw@h/db": "POSTGRES",
	} {
		var mistyped *stores.MistypedURLError
		err := stores.CheckScheme(name)
		switch {
		case !errors.As(err, &mistyped) || mistyped.Scheme != want:
			t.Errorf("CheckScheme(%q) = %v, want a *MistypedURLError of %q", name, err, want)
		case strings.Contains(err.Error(), "hunter2pw"):
			t.Errorf("CheckScheme(%q) = %v: it quotes the password", name, err)
		case !stores.Exists(name):
			t.Errorf("Exists(%q) = false: a caller would call it a missing file", name)
		}
		if _, err := stores.Open(t.Context(), name, stores.Options{}); !errors.As(err, &mistyped) {
			t.Errorf("Open(%q) = %v, want a *MistypedURLError", name, err)
		}
	}
	for _, name := range []string{"postgres.db", "postgresx:y.db", "./postgres:/x.db", "postgres"} {
		if err := stores.CheckScheme(name); err != nil {
			t.Errorf("CheckScheme(%q) = %v, want nil: a SQLite file's name", name, err)
		}
	}
}
