package main

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/sharedesk/transcript"
)

// demoDesk is the desk serve --demo loads: the one the demo command builds by default.
const demoDesk = "demo"

// loadDemo builds the demo desk in st unless it holds it already (the demo command's
// scenario, reported on standard error), and makes an operator token for it, whose secret
// it returns: serve --demo prints it with the page's address, so that a newcomer sees the
// inspector in one command.
func loadDemo(ctx context.Context, e *env, st store) (string, error) {
	rows, marks := scenario()
	report := *e
	report.stdout = e.stderr // standard output is for the sign-in lines
	d := &demo{e: &report, st: st, desk: demoDesk, rows: rows, marks: marks}
	if err := d.build(ctx); err != nil {
		return "", err
	}
	secret, _, err := addToken(ctx, st, demoDesk, transcript.Operator(), time.Now)
	return secret, err
}

// printDemoSignIn tells, on standard output, where the inspector is and the operator token
// that signs in to it: the address on one line and the secret alone on the next.
func printDemoSignIn(e *env, scheme string, addr net.Addr, secret string) {
	fmt.Fprintf(e.stdout, "the inspector of desk %q: open %s://%s/ and sign in with this operator token:\n%s\n", demoDesk, scheme, addr, secret)
}
