package importer_test

import (
	"github.com/sharedesk/transcript/importer"
	"github.com/sharedesk/transcript/pgstore"
	"github.com/sharedesk/transcript/sqlitestore"
)

// Both stores of this module are stores an import opens and closes; the importer itself
// imports neither.
var (
	_ importer.StoreCloser = (*sqlitestore.Store)(nil)
	_ importer.StoreCloser = (*pgstore.Store)(nil)
)
