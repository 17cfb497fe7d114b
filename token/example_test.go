package token_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/token"
)

// The operator makes a token for an agent, the service authenticates the agent's requests
// with it, and the operator revokes it.
func Example() {
	ctx := context.Background()
	var st token.Store = newMemStore() // sqlitestore.Store in the command and the service

	secret, t, err := token.New("eng", transcript.Agent("triage", "Triage"), time.Now())
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := st.AddToken(ctx, t); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.HasPrefix(secret, "trs_"), len(secret), strings.HasPrefix(t.ID, "tok_"), len(t.ID))

	who, err := token.Authenticate(ctx, st, "Bearer "+secret)
	fmt.Println(who.Participant, "on", who.Desk, err)

	_, err = token.Authenticate(ctx, st, "Basic "+secret)
	fmt.Println(errors.Is(err, token.ErrUnauthorized), err)

	if err := st.RevokeToken(ctx, t.ID, time.Now()); err != nil {
		fmt.Println(err)
		return
	}
	_, err = token.Authenticate(ctx, st, "Bearer "+secret)
	fmt.Println(errors.Is(err, token.ErrUnauthorized), err)
	// Output:
	// true 47 true 16
	// agent:triage on eng <nil>
	// true token: malformed Authorization header: the scheme is not Bearer
	// true token: revoked token
}

// A token's ID is the SHA-256 of its hash, cut short: whoever holds a secret can tell which
// token to revoke.
func ExampleIDOf() {
	fmt.Println(token.IDOf(token.Hash("trs_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")))
	// Output:
	// tok_d6721c947ff4
}
