package transcript

import (
	"fmt"
	"slices"
	"unicode"
	"unicode/utf8"
)

// checkBatchKeys reports the first message of msgs, a batch to append, whose Key an earlier
// message carries too: a batch stores one row a key, so a key twice is the caller's mistake,
// never a replay. It returns that message's index and an error naming both positions and
// the key, matching ErrInvalidMessage and ErrDuplicateKey; or -1 and nil.
func checkBatchKeys(msgs []Message) (int, error) {
	if len(msgs) < 2 {
		return -1, nil
	}
	var seen map[string]int
	for i, m := range msgs {
		if m.Key == "" {
			continue
		}
		if j, ok := seen[m.Key]; ok {
			return i, invalidf(ErrDuplicateKey, "key %q is message %d's too", m.Key, j)
		}
		if seen == nil {
			seen = make(map[string]int, len(msgs)-i)
		}
		seen[m.Key] = i
	}
	return -1, nil
}

// KeyConflictError reports an append whose Key names a stored row that differs from it.
type KeyConflictError struct {
	Key string   // the key both rows carry
	Seq Sequence // the stored row's
}

func (e *KeyConflictError) Error() string {
	return fmt.Sprintf("key %q already names row %d, which differs in author, parent, audience or content", e.Key, e.Seq)
}

// Is reports that every *KeyConflictError matches ErrKeyConflict.
func (e *KeyConflictError) Is(target error) bool { return target == ErrKeyConflict }

// validateKey reports whether key can be a row's Key: empty (no key), or at most MaxKeyLen
// bytes of valid UTF-8 whose every character is printable (letters, marks, numbers,
// punctuation, symbols and the ASCII space).
func validateKey(key string) error {
	if len(key) > MaxKeyLen {
		return invalidf(ErrInvalidMessage, "key of %d bytes, over the limit of %d", len(key), MaxKeyLen)
	}
	if !utf8.ValidString(key) {
		return invalidf(ErrInvalidMessage, "key is not valid UTF-8")
	}
	for i, r := range key {
		if !unicode.IsPrint(r) {
			return invalidf(ErrInvalidMessage, "key holds the unprintable character %U at byte %d", r, i)
		}
	}
	return nil
}

// MatchKey decides an append of m whose Key the desk already holds for stored: it returns
// nil when m is stored again — the same author identity, parent, target (Corrects),
// audience (by identity) and content — so the log returns stored and writes nothing;
// otherwise a *KeyConflictError naming the key and stored's Seq, which quotes neither row.
// A row a redaction erased matches whatever m's content, so that a retry after a redaction
// replays instead of conflicting. m is the row as the log would store it, its Audience
// resolved (ResolveAudience, ResolveCorrection); labels and At play no part. Every log that
// takes keys calls it: memlog, sqlitestore and pgstore.
func MatchKey(stored, m Message) error {
	if stored.Author.Same(m.Author) && stored.Parent == m.Parent && stored.Corrects == m.Corrects &&
		(stored.Content == m.Content || stored.Redacted) &&
		slices.EqualFunc(stored.Audience, m.Audience, Author.Same) {
		return nil
	}
	return &KeyConflictError{Key: m.Key, Seq: stored.Seq}
}
