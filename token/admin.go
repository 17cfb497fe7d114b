package token

import (
	"context"
	"fmt"
	"time"
)

// List returns the tokens st holds for desk, revoked ones included, in Store.Tokens' order
// (oldest first); for desk "", every desk's. The slice is new, and the caller's: empty,
// never nil, for none (a JSON array, [] for none).
func List(ctx context.Context, st Store, desk string) ([]Token, error) {
	all, err := st.Tokens(ctx)
	if err != nil {
		return nil, err
	}
	list := []Token{}
	for _, t := range all {
		if desk == "" || t.Desk == desk {
			list = append(list, t)
		}
	}
	return list, nil
}

// Revoke revokes the token named id at now (Store.RevokeToken) and returns it as it was
// before: a token revoked already is returned with its first Revoked time, and st is left as
// it was. An id st does not hold is an error matching ErrUnknown, which does not quote it
// (it may be a secret given by mistake).
func Revoke(ctx context.Context, st Store, id string, now time.Time) (Token, error) {
	all, err := st.Tokens(ctx)
	if err != nil {
		return Token{}, err
	}
	for _, t := range all {
		switch {
		case t.ID != id:
			continue
		case t.IsRevoked():
			return t, nil
		}
		return t, st.RevokeToken(ctx, id, now)
	}
	return Token{}, fmt.Errorf("%w: the store holds no token of that ID", ErrUnknown)
}
