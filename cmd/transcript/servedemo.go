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
// newcomer sees the inspector in one command, and revokes the token when it stops
// (revokeDemo), so that a demo database does not gather live operator tokens whose
// secrets were printed.
func loadDemo(ctx context.Context, e *env, st store) (string, token.Token, error) {
	rows, marks := demodesk.Scenario()
	report := *e
	report.stdout = e.stderr // standard output is for the sign-in lines
	d := &demo{e: &report, st: st, desk: demoDesk, rows: rows, marks: marks}
	if err := d.build(ctx); err != nil {
		return "", token.Token{}, err
	}
	return addToken(ctx, st, demoDesk, transcript.Operator(), time.Now)
}

// revokeDemo revokes the token loadDemo made, saying so on standard error; nothing for the
// zero Token (serve without --demo).
func revokeDemo(e *env, st store, t token.Token) {
	if t.ID == "" {
		return
	}
	if err := st.RevokeToken(context.Background(), t.ID, time.Now()); err != nil {
		fmt.Fprintf(e.stderr, "serve: revoking the demo's token %s: %v\n", t.ID, err)
		return
	}
	fmt.Fprintf(e.stderr, "revoked the demo's token %s\n", t.ID)
}

// printDemoSignIn tells, on standard output, where the inspector is and the operator token
// that signs in to it: the address on one line and the secret alone on the next.
func printDemoSignIn(e *env, scheme string, addr net.Addr, secret string) {
	fmt.Fprintf(e.stdout, "the inspector of desk %q: open %s://%s/ and sign in with this operator token:\n%s\n", demoDesk, scheme, addr, secret)
}
