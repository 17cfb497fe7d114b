package token

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// Authenticate decides who a request is, from its Authorization header (authorization: the
// header's value, "" when it has none): the one place that does, for the HTTP service and
// the MCP endpoint alike. It returns the token whose secret the header carries, when st
// holds it and has not revoked it; the caller then takes the author and the viewer, and the
// one desk the request may touch, from that token and from nowhere else.
//
// The header must be "Bearer SECRET": the scheme in any case ("bearer", "BEARER"), one or
// more spaces, and exactly one credential, which must have the form of a secret New makes;
// spaces and tabs around the whole value are ignored, as HTTP ignores them. The secret is
// hashed (Hash), looked up by its hash (Store.TokenByHash), and the stored hash compared
// with the secret's in constant time (crypto/subtle), so that neither the lookup nor the
// comparison reveals, by how long it takes, how close a guess came: the lookup works on a
// hash the guesser cannot steer, and the comparison takes as long for any stored hash.
//
// A refusal matches ErrUnauthorized and exactly one of ErrMissing (no header, or an empty
// one), ErrMalformed (anything but "Bearer" and a secret; ErrNotBearer too when the scheme
// is not Bearer, a bare secret among them), ErrUnknown (no token has that
// secret) and ErrRevoked (the token was revoked). Its message is fixed: no error of
// Authenticate ever holds the secret, a piece of it, or anything else of the header. Any
// other error is the store's (its database failed, ctx is done), wrapped; it does not
// match ErrUnauthorized, and it holds nothing of the header either (the store saw only the
// hash). On every error the Token is the zero Token.
//
// A request with two Authorization headers is for the caller to refuse (ErrMalformed):
// Authenticate sees one value.
func Authenticate(ctx context.Context, st Store, authorization string) (Token, error) {
	secret, err := parseAuthorization(authorization)
	if err != nil {
		return Token{}, err
	}
	return authenticateHash(ctx, st, Hash(secret))
}

// authenticateHash is Authenticate once the header's secret is hashed: the token st holds
// under hash, when it has not been revoked.
func authenticateHash(ctx context.Context, st Store, hash [32]byte) (Token, error) {
	t, err := st.TokenByHash(ctx, hash)
	switch {
	case errors.Is(err, ErrUnknown):
		return Token{}, ErrUnknown
	case err != nil:
		return Token{}, fmt.Errorf("token: looking the token up: %w", err)
	}
	// The store may return another token than the hash's: StillGood never accepts it.
	if err := StillGood(Token{ID: t.ID, Hash: hash}, t); err != nil {
		return Token{}, err
	}
	return t, nil
}

// parseAuthorization returns the secret of an Authorization header, or one of the
// predeclared errors of Authenticate. It never builds an error from its input.
func parseAuthorization(h string) (string, error) {
	h = strings.Trim(h, " \t") // the optional white space around a field value (RFC 9110 §5.5)
	if h == "" {
		return "", ErrMissing
	}
	scheme, credential, _ := strings.Cut(h, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", ErrNotBearer
	}
	credential = strings.TrimLeft(credential, " ") // credentials = auth-scheme 1*SP token (RFC 9110 §11.4)
	switch {
	case credential == "":
		return "", errNoCredential
	case strings.ContainsAny(credential, " \t"):
		return "", errTwoCredentials
	case !isSecret(credential):
		return "", errNotSecret
	}
	return credential, nil
}

// isSecret reports whether s has the form of a secret New makes: SecretPrefix, then 43
// characters of unpadded base64url, canonical (the two bits the last character has to
// spare are zero), so that one secret has one spelling.
func isSecret(s string) bool {
	text, ok := strings.CutPrefix(s, SecretPrefix)
	if !ok || len(text) != secretTextLen {
		return false
	}
	var raw [secretBytes]byte
	n, err := base64.RawURLEncoding.Strict().Decode(raw[:], []byte(text))
	return err == nil && n == secretBytes
}
