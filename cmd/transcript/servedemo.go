package main

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/demodesk"
	"github.com/sharedesk/transcript/token"
)

// demoDesk is the desk serve --demo loads: the one the demo command builds by default.
const demoDesk = "demo"

// loadDemo builds the demo desk in st unless it holds it already (the demo command's
// scenario, reported on standard error), and makes an operator token for it, whose secret
// and token it returns: serve --demo prints the secret with the page's address, so that a
// newcomer sees the inspector in one command, and deletes the token when it stops
// (dropDemo), so that a demo database gathers no operator tokens whose secrets were
// printed, live or revoked.
func loadDemo(ctx context.Context, e *env, st store) (string, token.Token, error) {
	// Standard output is for the sign-in lines.
	if err := demodesk.Load(ctx, st, demoDesk, e.stderr); err != nil {
		return "", token.Token{}, err
	}
	return token.Add(ctx, st, demoDesk, transcript.Operator(), time.Now)
}

// dropDemo deletes the token loadDemo made, saying so on standard error: its secret was
// printed by this process alone, so nothing of it is kept (a revoked token would stay in
// token list after every run); the page's sessions signed in with it end at their next
// request. Nothing for the zero Token (serve without --demo).
func dropDemo(e *env, st store, t token.Token) {
	if t.ID == "" {
		return
	}
	if err := st.DeleteToken(context.Background(), t.ID); err != nil {
		fmt.Fprintf(e.stderr, "serve: deleting the demo's token %s: %v\n", t.ID, err)
		return
	}
	fmt.Fprintf(e.stderr, "deleted the demo's token %s\n", t.ID)
}

// printDemoSignIn tells, on standard output, where the inspector is and the operator token
// that signs in to it: the address on one line and the secret alone on the next.
func printDemoSignIn(e *env, scheme string, addr net.Addr, secret string) {
	fmt.Fprintf(e.stdout, "the inspector of desk %q: open %s://%s/ and sign in with this operator token:\n%s\n", demoDesk, scheme, addr, secret)
}
