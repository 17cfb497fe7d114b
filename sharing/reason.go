package sharing

import "fmt"

// Reason names why Prepare asks for a full reinitialization instead of a delta, or why
// Book.Lookup has no state to prepare from.
type Reason int

const (
	// ConversationChanged: the desired, current (bound) or stored conversations differ.
	ConversationChanged Reason = iota + 1
	// GapTooLarge: the watermark was not crossed inside ScanLimit rows.
	GapTooLarge
	// WatermarkUnavailable: the log ended before reaching the watermark, or the watermark
	// (or the bound's row B-1) is newer than the log's newest row.
	WatermarkUnavailable
	// StateEvicted: the participant's state of the conversation was evicted from its Book
	// to make room for another conversation (BookLimit). Prepare never returns it;
	// Book.Lookup does.
	StateEvicted
	// DigestCorrected: a row of the delta's range corrects a row the digest the agent was
	// given (State.Digest) may stand for, an edit or a redaction: the agent's copy may hold
	// words the log no longer does, and a fresh view carries the digest the store holds now.
	DigestCorrected
)

var reasonNames = [...]string{
	ConversationChanged:  "conversation_changed",
	GapTooLarge:          "gap_too_large",
	WatermarkUnavailable: "watermark_unavailable",
	StateEvicted:         "state_evicted",
	DigestCorrected:      "digest_corrected",
}

func (r Reason) valid() bool { return r >= ConversationChanged && r <= DigestCorrected }

// String returns "conversation_changed", "gap_too_large", "watermark_unavailable",
// "state_evicted" or "digest_corrected", "none" for 0, and "Reason(n)" otherwise.
func (r Reason) String() string {
	switch {
	case r.valid():
		return reasonNames[r]
	case r == 0:
		return "none"
	}
	return fmt.Sprintf("Reason(%d)", int(r))
}

// MarshalText encodes a reason by its name and 0 as the empty string; any other value is an
// error.
func (r Reason) MarshalText() ([]byte, error) {
	switch {
	case r.valid():
		return []byte(reasonNames[r]), nil
	case r == 0:
		return []byte{}, nil
	}
	return nil, fmt.Errorf("sharing: unknown reason %d", int(r))
}

// UnmarshalText decodes what MarshalText writes.
func (r *Reason) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		*r = 0
		return nil
	}
	for k := ConversationChanged; k <= DigestCorrected; k++ {
		if reasonNames[k] == string(text) {
			*r = k
			return nil
		}
	}
	return fmt.Errorf("sharing: unknown reason %q", text)
}
