// Package token decides who a request to the service is: bearer tokens, each one
// participant on one desk, kept hashed in a Store and checked by
// Authenticate.
//
// The operator makes a token with the command line, which calls New and a Store's
// AddToken, and prints the secret once:
//
//	secret, t, err := token.New("eng", transcript.Agent("triage", "Triage"), time.Now())
//	if err != nil { ... }
//	if err := st.AddToken(ctx, t); err != nil { ... }
//	fmt.Println(secret) // trs_...: the only copy there will ever be
//
// and the service asks Authenticate, on every request, whose token the request carries:
//
//	t, err := token.Authenticate(r.Context(), st, r.Header.Get("Authorization"))
//	if errors.Is(err, token.ErrUnauthorized) { ... 401 ... }
//	if err != nil { ... 500: the store failed ... }
//	// t.Participant is the author and the viewer; t.Desk the one desk it may use.
//
// Authenticate is the only function that turns a request into a participant; the HTTP
// routes and the MCP endpoint both call it, so they cannot disagree about who someone is.
//
// # Secrets
//
// A secret is SecretPrefix ("trs_") and 32 bytes from crypto/rand in unpadded base64url:
// 47 characters, 256 bits that nobody can guess, nothing that needs quoting in a header, a
// URL or a shell. The prefix is there for secret scanners: a secret pasted into a
// repository, a ticket or a chat log matches trs_[A-Za-z0-9_-]{43}, which little else
// does, so a scanner (GitHub's custom patterns, gitleaks, trufflehog) can find it and its
// owner revoke it.
//
// The secret is never stored. A Store keeps its SHA-256 (Hash) and finds the token by it.
// A fast, unsalted hash is right for a random secret, unlike a password a person chose:
// there is nothing to guess, and a hash that is the same every time is what a lookup needs.
// Whoever reads the database learns no secret; whoever reads a log learns none either: no
// error of this package quotes a secret or any part of it.
//
// # IDs
//
// A token's ID, "tok_" and 12 hex digits, names it where the secret must not appear: in
// token list, token revoke, logs and audit trails. It is the SHA-256 of the hash, cut to 48
// bits (IDOf): derived, so it needs no storing to agree with the hash and anyone holding a
// leaked secret can compute which token to revoke; a hash of the hash rather than a piece of
// it, so that showing IDs shows nothing of what the store authenticates by. The ID is
// public: it grants nothing.
//
// # Checking a request
//
// Authenticate parses the header ("Bearer" in any case, one credential in the form of a
// secret), hashes the secret, looks the hash up, compares the stored hash with the secret's
// in constant time and refuses a revoked token. Its refusals match ErrUnauthorized and say
// why (ErrMissing, ErrMalformed, ErrUnknown, ErrRevoked), with messages that never hold the
// header; the service answers 401 to all of them alike.
//
// Revoking is for good: a revoked token stays in the store, listed with its time, so that
// its ID still says whose it was, and it never authenticates again. A participant whose
// secret leaked gets a new token.
package token
