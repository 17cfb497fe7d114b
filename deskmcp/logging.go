package deskmcp

import (
	"context"
	"log/slog"
)

// quieter is a handler that passes on only records at or above level: the SDK's own log,
// which tells of every session at Info, joins the tools' at Warn.
type quieter struct {
	slog.Handler
	level slog.Level
}

func (q quieter) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= q.level && q.Handler.Enabled(ctx, l)
}

func (q quieter) WithAttrs(attrs []slog.Attr) slog.Handler {
	return quieter{q.Handler.WithAttrs(attrs), q.level}
}

func (q quieter) WithGroup(name string) slog.Handler {
	return quieter{q.Handler.WithGroup(name), q.level}
}
