package digest

import (
	"context"
	"errors"
	"fmt"

	"github.com/sharedesk/transcript"
)

// FoldBacklog folds c as Fold does, again and again while each fold stores a generation,
// at most limit times (below 1: once): a backlog of more than Policy.InputLimit rows folds
// over several generations in one call. A fold that another fold or a correction overtook
// (ErrSuperseded) is tried again, within limit. It returns c's digest after the last fold
// (the zero Digest when it has none), how many generations it stored, and the error of the
// fold that failed, as Fold returns it: the generations stored before it stay.
func FoldBacklog(ctx context.Context, store Store, d Digester, p Policy, c transcript.Conversation, limit int) (transcript.Digest, int, error) {
	stored := 0
	for range max(limit, 1) {
		next, ok, err := Fold(ctx, store, d, p, c)
		switch {
		case errors.Is(err, ErrSuperseded):
			continue
		case err != nil:
			return next, stored, err
		case !ok:
			return next, stored, nil
		}
		stored++
	}
	held, _, err := store.Digest(ctx, c, 0)
	if err != nil {
		err = fmt.Errorf("digest: %s: reading the held digest: %w", conversationName(c), err)
	}
	return held, stored, err
}
