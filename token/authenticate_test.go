package token_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/token"
)

// addNew makes a token and stores it in st, and returns its secret and the token.
func addNew(t *testing.T, st token.Store, desk string, p transcript.Author) (string, token.Token) {
	t.Helper()
	secret, tok, err := token.New(desk, p, created)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddToken(t.Context(), tok); err != nil {
		t.Fatal(err)
	}
	return secret, tok
}

// checkQuotesNothing fails t when msg holds any 8 consecutive characters of the text of
// secret after its prefix (the prefix itself is no secret, and the refusal of a credential
// that lacks it names it). Shorter pieces are words, not secrets.
func checkQuotesNothing(t *testing.T, what, msg, secret string) {
	t.Helper()
	text := strings.TrimPrefix(secret, token.SecretPrefix)
	for i := 0; i+8 <= len(text); i++ {
		if strings.Contains(msg, text[i:i+8]) {
			t.Errorf("%s: the error quotes a piece of the secret, %q: %q", what, text[i:i+8], msg)
			return
		}
	}
}

// TestAuthenticate: every form of header, each with the outcome it must have; a refusal
// matches ErrUnauthorized and its own sentinel, is one of the fixed errors, returns the zero
// Token and never quotes the secret.
func TestAuthenticate(t *testing.T) {
	st := newMemStore()
	secret, tok := addNew(t, st, "eng", triage)
	revokedSecret, revoked := addNew(t, st, "eng", transcript.Person("ana", "Ana"))
	if err := st.RevokeToken(t.Context(), revoked.ID, created.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	strangerSecret, _, err := token.New("eng", triage, created) // never stored
	if err != nil {
		t.Fatal(err)
	}
	// The last of 43 characters holds 4 bits and 2 zero ones: A and E are both canonical.
	lastChanged := secret[:len(secret)-1] + map[bool]string{true: "E", false: "A"}[secret[len(secret)-1] == 'A']

	tests := []struct {
		name   string
		header string
		secret string // in the header, whole or in part: what no error may quote
		want   error  // nil: authenticates as tok
	}{
		{"Bearer", "Bearer " + secret, secret, nil},
		{"lower-case scheme", "bearer " + secret, secret, nil},
		{"upper-case scheme", "BEARER " + secret, secret, nil},
		{"mixed-case scheme", "bEaReR " + secret, secret, nil},
		{"two spaces after the scheme", "Bearer  " + secret, secret, nil},
		{"white space around the value", " \tBearer " + secret + "\t ", secret, nil},

		{"no header", "", "", token.ErrMissing},
		{"only white space", " \t ", "", token.ErrMissing},

		{"no scheme", secret, secret, token.ErrNotBearer},
		{"Basic", "Basic " + secret, secret, token.ErrNotBearer},
		{"Token", "Token " + secret, secret, token.ErrNotBearer},
		{"Bearer glued to the secret", "Bearer" + secret, secret, token.ErrMalformed},
		{"a tab after the scheme", "Bearer\t" + secret, secret, token.ErrMalformed},
		{"Bearer=", "Bearer=" + secret, secret, token.ErrMalformed},
		{"the scheme twice", "Bearer Bearer " + secret, secret, token.ErrMalformed},
		{"Bearer alone", "Bearer", "", token.ErrMalformed},
		{"Bearer and a space", "Bearer ", "", token.ErrMalformed},
		{"two credentials", "Bearer " + secret + " " + secret, secret, token.ErrMalformed},
		{"a credential and more", "Bearer " + secret + " extra", secret, token.ErrMalformed},
		{"a tab inside", "Bearer " + secret[:20] + "\t" + secret[20:], secret, token.ErrMalformed},
		{"a newline inside", "Bearer " + secret[:20] + "\n" + secret[21:], secret, token.ErrMalformed},
		{"the secret in quotes", `Bearer "` + secret + `"`, secret, token.ErrMalformed},
		{"the secret cut short", "Bearer " + secret[:len(secret)-1], secret, token.ErrMalformed},
		{"the secret and a character", "Bearer " + secret + "A", secret, token.ErrMalformed},
		{"the secret without its prefix", "Bearer " + strings.TrimPrefix(secret, token.SecretPrefix), secret, token.ErrMalformed},
		{"the prefix in upper case", "Bearer TRS_" + strings.TrimPrefix(secret, token.SecretPrefix), secret, token.ErrMalformed},
		{"padded base64", "Bearer " + secret[:len(secret)-1] + "=", secret, token.ErrMalformed},
		{"standard base64", "Bearer " + strings.NewReplacer("-", "+", "_", "/").Replace(secret) + "+", secret, token.ErrMalformed},
		{"the token's ID", "Bearer " + tok.ID, "", token.ErrMalformed},
		{"a scheme in Unicode", "Bеarer " + secret, secret, token.ErrMalformed}, // a Cyrillic е

		{"a secret nobody stored", "Bearer " + strangerSecret, strangerSecret, token.ErrUnknown},
		{"the last character changed", "Bearer " + lastChanged, lastChanged, token.ErrUnknown},
		{"a revoked token", "Bearer " + revokedSecret, revokedSecret, token.ErrRevoked},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := token.Authenticate(t.Context(), st, tt.header)
			if tt.want == nil {
				if err != nil || got != tok {
					t.Fatalf("Authenticate = %+v, %v; want %+v", got, err, tok)
				}
				return
			}
			if !errors.Is(err, tt.want) || !errors.Is(err, token.ErrUnauthorized) {
				t.Fatalf("Authenticate = %v, want an error matching %v and ErrUnauthorized", err, tt.want)
			}
			if !slices.Contains(token.Refusals, err) {
				t.Errorf("Authenticate = %v, which is none of the predeclared refusals", err)
			}
			if got != (token.Token{}) {
				t.Errorf("Authenticate refused, yet returned %+v", got)
			}
			checkQuotesNothing(t, tt.name, err.Error(), tt.secret)
			checkQuotesNothing(t, tt.name, err.Error(), secret)
		})
	}
}

// TestAuthenticateStoreFails: an error of the store is no refusal (the service answers it
// with 500, not 401), it is wrapped, a done ctx stays matchable, and still nothing of the
// secret is quoted.
func TestAuthenticateStoreFails(t *testing.T) {
	secret, _, err := token.New("eng", triage, created)
	if err != nil {
		t.Fatal(err)
	}
	down := errors.New("database is down")
	failing := lookupFunc(func(ctx context.Context, hash [32]byte) (token.Token, error) {
		if err := ctx.Err(); err != nil {
			return token.Token{}, err
		}
		return token.Token{}, down
	})
	got, err := token.Authenticate(t.Context(), failing, "Bearer "+secret)
	if !errors.Is(err, down) || errors.Is(err, token.ErrUnauthorized) || got != (token.Token{}) {
		t.Errorf("Authenticate over a failing store = %+v, %v; want the store's error, not ErrUnauthorized", got, err)
	}
	checkQuotesNothing(t, "a failing store", err.Error(), secret)

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := token.Authenticate(ctx, newMemStore(), "Bearer "+secret); !errors.Is(err, context.Canceled) || errors.Is(err, token.ErrUnauthorized) {
		t.Errorf("Authenticate with a canceled ctx = %v, want context.Canceled", err)
	}
	// A malformed header is refused before the store is asked.
	if _, err := token.Authenticate(ctx, failing, "Basic x"); !errors.Is(err, token.ErrMalformed) {
		t.Errorf("Authenticate of a malformed header over a failing store = %v, want ErrMalformed", err)
	}
}

// TestAuthenticateComparesHashes: a store that answers a lookup with another token (a bug,
// a collation that matches too much) does not make that token's participant the request's.
func TestAuthenticateComparesHashes(t *testing.T) {
	secret, _, err := token.New("eng", triage, created)
	if err != nil {
		t.Fatal(err)
	}
	_, other, err := token.New("eng", transcript.Operator(), created)
	if err != nil {
		t.Fatal(err)
	}
	sloppy := lookupFunc(func(context.Context, [32]byte) (token.Token, error) { return other, nil })
	if got, err := token.Authenticate(t.Context(), sloppy, "Bearer "+secret); !errors.Is(err, token.ErrUnknown) || got != (token.Token{}) {
		t.Errorf("Authenticate over a store returning another token = %+v, %v; want ErrUnknown", got, err)
	}
}

// TestAuthenticateDesks: each token authenticates as its own participant on its own desk,
// however alike the desks' names.
func TestAuthenticateDesks(t *testing.T) {
	st := newMemStore()
	want := map[string]token.Token{}
	for _, desk := range []string{"eng", "Eng", "eng.", "équipe"} {
		secret, tok := addNew(t, st, desk, transcript.Agent("triage", "Triage for "+desk))
		want[secret] = tok
	}
	for secret, tok := range want {
		got, err := token.Authenticate(t.Context(), st, "Bearer "+secret)
		if err != nil || got != tok {
			t.Errorf("Authenticate for desk %q = %+v, %v; want %+v", tok.Desk, got, err, tok)
		}
	}
}

// TestAuthenticateOldDeskName: a token an older version stored for a desk whose name
// transcript.ValidateDesk refuses still authenticates, so that its desk stays readable.
func TestAuthenticateOldDeskName(t *testing.T) {
	secret, tok, err := token.New("eng", triage, created)
	if err != nil {
		t.Fatal(err)
	}
	tok.Desk = "eng team"
	old := lookupFunc(func(context.Context, [32]byte) (token.Token, error) { return tok, nil })
	if got, err := token.Authenticate(t.Context(), old, "Bearer "+secret); err != nil || got != tok {
		t.Errorf("Authenticate of a token for desk %q = %+v, %v; want %+v", tok.Desk, got, err, tok)
	}
}
