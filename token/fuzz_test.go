package token_test

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sharedesk/transcript/token"
)

// FuzzAuthenticate puts a secret into any header the fuzzer makes, whole or cut short, and
// checks Authenticate: a refusal is one of its predeclared errors, matching
// ErrUnauthorized, and quotes no piece of the secret; success is only for a header that is
// "Bearer" (in any case), spaces and the whole secret, with white space around.
//
// The secret's bytes are a hash of the fuzzer's, so the fuzzer cannot spell words with
// them: a piece of the secret found in a message is a leak, not a coincidence. The store
// holds the secret's token, revoked when revoke is odd.
func FuzzAuthenticate(f *testing.F) {
	f.Add("Bearer ", []byte("a"), "", uint8(0), uint8(0))
	f.Add("bearer  ", []byte("b"), " \t", uint8(0), uint8(1))
	f.Add(" BEARER ", []byte("c"), "", uint8(0), uint8(0))
	f.Add("Bearer ", []byte("d"), "", uint8(1), uint8(0))
	f.Add("Bearer ", []byte("e"), " x", uint8(0), uint8(0))
	f.Add("Basic ", []byte("f"), "", uint8(0), uint8(0))
	f.Add("", []byte("g"), "", uint8(0), uint8(0))
	f.Add("Bearer\t", []byte("h"), "", uint8(0), uint8(0))
	f.Add("Bearer \"", []byte("i"), "\"", uint8(0), uint8(0))
	f.Add("Bearer ", []byte("j"), "=", uint8(3), uint8(0))
	f.Add("Bearer trs_", []byte("k"), "", uint8(4), uint8(0))
	f.Fuzz(func(t *testing.T, prefix string, seed []byte, suffix string, cut, revoke uint8) {
		raw := sha256.Sum256(seed)
		secret := token.SecretPrefix + base64.RawURLEncoding.EncodeToString(raw[:])
		piece := secret[:len(secret)-int(cut)%len(secret)] // the whole secret when cut is 0
		header := prefix + piece + suffix

		st := newMemStore()
		tok := token.Token{Desk: "eng", Participant: triage, Hash: token.Hash(secret), Created: token.Floor(created)}
		tok.ID = token.IDOf(tok.Hash)
		if revoke%2 == 1 {
			tok.Revoked = tok.Created.Add(time.Second)
		}
		if err := st.AddToken(t.Context(), tok); err != nil {
			t.Fatal(err)
		}

		got, err := token.Authenticate(t.Context(), st, header)
		if err == nil {
			if got != tok || tok.IsRevoked() || !wellFormed(header, secret) {
				t.Fatalf("Authenticate(%q) = %+v; want a refusal (the token is %+v)", header, got, tok)
			}
			return
		}
		if !errors.Is(err, token.ErrUnauthorized) || !slices.Contains(token.Refusals, err) {
			t.Fatalf("Authenticate(%q) = %v, want one of the predeclared refusals", header, err)
		}
		if errors.Is(err, token.ErrRevoked) != (tok.IsRevoked() && wellFormed(header, secret)) {
			t.Fatalf("Authenticate(%q) = %v for the token %+v", header, err, tok)
		}
		if got != (token.Token{}) {
			t.Fatalf("Authenticate(%q) refused, yet returned %+v", header, got)
		}
		checkQuotesNothing(t, "header "+header, err.Error(), piece)
		checkQuotesNothing(t, "header "+header, err.Error(), secret)
	})
}

// wellFormed reports whether header is what Authenticate accepts for secret, by a reading
// of its documentation independent of its code: white space (spaces, tabs) around, the
// scheme "Bearer" in any ASCII case, one or more spaces, the secret, nothing else.
func wellFormed(header, secret string) bool {
	h := strings.Trim(header, " \t")
	if len(h) < len("Bearer ") || !strings.EqualFold(h[:len("Bearer")], "Bearer") || h[len("Bearer")] != ' ' {
		return false
	}
	return strings.TrimLeft(h[len("Bearer"):], " ") == secret
}
