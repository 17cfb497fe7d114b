package token

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

// SecretPrefix begins every secret New makes: "trs_" ("transcript secret"), so that a
// secret scanner can tell a leaked one from noise (the pattern trs_[A-Za-z0-9_-]{43}).
const SecretPrefix = "trs_"

// IDPrefix begins every token's ID, so that an ID is never mistaken for a secret, nor a
// secret for an ID.
const IDPrefix = "tok_"

const (
	secretBytes   = 32                                // from crypto/rand: 256 bits, beyond guessing
	secretTextLen = 43                                // base64.RawURLEncoding.EncodedLen(secretBytes)
	secretLen     = len(SecretPrefix) + secretTextLen // a secret's length in bytes: 47
	idHexLen      = 12                                // hex digits of an ID: 48 bits
)

// Token is one participant on one desk: whoever presents its secret is Participant on Desk,
// and nothing else. The secret itself is never stored: Hash is its SHA-256, which is how a
// Store finds the token, and ID, derived from Hash, is how a person names it (token list,
// token revoke). Token is a plain value; a Store keeps and returns copies.
type Token struct {
	// ID names the token in lists, logs and revocations: IDPrefix and the first 12 hex
	// digits of the SHA-256 of Hash (IDOf). It is public; knowing it grants nothing.
	ID string
	// Desk is the one desk the token is for, exactly as named (desk names are compared
	// byte for byte: "eng" and "Eng" are two desks).
	Desk string
	// Participant is who the token's holder is on Desk, label included: the author of what
	// they append and the viewer of what they read.
	Participant transcript.Author
	// Hash is the SHA-256 of the secret (Hash).
	Hash [32]byte
	// Created is when the token was made, in UTC, to the microsecond.
	Created time.Time
	// Revoked is when the token was revoked, in UTC, to the microsecond; the zero Time
	// while it is not.
	Revoked time.Time
}

// IsRevoked reports whether t was revoked.
func (t Token) IsRevoked() bool { return !t.Revoked.IsZero() }

// String names the token without its hash, for a log line or an error: its ID, participant
// and desk, such as `tok_3f2a9c0b1d4e (agent:triage on desk "eng")`. Printing a Token with
// %v or %s shows this; its Hash, though no secret, is shown nowhere.
func (t Token) String() string {
	return fmt.Sprintf("%s (%s on desk %q)", t.ID, t.Participant, t.Desk)
}

// LogValue is String for log/slog, as a group of the same three fields.
func (t Token) LogValue() slog.Value {
	return slog.GroupValue(slog.String("id", t.ID), slog.String("participant", t.Participant.String()), slog.String("desk", t.Desk))
}

// New makes a token for participant p on desk, created at now, and returns its secret,
// which is the only copy: give it to the participant once and keep only t (a Store's
// AddToken). The secret is SecretPrefix and 32 bytes from crypto/rand in base64url without
// padding (47 bytes in all, and nothing in it needs quoting in a header, a URL or a shell).
// t.Created is now in UTC, rounded down to the microsecond, as the stores keep it.
//
// desk must be a name transcript.ValidateDesk accepts and p a valid author
// (transcript.Author.Validate) whose id and label are valid UTF-8 without a NUL byte (the
// texts both stores keep); now must be in the years 1 to 9999. Otherwise the error matches
// ErrInvalid (and, for desk, transcript.ErrInvalidDesk; for p, transcript.ErrInvalidAuthor).
func New(desk string, p transcript.Author, now time.Time) (secret string, t Token, err error) {
	t = Token{Desk: desk, Participant: p, Created: Floor(now)}
	if err := t.checkFields(); err != nil {
		return "", Token{}, err
	}
	var raw [secretBytes]byte
	if _, err := rand.Read(raw[:]); err != nil { // never fails since Go 1.24; kept for the contract
		return "", Token{}, fmt.Errorf("token: reading random bytes: %w", err)
	}
	secret = SecretPrefix + base64.RawURLEncoding.EncodeToString(raw[:])
	t.Hash = Hash(secret)
	t.ID = IDOf(t.Hash)
	return secret, t, nil
}

// Hash returns the SHA-256 of secret, the whole string, prefix included: what a Store keeps
// of a token, and looks it up by. A fast, unsalted hash is enough, and what makes the lookup
// possible: a secret is 256 random bits, not a password a person chose, so there is nothing
// to guess, and the same secret must always give the same key.
func Hash(secret string) [32]byte { return sha256.Sum256([]byte(secret)) }

// IDOf returns the ID of the token whose hash is hash: IDPrefix and the first 12 hex digits
// of the SHA-256 of hash.
//
// The ID is a hash of the hash, not a prefix of it, so that printing, logging or typing IDs
// never shows a bit of the value the store authenticates by; it is derived rather than
// drawn at random, so that it needs no storing to agree with the hash, and whoever holds a
// secret (a scanner that found a leaked one) can compute the ID to revoke it by. Its 48
// bits make a collision unlikely among millions of tokens (about n²/2⁴⁹ for n tokens: one in
// five million at ten thousand), and a Store refuses one (ErrExists) rather than confuse two
// tokens; the caller makes a new token.
func IDOf(hash [32]byte) string {
	sum := sha256.Sum256(hash[:])
	return IDPrefix + hex.EncodeToString(sum[:idHexLen/2])
}

// IsID reports whether s has the form of an ID: IDPrefix and 12 lower-case hex digits. A
// Store quotes in its errors only ids that have it, since a string that does not might be
// a secret pasted in the wrong place.
func IsID(s string) bool {
	digits, ok := strings.CutPrefix(s, IDPrefix)
	if !ok || len(digits) != idHexLen {
		return false
	}
	for _, c := range []byte(digits) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Floor returns t in UTC, rounded down to the microsecond: the time a Store keeps of t.
func Floor(t time.Time) time.Time {
	return t.Truncate(time.Microsecond).UTC() // Truncate counts from year 1: a floor in the range a Token holds
}

// Validate reports whether t can be stored: its ID is IDOf(t.Hash); its Desk a name
// transcript.ValidateDesk accepts; its Participant valid (transcript.Author.Validate)
// with an id and label of valid UTF-8 without a NUL byte; Created not zero and, like
// Revoked when it is not zero, in the years 1 to 9999. The error matches ErrInvalid (and,
// for the desk, transcript.ErrInvalidDesk; for the participant, transcript.ErrInvalidAuthor).
// A token an older version stored for a desk whose name breaks the rule still authenticates
// (a Store checks tokens when it adds them, not when it reads them). A NUL byte is refused because
// PostgreSQL's text cannot hold one, and both stores keep the same texts.
func (t Token) Validate() error {
	if t.ID != IDOf(t.Hash) {
		return fmt.Errorf("%w: its id is not the id of its hash (token.IDOf)", ErrInvalid) // the id is not quoted: it might be anything
	}
	return t.checkFields()
}

// checkFields is Validate without the ID.
func (t Token) checkFields() error {
	if err := transcript.ValidateDesk(t.Desk); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if err := t.Participant.Validate(); err != nil {
		return fmt.Errorf("%w: participant: %w", ErrInvalid, err)
	}
	if err := checkText("participant id", t.Participant.ID); err != nil {
		return err
	}
	if err := checkText("participant label", t.Participant.Label); err != nil {
		return err
	}
	if t.Created.IsZero() {
		return fmt.Errorf("%w: no creation time", ErrInvalid)
	}
	if err := checkTime("creation time", t.Created); err != nil {
		return err
	}
	if t.IsRevoked() {
		return checkTime("revocation time", t.Revoked)
	}
	return nil
}

// CheckRevocation reports whether at can be a token's Revoked time: not zero (which means
// not revoked), and in the years 1 to 9999. The error matches ErrInvalid. A Store's
// RevokeToken calls it before it writes anything.
func CheckRevocation(at time.Time) error {
	if at.IsZero() {
		return fmt.Errorf("%w: revocation at the zero time", ErrInvalid)
	}
	return checkTime("revocation time", at)
}

// checkTime reports whether at, the what of a token, is in the years 1 to 9999, the times a
// Token holds (storage.ValidateTime). The error matches ErrInvalid.
func checkTime(what string, at time.Time) error { return invalid(storage.ValidateTime(what, at)) }

// checkText reports whether s is a text the stores keep (storage.ValidateText). It quotes
// no part of s: a label is nothing secret, but an error need not repeat it. The error
// matches ErrInvalid.
func checkText(what, s string) error { return invalid(storage.ValidateText(what, s)) }

// invalid returns err, a refusal of the root package's, as a token's: it matches ErrInvalid,
// saying what err says. It returns nil for a nil err.
func invalid(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %v", ErrInvalid, err)
}
