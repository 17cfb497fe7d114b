package token

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sharedesk/transcript"
)

// AddAttempts is how many tokens Add makes before it gives up on ID collisions (ErrExists):
// one is already unlikely among millions of tokens (IDOf), so AddAttempts in a row means
// something else is wrong.
const AddAttempts = 3

// Add makes a token for p on desk at now() (New) and stores it in st, making another when st
// holds its ID or hash already (ErrExists), up to AddAttempts times. It returns the stored
// token and its secret, which is the only copy. The error is New's, st's, or, after
// AddAttempts collisions in a row, one matching ErrExists; nothing is then stored.
func Add(ctx context.Context, st Store, desk string, p transcript.Author, now func() time.Time) (secret string, t Token, err error) {
	for attempt := 1; ; attempt++ {
		secret, t, err := New(desk, p, now())
		if err != nil {
			return "", Token{}, err
		}
		err = st.AddToken(ctx, t)
		switch {
		case err == nil:
			return secret, t, nil
		case !errors.Is(err, ErrExists):
			return "", Token{}, err
		case attempt == AddAttempts:
			return "", Token{}, fmt.Errorf("token: %d new tokens in a row had the ID of a stored one: %w", attempt, err)
		}
	}
}
