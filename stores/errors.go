package stores

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sharedesk/transcript/pgstore"
	"github.com/sharedesk/transcript/sqlitestore"
)

// OpenError is the failure to open a database: DB names it for a person (a SQLite file's
// name, or "the PostgreSQL database": a URL may hold a password), Err is the store's error.
// Its message says what is wrong from Err's fields: the directory that is missing, the
// schema version found and known, the server's refusal, the tables of another program.
type OpenError struct {
	DB  string
	Err error
}

// Unwrap returns Err.
func (e *OpenError) Unwrap() error { return e.Err }

func (e *OpenError) Error() string {
	var dir *MissingDirError
	var notStore *sqlitestore.NotStoreError
	var schema *sqlitestore.SchemaError
	var connect *pgstore.ConnectError
	var pgNotStore *pgstore.NotStoreError
	switch {
	case errors.As(e.Err, &dir):
		return fmt.Sprintf("open database %s: %s", e.DB, dir)
	case errors.As(e.Err, &notStore):
		return notStore.Path + " " + notStore.What
	case errors.As(e.Err, &schema) && schema.Found > schema.Known:
		return fmt.Sprintf("open database %s: its schema is version %d, newer than %d, the newest this transcript reads: use a newer transcript", e.DB, schema.Found, schema.Known)
	case errors.As(e.Err, &schema):
		return fmt.Sprintf("open database %s: its schema is version %d, older than %d, and a command that only reads does not migrate it", e.DB, schema.Found, schema.Known)
	case errors.As(e.Err, &connect):
		return fmt.Sprintf("open %s: cannot connect to database %q as %q: %s", e.DB, connect.Database, connect.User, strings.Join(connect.Reasons, "; "))
	case errors.As(e.Err, &pgNotStore):
		return fmt.Sprintf("open %s: database %q holds other tables (%s) but no transcript store; it was left unchanged", e.DB, pgNotStore.Database, pgNotStore.ShownTables())
	case errors.Is(e.Err, pgstore.ErrSchemaTooNew):
		return fmt.Sprintf("open %s: its schema is newer than this transcript reads: use a newer transcript", e.DB)
	case errors.Is(e.Err, pgstore.ErrSchemaBehind):
		return fmt.Sprintf("open %s: its schema is older than this transcript reads, and a command that only reads does not migrate it", e.DB)
	}
	return fmt.Sprintf("open database %s: %v", e.DB, e.Err)
}
