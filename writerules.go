package transcript

import "time"

// WriteRules are Message.ValidateNew's and ResolveCorrection's rules as a store applies
// them to what it writes (storage.Batch does): with the store's content limit, to rows an
// export wrote, and to a correction whose Key names a stored row. The zero WriteRules are
// the rules as Message.ValidateNew and Message.ResolveCorrection apply them.
type WriteRules struct {
	// MaxContent is the store's content limit in bytes; 0 (or above MaxContent) means
	// MaxContent.
	MaxContent int
	// Restore applies the rules to a row an export wrote, as it was stored: it may carry
	// Revised, and Redacted with empty Content, as the log set them, and a correction may
	// correct a redacted row (the export holds the corrections a redaction erased).
	Restore bool
	// Replay applies the correction rule to a correction whose Key names a stored row,
	// which storage.MatchKey then compares with it: only the rule's first and last points
	// are checked (its author may read the target; its readers are the target's), so that
	// a retry after the target was redacted replays instead of failing.
	Replay bool
}

// ValidateNew is Message.ValidateNew under r: the content limit is r's, and with Restore a
// row may carry what the log set.
func (r WriteRules) ValidateNew(m Message) error {
	limit := r.MaxContent
	if limit <= 0 || limit > MaxContent {
		limit = MaxContent
	}
	return validateNew(m, limit, r.Restore)
}

// ValidateText reports whether s, the text named what ("author label"), is one a store
// keeps: valid UTF-8 without a NUL byte, the rule of every text of a row (and, through
// storage.ValidateText, of what a store keeps beside its rows); r's fields play no part.
// The error is an *InvalidMessageError of kind ErrText that names what and the offending
// offset, never a part of s.
func (WriteRules) ValidateText(what, s string) error { return validateText(what, s) }

// ValidateTime reports whether at, the time named what ("at"), lies in the years 1 to 9999,
// the times a store keeps (a row's At; through storage.ValidateTime, a token's times); r's
// fields play no part. The error is an *InvalidMessageError of kind ErrAt.
func (WriteRules) ValidateTime(what string, at time.Time) error { return validateTime(what, at) }

// ResolveCorrection is Message.ResolveCorrection under r.
func (r WriteRules) ResolveCorrection(m Message, target *Message) ([]Author, error) {
	if err := checkTarget(m, target); err != nil {
		return nil, err
	}
	if !r.Replay {
		if err := checkTargetState(m, target, r.Restore); err != nil {
			return nil, err
		}
	}
	return correctionAudience(m, target)
}
