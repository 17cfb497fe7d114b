package transcript

import (
	"fmt"
	"slices"
)

// TargetError is the cause of the refusal of a correction whose target takes none because of
// what it is: a correction itself (Corrects is the row that one corrects) or a blank row
// (Corrects is 0). errors.As finds it through the refusal, which matches ErrInvalidMessage.
type TargetError struct {
	Seq      Sequence // the target
	Corrects Sequence // the row the target corrects; 0 when the target is blank
}

func (e *TargetError) Error() string {
	if e.Corrects != 0 {
		return fmt.Sprintf("row %d is a correction of row %d", e.Seq, e.Corrects)
	}
	return fmt.Sprintf("row %d is blank", e.Seq)
}

// validateCorrection reports what is wrong with the correction fields of m, a new row (or,
// when restored, a row an export wrote as it was stored).
func validateCorrection(m Message, restored bool) error {
	switch {
	case m.Revised != 0 && !restored:
		return invalidf(ErrInvalidMessage, "revised %d set by the caller (the log sets it)", m.Revised)
	case m.Redacted && m.Content != "":
		return invalidf(ErrInvalidMessage, "a redacted row holds content (a redaction erases, and says nothing)")
	case m.Corrects == 0 && m.Redacted && !restored:
		return invalidf(ErrInvalidMessage, "redacted set on a row that corrects nothing (a redaction names its target in corrects)")
	case m.Corrects == 0 && m.Redacted && m.Revised == 0:
		return invalidf(ErrInvalidMessage, "a redacted row without revised (it names the redaction that erased it)")
	case m.Corrects != 0 && m.Revised != 0:
		return invalidf(ErrInvalidMessage, "revised %d on a correction (only a corrected row has one)", m.Revised)
	case m.Corrects == 0:
		return nil
	case m.Parent != 0:
		return invalidf(ErrInvalidMessage, "a correction of row %d replies to row %d (a correction replies to nothing)", m.Corrects, m.Parent)
	case !m.Redacted && isBlank(m.Content):
		return invalidf(ErrInvalidMessage, "an edit of row %d without content (to erase a row, redact it)", m.Corrects)
	}
	return nil
}

// ResolveCorrection applies the correction rule to m, a correction (m.Corrects != 0) that
// Message.ValidateNew accepts, and returns the Audience m is stored with, in canonical
// order, in a new slice; nil for a correction of a row the whole desk reads. Every log that
// appends calls it for every new correction, before anything is written: memlog,
// sqlitestore and pgstore, through storage.Batch.Settle (under their WriteRules). target is
// the row m.Corrects names, as stored, or nil when the desk holds no such row.
//
// The rule, checked in this order:
//
//   - target is nil, or m's author may not read it: ErrNotReadable, the same refusal for a
//     missing row and an unreadable one, quoting nothing, so that an outsider learns nothing
//     of an aside (not even that it was redacted);
//   - target is a correction itself, or blank (ErrInvalidMessage), or redacted (ErrRedacted);
//   - an edit's author is not target's author (identity, labels ignored), or a redaction's
//     author is neither target's author nor the operator: ErrNotAuthor;
//   - m's readers are target's: an empty Audience is filled in with target.Readers() minus
//     m's author, any other is refused (ErrInvalidAudience), as the reply rule does. An
//     operator's redaction of an aside it is not listed in thus adds only the operator, who
//     reads everything anyway.
//
// Errors match ErrInvalidMessage as well as the sentinel named, and name target by its Seq
// only.
func (m Message) ResolveCorrection(target *Message) ([]Author, error) {
	return WriteRules{}.ResolveCorrection(m, target)
}

// checkTarget is the first point of the correction rule: the target exists and m's author
// may read it.
func checkTarget(m Message, target *Message) error {
	if target == nil || target.Seq != m.Corrects || !target.ReadableBy(m.Author) {
		return invalidf(ErrNotReadable, "not a row of the desk the correction's author may read: row %d", m.Corrects)
	}
	return nil
}

// checkTargetState is the second and third points of the correction rule: what target is,
// and who may correct it. A restored correction may correct a redacted (and so empty)
// target: an export holds the corrections a redaction erased.
func checkTargetState(m Message, target *Message, restored bool) error {
	switch {
	case target.IsCorrection():
		return &InvalidMessageError{Kind: ErrInvalidMessage, Reason: fmt.Sprintf("row %d is a correction (correct the row it corrects, row %d)", target.Seq, target.Corrects),
			Cause: &TargetError{Seq: target.Seq, Corrects: target.Corrects}}
	case target.Redacted && !restored:
		return invalidf(ErrRedacted, "row %d was redacted", target.Seq)
	case target.blank():
		return &InvalidMessageError{Kind: ErrInvalidMessage, Reason: fmt.Sprintf("row %d is blank: it holds nothing to correct", target.Seq),
			Cause: &TargetError{Seq: target.Seq}}
	}
	switch {
	case m.Redacted && !m.Author.Same(target.Author) && m.Author.Kind != KindOperator:
		return invalidf(ErrNotAuthor, "only the author of row %d or the operator may redact it", target.Seq)
	case !m.Redacted && !m.Author.Same(target.Author):
		return invalidf(ErrNotAuthor, "only the author of row %d may edit it", target.Seq)
	}
	return nil
}

// correctionAudience is the fourth point of the correction rule: m keeps target's readers.
func correctionAudience(m Message, target *Message) ([]Author, error) {
	if !target.IsAside() {
		if len(m.Audience) > 0 {
			return nil, invalidf(ErrInvalidAudience, "a correction of row %d, which the whole desk reads, lists an audience (leave it empty)", target.Seq)
		}
		return nil, nil
	}
	return inheritedAudience(m, target, "a correction of the aside %d must keep its readers (leave the audience empty)")
}

// inheritedAudience returns the audience of m, a row that must keep from's readers (a reply
// to the aside from, or a correction of it): from.Readers() minus m's author when m lists
// none, else m's own when it names the same identities. refused is the message of the
// refusal of any other, formatted with from's Seq.
func inheritedAudience(m Message, from *Message, refused string) ([]Author, error) {
	want := slices.DeleteFunc(from.Readers(), m.Author.Same)
	if len(want) == 0 {
		return nil, invalidf(ErrInvalidAudience, "the readers of row %d are only the writer", from.Seq)
	}
	if len(m.Audience) == 0 {
		return want, nil
	}
	given := canonicalAudience(m.Audience)
	if !slices.EqualFunc(given, want, Author.Same) {
		return nil, invalidf(ErrInvalidAudience, refused, from.Seq)
	}
	return given, nil
}
