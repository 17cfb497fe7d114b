package sqlitestore

import (
	"context"
	"fmt"
)

// listDesksSQL lists the desks; a desk gets its row with its first message, in the same
// transaction, so every listed desk holds at least one row.
const listDesksSQL = `SELECT name FROM desks WHERE ` + liveDesk + ` ORDER BY name`

// Desks returns the names of the desks that hold at least one row, sorted by bytes (Go's
// string order).
func (s *Store) Desks(ctx context.Context) ([]string, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	rows, err := s.listDesks.QueryContext(ctx)
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: listing desks: %w", err)
	}
	defer rows.Close()
	var desks []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, fmt.Errorf("sqlitestore: listing desks: %w", err)
		}
		desks = append(desks, name)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlitestore: listing desks: %w", err)
	}
	return desks, nil
}
