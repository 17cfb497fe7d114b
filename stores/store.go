package stores

import (
	"context"

	"github.com/sharedesk/transcript/importer"
	"github.com/sharedesk/transcript/pgstore"
	"github.com/sharedesk/transcript/sharing/books"
	"github.com/sharedesk/transcript/sqlitestore"
	"github.com/sharedesk/transcript/token"
)

// Store is what sqlitestore.Store and pgstore.Store both are: desks, tokens and books in
// one database.
type Store interface {
	// importer.Store appends, restores, looks keys up and reads desks (import, export).
	importer.Store
	Desks(ctx context.Context) ([]string, error)
	// token.Store keeps the service's bearer tokens.
	token.Store
	// books.Store keeps the participants' read states.
	books.Store
	// DeleteDesk deletes a desk, its search index, books and, asked to, its tokens;
	// without them, a desk that has tokens is token.ErrDeskHasTokens.
	DeleteDesk(ctx context.Context, desk string, tokens bool) (int64, error)
	// DeleteToken deletes a token for good.
	DeleteToken(ctx context.Context, id string) error
	Close() error
}

var (
	_ Store = (*sqlitestore.Store)(nil)
	_ Store = (*pgstore.Store)(nil)
)
