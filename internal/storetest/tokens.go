package storetest

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/desknames"
	"github.com/sharedesk/transcript/token"
)

// tokenTime is when the checks' tokens are made: the microsecond floor of it, as stores
// keep times, is a whole second.
var tokenTime = time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)

// TokenRule checks the token.Store contract on st, which holds no token yet:
//
//   - a new store holds no token; looking up or revoking one is token.ErrUnknown;
//   - AddToken stores a token exactly (ID, desk byte for byte, participant with its label,
//     hash, times to the microsecond in UTC, Revoked zero or as given), and TokenByHash
//     returns it and no other: a hash one bit away, or the hash of its ID, is
//     token.ErrUnknown, and a token of one desk never comes back as another's;
//   - Tokens lists every token, revoked ones included, by Created and then ID, in a slice
//     the caller may change;
//   - a token added twice, or with another token's ID or hash, is token.ErrExists, and a
//     token Validate refuses is token.ErrInvalid; either stores nothing;
//   - RevokeToken sets Revoked (rounded down to the microsecond), keeps the first time when
//     called again, refuses an unknown id (token.ErrUnknown) and the zero time
//     (token.ErrInvalid), and touches no other token;
//   - a secret given as an id, to RevokeToken or as a Token's ID to AddToken, is refused
//     (token.ErrUnknown, token.ErrInvalid) by an error that does not quote it;
//   - token.Authenticate over the store accepts each token as itself and refuses a revoked,
//     unknown, malformed or missing one with the right sentinel, never quoting the secret;
//   - 8 goroutines adding, authenticating and revoking tokens at once each see their own
//     (run it with -race).
func TokenRule(t *testing.T, st token.Store) {
	t.Helper()
	ctx := t.Context()

	// An empty store.
	if toks, err := st.Tokens(ctx); err != nil || len(toks) != 0 {
		t.Errorf("Tokens of a new store = %v, %v; want none", toks, err)
	}
	if _, err := st.TokenByHash(ctx, token.Hash("trs_nothing")); !errors.Is(err, token.ErrUnknown) {
		t.Errorf("TokenByHash on a new store: %v, want token.ErrUnknown", err)
	}
	if err := st.RevokeToken(ctx, "tok_000000000000", tokenTime); !errors.Is(err, token.ErrUnknown) {
		t.Errorf("RevokeToken on a new store: %v, want token.ErrUnknown", err)
	}

	// Tokens that differ in one thing each, added out of order. Three share a Created time,
	// so their order is their IDs'; desks differ only in case or a space; labels hold
	// colons, non-ASCII text, or nothing.
	type made struct {
		secret string
		tok    token.Token
	}
	specs := []struct {
		desk string
		p    transcript.Author
		at   time.Time
	}{
		{"eng", transcript.Agent("triage", "Triage ✍"), tokenTime.Add(2 * time.Second)},
		{"Eng", transcript.Agent("triage", "Triage ✍"), tokenTime.Add(time.Second)},
		{"eng.", transcript.Person("ana", "Ana Lima: ops"), tokenTime},
		{"équipe", transcript.Author{Kind: transcript.KindOperator, Label: "Op"}, tokenTime.Add(time.Second)},
		{"eng", transcript.System("workflow", ""), tokenTime.Add(time.Second)},
		{"eng", transcript.Agent("review", "Reviewer"), tokenTime.Add(1500 * time.Nanosecond)}, // kept as +1µs
		{"old", transcript.Agent("triage", "Triage"), time.Date(1969, 12, 31, 23, 59, 59, 999_999_999, time.UTC)},
		{"far", transcript.Agent("triage", "Triage"), time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.UTC)},
	}
	var all []made
	for _, s := range specs {
		secret, tok, err := token.New(s.desk, s.p, s.at)
		if err != nil {
			t.Fatalf("token.New(%q, %v): %v", s.desk, s.p, err)
		}
		if err := st.AddToken(ctx, tok); err != nil {
			t.Fatalf("AddToken of %s (desk %q, %v): %v", tok.ID, tok.Desk, tok.Participant, err)
		}
		all = append(all, made{secret, tok})
	}
	wantList := func() []token.Token {
		var toks []token.Token
		for _, m := range all {
			toks = append(toks, m.tok)
		}
		slices.SortFunc(toks, func(a, b token.Token) int {
			return cmp.Or(a.Created.Compare(b.Created), strings.Compare(a.ID, b.ID))
		})
		return toks
	}
	checkList := func(when string) {
		t.Helper()
		got, err := st.Tokens(ctx)
		if err != nil {
			t.Fatalf("Tokens %s: %v", when, err)
		}
		if diff := gocmp.Diff(wantList(), got, timeEqual); diff != "" {
			t.Errorf("Tokens %s (-want +got):\n%s", when, diff)
		}
		for _, tok := range got {
			checkUTC(t, "Tokens "+when, tok)
		}
	}
	lookUp := func(when string, want token.Token) {
		t.Helper()
		got, err := st.TokenByHash(ctx, want.Hash)
		if err != nil {
			t.Errorf("TokenByHash of %s %s: %v", want.ID, when, err)
			return
		}
		if diff := gocmp.Diff(want, got, timeEqual); diff != "" {
			t.Errorf("TokenByHash of %s %s (-want +got):\n%s", want.ID, when, diff)
		}
		checkUTC(t, "TokenByHash "+when, got)
	}

	for _, m := range all {
		lookUp("after AddToken", m.tok)
		for _, h := range [][32]byte{flipBit(m.tok.Hash, 0), flipBit(m.tok.Hash, 255), token.Hash(m.tok.ID), token.Hash(m.secret + " ")} {
			if got, err := st.TokenByHash(ctx, h); !errors.Is(err, token.ErrUnknown) {
				t.Errorf("TokenByHash of a hash near %s's = %+v, %v; want token.ErrUnknown", m.tok.ID, got, err)
			}
		}
	}
	if got := all[5].tok.Created; !got.Equal(tokenTime.Add(time.Microsecond)) {
		t.Errorf("token.New kept %v, want the time rounded down to %v", got, tokenTime.Add(time.Microsecond))
	}
	checkList("after AddToken")
	if got, err := st.Tokens(ctx); err == nil && len(got) > 0 {
		got[0].Desk, got[0].Participant.Label = "changed", "changed"
		checkList("after the caller changed the slice Tokens returned")
	}

	// Refusals store nothing.
	dup := all[0].tok
	dup.Desk = "sales"
	invalid := func(change func(*token.Token)) token.Token {
		_, tok, err := token.New("eng", transcript.Agent("x", "X"), tokenTime)
		if err != nil {
			t.Fatal(err)
		}
		change(&tok)
		return tok
	}
	for _, bad := range []struct {
		name string
		tok  token.Token
		want error
	}{
		{"a token added twice", all[0].tok, token.ErrExists},
		{"a token's ID and hash for another desk", dup, token.ErrExists},
		{"an ID that is not its hash's", invalid(func(t *token.Token) { t.ID = all[1].tok.ID }), token.ErrInvalid},
		{"another token's hash", invalid(func(t *token.Token) { t.Hash, t.ID = all[1].tok.Hash, all[1].tok.ID }), token.ErrExists},
		{"an empty desk", invalid(func(t *token.Token) { t.Desk = "" }), token.ErrInvalid},
		{"a desk with a NUL byte", invalid(func(t *token.Token) { t.Desk = "en\x00g" }), token.ErrInvalid},
		{"a desk not UTF-8", invalid(func(t *token.Token) { t.Desk = "en\xffg" }), token.ErrInvalid},
		{"an invalid participant", invalid(func(t *token.Token) { t.Participant = transcript.Agent("", "nobody") }), token.ErrInvalid},
		{"a label with a NUL byte", invalid(func(t *token.Token) { t.Participant.Label = "X\x00" }), token.ErrInvalid},
		{"no creation time", invalid(func(t *token.Token) { t.Created = time.Time{} }), token.ErrInvalid},
		{"a revocation in year 10000", invalid(func(t *token.Token) { t.Revoked = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) }), token.ErrInvalid},
	} {
		if err := st.AddToken(ctx, bad.tok); !errors.Is(err, bad.want) {
			t.Errorf("AddToken of %s: %v, want %v", bad.name, err, bad.want)
		}
	}
	for what, desk := range desknames.Refused {
		if err := st.AddToken(ctx, invalid(func(t *token.Token) { t.Desk = desk })); !errors.Is(err, token.ErrInvalid) || !errors.Is(err, transcript.ErrInvalidDesk) {
			t.Errorf("AddToken of a token for desk %q (%s): %v, want token.ErrInvalid and transcript.ErrInvalidDesk", desk, what, err)
		}
	}
	checkList("after refused AddTokens")
	lookUp("after it was added again for another desk", all[0].tok)

	// A token stored revoked stays revoked.
	secret, revokedAtBirth, err := token.New("eng", transcript.Agent("gone", "Gone"), tokenTime.Add(3*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	revokedAtBirth.Revoked = tokenTime.Add(4 * time.Second)
	if err := st.AddToken(ctx, revokedAtBirth); err != nil {
		t.Fatalf("AddToken of a revoked token: %v", err)
	}
	all = append(all, made{secret, revokedAtBirth})
	lookUp("added revoked", revokedAtBirth)

	// Revocations.
	target := &all[1].tok
	first := tokenTime.Add(time.Hour + 999*time.Nanosecond)
	if err := st.RevokeToken(ctx, target.ID, first); err != nil {
		t.Fatalf("RevokeToken of %s: %v", target.ID, err)
	}
	target.Revoked = first.Truncate(time.Microsecond)
	lookUp("after RevokeToken", *target)
	for _, again := range []time.Time{first.Add(time.Hour), first.Add(-time.Minute)} {
		if err := st.RevokeToken(ctx, target.ID, again); err != nil {
			t.Errorf("RevokeToken of %s again: %v, want nil", target.ID, err)
		}
	}
	lookUp("after RevokeToken again, later and earlier: the first time stays", *target)
	for _, bad := range []struct {
		name string
		id   string
		at   time.Time
		want error
	}{
		{"an unknown id", "tok_000000000000", first, token.ErrUnknown},
		{"an id in upper case", strings.ToUpper(all[2].tok.ID), first, token.ErrUnknown},
		{"an id and a space", all[2].tok.ID + " ", first, token.ErrUnknown},
		{"the hash's text instead of the id", fmt.Sprintf("%x", all[2].tok.Hash), first, token.ErrUnknown},
		{"the zero time", all[2].tok.ID, time.Time{}, token.ErrInvalid},
		{"year 10000", all[2].tok.ID, time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), token.ErrInvalid},
	} {
		if err := st.RevokeToken(ctx, bad.id, bad.at); !errors.Is(err, bad.want) {
			t.Errorf("RevokeToken of %s: %v, want %v", bad.name, err, bad.want)
		}
	}
	checkList("after revocations")
	// A secret given where an id belongs is unknown, and not quoted.
	for _, m := range all[2:4] {
		err := st.RevokeToken(ctx, m.secret, first)
		if !errors.Is(err, token.ErrUnknown) {
			t.Errorf("RevokeToken of a secret instead of an id: %v, want token.ErrUnknown", err)
		} else {
			checkQuotesNoSecret(t, "RevokeToken of a secret instead of an id", err, m.secret)
		}
		wrong := m.tok
		wrong.ID = m.secret
		err = st.AddToken(ctx, wrong)
		if !errors.Is(err, token.ErrInvalid) {
			t.Errorf("AddToken of a token whose ID is its secret: %v, want token.ErrInvalid", err)
		} else {
			checkQuotesNoSecret(t, "AddToken of a token whose ID is its secret", err, m.secret)
		}
	}
	checkList("after a secret was given as an id")

	// Authenticate over the store.
	checkAuthenticate(t, st, all[0].secret, all[0].tok, nil)
	checkAuthenticate(t, st, all[1].secret, token.Token{}, token.ErrRevoked)
	checkAuthenticate(t, st, secret, token.Token{}, token.ErrRevoked)
	for _, m := range all[2:8] {
		checkAuthenticate(t, st, m.secret, m.tok, nil)
	}
	stranger, _, err := token.New("eng", transcript.Agent("triage", "Triage ✍"), tokenTime)
	if err != nil {
		t.Fatal(err)
	}
	checkAuthenticate(t, st, stranger, token.Token{}, token.ErrUnknown)
	s0 := all[0].secret
	for _, header := range []string{"Basic " + s0, s0, "Bearer " + s0 + " " + s0, "Bearer " + s0[:len(s0)-1], "Bearer " + s0 + "x", "Bearer\t" + s0, "Bearer " + all[0].tok.ID} {
		got, err := token.Authenticate(ctx, st, header)
		if !errors.Is(err, token.ErrMalformed) || !errors.Is(err, token.ErrUnauthorized) || got != (token.Token{}) {
			t.Errorf("Authenticate of a malformed header = %+v, %v; want token.ErrMalformed", got, err)
		} else {
			checkQuotesNoSecret(t, "Authenticate of a malformed header", err, s0)
		}
	}
	for _, header := range []string{"", " "} {
		if _, err := token.Authenticate(ctx, st, header); !errors.Is(err, token.ErrMissing) || !errors.Is(err, token.ErrUnauthorized) {
			t.Errorf("Authenticate of header %q: %v, want token.ErrMissing", header, err)
		}
	}

	checkConcurrentTokens(t, st, all[0].secret, all[0].tok)
}

// checkAuthenticate checks token.Authenticate of secret over st, in the header's two usual
// spellings: want (err nil) or a refusal matching wantErr and token.ErrUnauthorized that
// quotes nothing of the secret.
func checkAuthenticate(t *testing.T, st token.Store, secret string, want token.Token, wantErr error) {
	t.Helper()
	for _, header := range []string{"Bearer " + secret, "bearer  " + secret} {
		got, err := token.Authenticate(t.Context(), st, header)
		switch {
		case wantErr == nil && err != nil:
			t.Errorf("Authenticate as %s on desk %q: %v", want.ID, want.Desk, err)
		case wantErr == nil:
			if diff := gocmp.Diff(want, got, timeEqual); diff != "" {
				t.Errorf("Authenticate as %s (-want +got):\n%s", want.ID, diff)
			}
		case !errors.Is(err, wantErr) || !errors.Is(err, token.ErrUnauthorized) || got != (token.Token{}):
			t.Errorf("Authenticate = %+v, %v; want %v", got, err, wantErr)
		default:
			checkQuotesNoSecret(t, "Authenticate", err, secret)
		}
	}
}

// checkQuotesNoSecret fails t when err's message holds 8 consecutive characters of the
// secret's text (after its prefix).
func checkQuotesNoSecret(t *testing.T, what string, err error, secret string) {
	t.Helper()
	msg, text := err.Error(), strings.TrimPrefix(secret, token.SecretPrefix)
	for i := 0; i+8 <= len(text); i++ {
		if strings.Contains(msg, text[i:i+8]) {
			t.Errorf("%s: the error quotes the secret: %q", what, msg)
			return
		}
	}
}

// checkConcurrentTokens: 8 goroutines at once each add a token, authenticate with it, with
// a shared one, revoke theirs and see it revoked; then the store lists all of them.
func checkConcurrentTokens(t *testing.T, st token.Store, sharedSecret string, shared token.Token) {
	t.Helper()
	ctx := t.Context()
	before, err := st.Tokens(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const workers = 8
	var (
		wg   sync.WaitGroup
		errs = make([]error, workers)
	)
	for w := range workers {
		wg.Go(func() {
			errs[w] = func() error {
				secret, tok, err := token.New(fmt.Sprintf("desk-%d", w), transcript.Agent(fmt.Sprint("worker", w), ""), tokenTime.Add(time.Duration(w)*time.Millisecond))
				if err != nil {
					return err
				}
				if err := st.AddToken(ctx, tok); err != nil {
					return fmt.Errorf("adding its token: %w", err)
				}
				for range 5 {
					if got, err := token.Authenticate(ctx, st, "Bearer "+secret); err != nil || got.ID != tok.ID || got.Desk != tok.Desk {
						return fmt.Errorf("authenticating with its own token: %+v, %v", got, err)
					}
					if got, err := token.Authenticate(ctx, st, "Bearer "+sharedSecret); err != nil || got.ID != shared.ID {
						return fmt.Errorf("authenticating with the shared token: %+v, %v", got, err)
					}
				}
				if err := st.RevokeToken(ctx, tok.ID, tokenTime.Add(time.Hour)); err != nil {
					return fmt.Errorf("revoking its token: %w", err)
				}
				if _, err := token.Authenticate(ctx, st, "Bearer "+secret); !errors.Is(err, token.ErrRevoked) {
					return fmt.Errorf("authenticating after RevokeToken: %v, want token.ErrRevoked", err)
				}
				return nil
			}()
		})
	}
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			t.Errorf("worker %d: %v", w, err)
		}
	}
	if after, err := st.Tokens(ctx); err != nil || len(after) != len(before)+workers {
		t.Errorf("Tokens after %d concurrent adds: %d tokens, %v; want %d", workers, len(after), err, len(before)+workers)
	}
}

// checkUTC fails t when a time of tok is not in UTC.
func checkUTC(t *testing.T, what string, tok token.Token) {
	t.Helper()
	if tok.Created.Location() != time.UTC || tok.Revoked.Location() != time.UTC {
		t.Errorf("%s: token %s has times in %v and %v, want UTC", what, tok.ID, tok.Created.Location(), tok.Revoked.Location())
	}
}

// flipBit returns h with bit i changed.
func flipBit(h [32]byte, i int) [32]byte {
	h[i/8] ^= 1 << (i % 8)
	return h
}
