package token_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/desknames"
	"github.com/sharedesk/transcript/token"
)

var (
	secretForm = regexp.MustCompile(`^trs_[A-Za-z0-9_-]{43}$`) // what a secret scanner matches
	idForm     = regexp.MustCompile(`^tok_[0-9a-f]{12}$`)
	triage     = transcript.Agent("triage", "Triage ✍")
	created    = time.Date(2026, 5, 1, 9, 30, 0, 123_456_789, time.FixedZone("CEST", 2*3600))
)

// TestNew: a new token's secret has the scanners' form, is random, and is kept only as its
// SHA-256; the ID is derived from the hash; the times are what a store keeps.
func TestNew(t *testing.T) {
	secret, tok, err := token.New("eng", triage, created)
	if err != nil {
		t.Fatal(err)
	}
	if !secretForm.MatchString(secret) || len(secret) != token.SecretLen {
		t.Errorf("secret %q does not match %v", secret, secretForm)
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(strings.TrimPrefix(secret, token.SecretPrefix))
	if err != nil || len(raw) != 32 {
		t.Errorf("secret's text decodes to %d bytes, %v; want 32", len(raw), err)
	}
	if tok.Hash != sha256.Sum256([]byte(secret)) || tok.Hash != token.Hash(secret) {
		t.Errorf("Hash is not the SHA-256 of the secret")
	}
	sum := sha256.Sum256(tok.Hash[:])
	if want := "tok_" + hex.EncodeToString(sum[:6]); tok.ID != want || !idForm.MatchString(tok.ID) {
		t.Errorf("ID %q, want %q", tok.ID, want)
	}
	if want := time.Date(2026, 5, 1, 7, 30, 0, 123_456_000, time.UTC); tok.Created != want {
		t.Errorf("Created %v, want %v (UTC, rounded down to the microsecond)", tok.Created, want)
	}
	if tok.Desk != "eng" || tok.Participant != triage || tok.IsRevoked() || !tok.Revoked.IsZero() {
		t.Errorf("token %+v, want desk eng, participant %v, not revoked", tok, triage)
	}
	if err := tok.Validate(); err != nil {
		t.Errorf("Validate of a new token: %v", err)
	}
	if strings.Contains(tok.ID, secret[len(token.SecretPrefix):][:8]) {
		t.Errorf("ID %q holds a piece of the secret", tok.ID)
	}
	// Secrets are random: many new ones are all different.
	seen := map[string]bool{secret: true}
	for range 1000 {
		s, _, err := token.New("eng", triage, created)
		if err != nil || seen[s] || !secretForm.MatchString(s) {
			t.Fatalf("New: %q, %v (seen before: %v)", s, err, seen[s])
		}
		seen[s] = true
	}
}

// TestNewRefuses: a desk or participant a store could not keep, or a time outside the years
// 1 to 9999, is ErrInvalid, and New returns no secret.
func TestNewRefuses(t *testing.T) {
	tests := []struct {
		name   string
		desk   string
		p      transcript.Author
		now    time.Time
		author bool // the error also matches transcript.ErrInvalidAuthor
	}{
		{"empty desk", "", triage, created, false},
		{"desk with a NUL byte", "en\x00g", triage, created, false},
		{"desk not UTF-8", "en\xffg", triage, created, false},
		{"zero participant", "eng", transcript.Author{}, created, true},
		{"unknown kind", "eng", transcript.Author{Kind: 9, ID: "x"}, created, true},
		{"operator with an id", "eng", transcript.Author{Kind: transcript.KindOperator, ID: "root"}, created, true},
		{"agent without an id", "eng", transcript.Agent("", "Triage"), created, true},
		{"participant id with a NUL byte", "eng", transcript.Agent("tri\x00age", "Triage"), created, false},
		{"participant label not UTF-8", "eng", transcript.Person("ana", "Ana \xc3"), created, false},
		{"participant label with a NUL byte", "eng", transcript.Author{Kind: transcript.KindOperator, Label: "Op\x00"}, created, false},
		{"zero time", "eng", triage, time.Time{}, false},
		{"year 10000", "eng", triage, time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{"year 0", "eng", triage, time.Date(0, 12, 31, 23, 59, 59, 0, time.UTC), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			secret, tok, err := token.New(tt.desk, tt.p, tt.now)
			if !errors.Is(err, token.ErrInvalid) {
				t.Fatalf("New: %v, want ErrInvalid", err)
			}
			if errors.Is(err, transcript.ErrInvalidAuthor) != tt.author {
				t.Errorf("New: %v; matches transcript.ErrInvalidAuthor: %v, want %v", err, !tt.author, tt.author)
			}
			if errors.Is(err, token.ErrUnauthorized) {
				t.Errorf("New: %v matches ErrUnauthorized", err)
			}
			if secret != "" || tok != (token.Token{}) {
				t.Errorf("New refused, yet returned %q, %+v", secret, tok)
			}
		})
	}
	oldest := time.Date(1, 1, 1, 0, 0, 0, 1000, time.UTC) // the zero Time is no time; a microsecond later is
	for _, p := range []transcript.Author{transcript.Operator(), transcript.Person("ana", ""), transcript.System("workflow", "CI: nightly")} {
		if _, _, err := token.New("équipe_ü", p, oldest); err != nil {
			t.Errorf("New for %v: %v", p, err)
		}
	}
}

// TestNewDeskRule: New makes tokens only for desks transcript.ValidateDesk accepts, and
// Validate refuses a token for any other.
func TestNewDeskRule(t *testing.T) {
	_, good, err := token.New("eng", triage, created)
	if err != nil {
		t.Fatal(err)
	}
	for what, desk := range desknames.Refused {
		if _, _, err := token.New(desk, triage, created); !errors.Is(err, token.ErrInvalid) || !errors.Is(err, transcript.ErrInvalidDesk) {
			t.Errorf("New(%q) (%s): %v, want ErrInvalid and transcript.ErrInvalidDesk", desk, what, err)
		}
		tok := good
		tok.Desk = desk
		if err := tok.Validate(); !errors.Is(err, transcript.ErrInvalidDesk) {
			t.Errorf("Validate of a token for %q (%s): %v, want transcript.ErrInvalidDesk", desk, what, err)
		}
	}
	for what, desk := range desknames.Accepted {
		if _, tok, err := token.New(desk, triage, created); err != nil || tok.Desk != desk {
			t.Errorf("New(%q) (%s): desk %q, %v; want the token", desk, what, tok.Desk, err)
		}
	}
}

// TestValidate: a token whose ID is not its hash's, or whose revocation time cannot be
// kept, is ErrInvalid; every change to a field New checks is caught.
func TestValidate(t *testing.T) {
	_, good, err := token.New("eng", triage, created)
	if err != nil {
		t.Fatal(err)
	}
	revoked := good
	revoked.Revoked = created.Add(time.Hour)
	if err := revoked.Validate(); err != nil {
		t.Errorf("Validate of a revoked token: %v", err)
	}
	tests := []struct {
		name   string
		change func(*token.Token)
	}{
		{"no ID", func(t *token.Token) { t.ID = "" }},
		{"another token's ID", func(t *token.Token) { t.ID = token.IDOf(token.Hash("trs_other")) }},
		{"an upper-case ID", func(t *token.Token) { t.ID = strings.ToUpper(t.ID) }},
		{"another hash", func(t *token.Token) { t.Hash[31] ^= 1 }},
		{"an ID that is a secret", func(t *token.Token) { t.ID = "trs_" + strings.Repeat("A", 43) }},
		{"empty desk", func(t *token.Token) { t.Desk = "" }},
		{"invalid participant", func(t *token.Token) { t.Participant.Kind = 0 }},
		{"no creation time", func(t *token.Token) { t.Created = time.Time{} }},
		{"revoked in year 10000", func(t *token.Token) { t.Revoked = time.Date(10000, 1, 2, 0, 0, 0, 0, time.UTC) }},
		{"revoked before year 1", func(t *token.Token) { t.Revoked = time.Date(0, 1, 2, 0, 0, 0, 0, time.UTC) }},
	}
	for _, tt := range tests {
		tok := good
		tt.change(&tok)
		if err := tok.Validate(); !errors.Is(err, token.ErrInvalid) {
			t.Errorf("%s: Validate = %v, want ErrInvalid", tt.name, err)
		}
	}
}

// TestCheckRevocation: RevokeToken's time must be a time a token can hold, and not zero.
func TestCheckRevocation(t *testing.T) {
	for _, tt := range []struct {
		at time.Time
		ok bool
	}{
		{created, true},
		{time.Date(1, 1, 1, 0, 0, 0, 1000, time.UTC), true},
		{time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.UTC), true},
		{time.Time{}, false},
		{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{time.Date(-5, 1, 1, 0, 0, 0, 0, time.UTC), false},
	} {
		if err := token.CheckRevocation(tt.at); (err == nil) != tt.ok || (err != nil && !errors.Is(err, token.ErrInvalid)) {
			t.Errorf("CheckRevocation(%v) = %v, want ok %v", tt.at, err, tt.ok)
		}
	}
}

// TestFloor: the time a store keeps is a floor to the microsecond in UTC, also before 1970.
func TestFloor(t *testing.T) {
	for _, tt := range []struct{ in, want time.Time }{
		{time.Date(2026, 1, 1, 0, 0, 0, 999, time.UTC), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
		{time.Date(1969, 12, 31, 23, 59, 59, 999_999_999, time.UTC), time.Date(1969, 12, 31, 23, 59, 59, 999_999_000, time.UTC)},
		{time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC), time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)},
		{created, time.Date(2026, 5, 1, 7, 30, 0, 123_456_000, time.UTC)},
	} {
		if got := token.Floor(tt.in); got != tt.want {
			t.Errorf("Floor(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
	if got := token.Floor(time.Now()); got != got.Round(0) {
		t.Errorf("Floor kept a monotonic reading: %v", got)
	}
}

// TestErrors: Authenticate's refusals match ErrUnauthorized and their own sentinel only;
// a store's wrapped ErrUnknown still does; ErrInvalid and ErrExists are no refusals.
func TestErrors(t *testing.T) {
	sentinels := []error{token.ErrMissing, token.ErrMalformed, token.ErrUnknown, token.ErrRevoked}
	for _, err := range token.Refusals {
		if !errors.Is(err, token.ErrUnauthorized) {
			t.Errorf("%v does not match ErrUnauthorized", err)
		}
		n := 0
		for _, s := range sentinels {
			if errors.Is(err, s) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%v matches %d of ErrMissing, ErrMalformed, ErrUnknown, ErrRevoked; want 1", err, n)
		}
		if !strings.HasPrefix(err.Error(), "token: ") {
			t.Errorf("%q lacks the package's prefix", err)
		}
	}
	wrapped := errors.Join(errors.New("sqlitestore: revoking token \"tok_0\""), token.ErrUnknown)
	if !errors.Is(wrapped, token.ErrUnknown) || !errors.Is(wrapped, token.ErrUnauthorized) {
		t.Errorf("a wrapped ErrUnknown: %v", wrapped)
	}
	if strings.Contains(token.ErrUnknown.Error(), "unauthorized") {
		t.Errorf("ErrUnknown says %q: a store's message about an unknown id should not say unauthorized", token.ErrUnknown)
	}
	for _, err := range []error{token.ErrInvalid, token.ErrExists} {
		if errors.Is(err, token.ErrUnauthorized) {
			t.Errorf("%v matches ErrUnauthorized", err)
		}
	}
}

// TestIsID: the form of an ID, which a store may quote, and nothing else.
func TestIsID(t *testing.T) {
	secret, tok, err := token.New("eng", triage, created)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		s  string
		ok bool
	}{
		{tok.ID, true},
		{"tok_0123456789ab", true},
		{"tok_0123456789AB", false},
		{"tok_0123456789a", false},
		{"tok_0123456789abc", false},
		{"tok_0123456789ag", false},
		{"TOK_0123456789ab", false},
		{"0123456789ab", false},
		{"", false},
		{secret, false},
	} {
		if got := token.IsID(tt.s); got != tt.ok {
			t.Errorf("IsID(%q) = %v, want %v", tt.s, got, tt.ok)
		}
	}
}

func TestStringHidesHash(t *testing.T) {
	secret, tok, err := token.New("eng", transcript.Agent("triage", "Triage"), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{tok.String(), fmt.Sprint(tok), fmt.Sprintf("%v", tok), tok.LogValue().String()} {
		if !strings.Contains(s, tok.ID) || strings.Contains(s, fmt.Sprintf("%x", tok.Hash[:4])) || strings.Contains(s, secret[4:12]) {
			t.Errorf("%q: want the ID and neither the hash nor the secret", s)
		}
	}
}
