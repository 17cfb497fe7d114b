package storage

import (
	"slices"

	"github.com/sharedesk/transcript"
)

// checkBatchKeys reports the first message of msgs, a batch to append, whose Key an earlier
// message carries too: a batch stores one row a key, so a key twice is the caller's mistake,
// never a replay. It returns that message's index and an error naming both positions and
// the key, matching ErrInvalidMessage and ErrDuplicateKey; or -1 and nil.
func checkBatchKeys(msgs []transcript.Message) (int, error) {
	if len(msgs) < 2 {
		return -1, nil
	}
	var seen map[string]int
	for i, m := range msgs {
		if m.Key == "" {
			continue
		}
		if j, ok := seen[m.Key]; ok {
			return i, Invalidf(transcript.ErrDuplicateKey, "key %q is message %d's too", m.Key, j)
		}
		if seen == nil {
			seen = make(map[string]int, len(msgs)-i)
		}
		seen[m.Key] = i
	}
	return -1, nil
}

// MatchKey decides an append of m whose Key the desk already holds for stored: it returns
// nil when m is stored again — the same author identity, parent, target (Corrects),
// audience (by identity) and content — so the log returns stored and writes nothing;
// otherwise a *KeyConflictError naming the key and stored's Seq, which quotes neither row.
// A row a redaction erased matches whatever m's content, so that a retry after a redaction
// replays instead of conflicting. m is the row as the log would store it, its Audience
// resolved (Message.ResolveAudience, Message.ResolveCorrection); labels and At play no
// part. Every log that takes keys calls it: memlog, sqlitestore and pgstore.
func MatchKey(stored, m transcript.Message) error {
	if KeyDifferences(stored, m) == nil {
		return nil
	}
	return &transcript.KeyConflictError{Key: m.Key, Seq: stored.Seq}
}

// KeyDifferences names what keeps m from being stored again as stored, as MatchKey
// compares them, in this order: "author", "parent", "target", "audience", "content". It is
// nil when MatchKey returns nil. The names say which fields differ, never how.
func KeyDifferences(stored, m transcript.Message) []string {
	var diff []string
	if !stored.Author.Same(m.Author) {
		diff = append(diff, "author")
	}
	if stored.Parent != m.Parent {
		diff = append(diff, "parent")
	}
	if stored.Corrects != m.Corrects {
		diff = append(diff, "target")
	}
	if !slices.EqualFunc(stored.Audience, m.Audience, transcript.Author.Same) {
		diff = append(diff, "audience")
	}
	if stored.Content != m.Content && !stored.Redacted {
		diff = append(diff, "content")
	}
	return diff
}
