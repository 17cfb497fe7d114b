package op_test

import (
	"context"
	"errors"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server/internal/op"
	"github.com/sharedesk/transcript/token"
)

// TestOperatorOnly: only a request whose token is the operator's passes; any other, and one
// with no token at all, gets the service's Forbidden naming what was asked.
func TestOperatorOnly(t *testing.T) {
	errForbidden := errors.New("forbidden")
	var detail string
	svc := op.Service{Forbidden: func(d string) error { detail = d; return errForbidden }}
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		ctx  context.Context
		want error
	}{
		{"operator", op.WithIdentity(ctx, token.Token{Desk: "eng", Participant: transcript.Operator()}), nil},
		{"person", op.WithIdentity(ctx, token.Token{Desk: "eng", Participant: transcript.Author{Kind: transcript.KindPerson, ID: "ana"}}), errForbidden},
		{"no token", ctx, errForbidden},
	} {
		detail = ""
		if err := svc.OperatorOnly(tt.ctx, "read the desk's rows"); err != tt.want {
			t.Errorf("%s: OperatorOnly = %v, want %v", tt.name, err, tt.want)
		}
		if tt.want != nil && detail != "only an operator token may read the desk's rows" {
			t.Errorf("%s: detail %q", tt.name, detail)
		}
	}
}

// TestIdentity: a context carries the token it was given, and one given none carries the
// zero token.
func TestIdentity(t *testing.T) {
	tok := token.Token{ID: "t1", Desk: "eng", Participant: transcript.Operator()}
	if got := op.Identity(op.WithIdentity(context.Background(), tok)); got.ID != "t1" || got.Desk != "eng" {
		t.Errorf("Identity = %+v, want %+v", got, tok)
	}
	if got := op.Identity(context.Background()); got.ID != "" || got.Participant != (transcript.Author{}) {
		t.Errorf("Identity of a bare context = %+v, want the zero token", got)
	}
}
