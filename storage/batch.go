package storage

import (
	"slices"

	"github.com/sharedesk/transcript"
)

// Batch is one append to a desk as a store decides it: every store of this module, and any
// store a host writes, checks its appends with Check and Settle, and supplies only the
// reads Settle needs and the writes it decides. A Batch is used by one goroutine.
type Batch struct {
	Desk     string               // the desk appended to, as given
	Messages []transcript.Message // the messages to append, in order; never modified
	// Single is set for Append's one message: its refusal names no index (-1), and a
	// transcript.BatchParent is refused.
	Single bool
	// Restore is set for rows an export wrote, which a store restores as they were stored:
	// a row may carry Revised, and Redacted with empty content, as the log set them; a
	// correction is decided by the correction rule, and it may correct a redacted row; a
	// Revised must name a correction of its row among the rows restored with it. A
	// correction of a row restored with it is not applied again (the row holds its result).
	// A correction of a row stored before the batch (a later export's correction of a row
	// an earlier one brought) is applied as an append applies it, for that row cannot hold
	// its result; one that is not erased may not correct a redacted row. The Settlement's
	// Revisions hold those alone.
	Restore bool
	// MaxContent is the store's content limit in bytes; 0 (or above transcript.MaxContent)
	// means transcript.MaxContent.
	MaxContent int

	checked bool // Check accepted the batch
}

// Check reports what is wrong with b that b alone tells, before a store reads or writes
// anything: the desk name (transcript.ValidateDesk), each message
// (transcript.Message.ValidateNew, with b's content limit and Restore's allowances:
// transcript.WriteRules), a BatchParent (as Parent or Corrects) that names no earlier
// message of the batch, or any BatchParent when Single, and one Key on two messages
// (transcript.ErrDuplicateKey). The refusal is a
// *transcript.AppendError naming the first bad message, whose Err matches
// transcript.ErrInvalidMessage. Settle calls Check unless it accepted b already.
func (b *Batch) Check() error {
	if b.checked {
		return nil
	}
	if err := transcript.ValidateDesk(b.Desk); err != nil {
		return &transcript.AppendError{Desk: b.Desk, Index: -1, Err: InvalidMessage(err)}
	}
	rules := transcript.WriteRules{MaxContent: b.MaxContent, Restore: b.Restore}
	for i, m := range b.Messages {
		if err := b.checkMessage(m, i, rules); err != nil {
			return b.refuse(i, err)
		}
	}
	if i, err := checkBatchKeys(b.Messages); err != nil {
		return b.refuse(i, err)
	}
	b.checked = true
	return nil
}

// ValidateRestored is transcript.Message.ValidateNew for a row an export wrote, which a
// store restores as it was stored (a Batch with Restore): besides what
// transcript.Message.ValidateNew accepts, it may carry Revised, and Redacted with empty
// Content, as the log set them.
func ValidateRestored(m transcript.Message) error {
	return transcript.WriteRules{Restore: true}.ValidateNew(m)
}

// checkMessage is Check of the i-th message, m.
func (b *Batch) checkMessage(m transcript.Message, i int, rules transcript.WriteRules) error {
	if err := rules.ValidateNew(m); err != nil {
		return err
	}
	if b.Single {
		i = -1
	}
	if err := checkBatchParent(m.Parent, i); err != nil {
		return err
	}
	return checkBatchParent(m.Corrects, i)
}

// refuse returns err, the refusal of the i-th message, as the batch's
// *transcript.AppendError.
func (b *Batch) refuse(i int, err error) error {
	if b.Single {
		i = -1
	}
	return &transcript.AppendError{Desk: b.Desk, Index: i, Err: err}
}

// Reads returns what Settle needs a store to read, under the lock that keeps the desk's
// head where it is until the append commits, besides the head itself: the sequences the
// batch's Parents and Corrects name (BatchParents and 0 left out), ascending and each once,
// which Settle wants as stored rows when they are at most the head; those of them a
// correction names (targets), whose content the correction rule reads; and the batch's
// keys, in order, nil when no message has one. A store that reads a row by key reads it
// whole.
func (b *Batch) Reads() (seqs, targets []transcript.Sequence, keys []string) {
	for _, m := range b.Messages {
		if seq := m.Parent; seq != 0 && !isBatchRef(seq) {
			seqs = append(seqs, seq)
		}
		if seq := m.Corrects; seq != 0 && !isBatchRef(seq) {
			seqs, targets = append(seqs, seq), append(targets, seq)
		}
		if m.Key != "" {
			if keys == nil {
				keys = make([]string, 0, len(b.Messages))
			}
			keys = append(keys, m.Key)
		}
	}
	slices.Sort(seqs)
	slices.Sort(targets)
	return slices.Compact(seqs), slices.Compact(targets), keys
}

// isBatchRef reports whether s was made by transcript.BatchParent.
func isBatchRef(s transcript.Sequence) bool {
	_, ok := s.BatchIndex()
	return ok
}

// Settle decides b's messages, in order, as the rows after head, the desk's newest row
// before them, from what the store read (see Reads): stored, the rows from 1 to head that
// Parents and Corrects name, by Seq; present, the stored rows holding the batch's keys, by
// key. For each message: its parent or target, its audience by the reply rule
// (transcript.Message.ResolveAudience) or the correction rule
// (transcript.Message.ResolveCorrection, under transcript.WriteRules), when its Key is
// present whether it is that row again (MatchKey), and what its corrections change. It
// returns the Settlement, or the refusal of the first message refused: a
// *transcript.AppendError whose Err matches transcript.ErrInvalidMessage, or is the
// *transcript.KeyConflictError of a key present for a different row. Neither b's messages
// nor what the store read are modified.
//
// A message's parent is, by its Parent: none (0); an earlier message of the batch, as
// settled (a BatchParent, replaced with that message's Seq; or a Seq above head, a new row
// of the append); or stored[Parent]. A Parent that is not older than the message's row, or
// not found, is refused with ErrNoParent. A correction's target is found the same way from
// its Corrects, and a target not found is refused by the correction rule (ErrNotReadable).
//
// The reply rule is checked against the parent as settled; a correction against its target
// as the messages before it left it, except that a correction whose Key is present is
// matched against that row once its author may read the target, so that a retry after a
// redaction replays. A message whose Key is present is compared with the stored row: the
// same author identity, parent, target, audience (by identity) and content — or the stored
// row was redacted — and it is settled as the stored row and takes no Seq; a different one
// is refused with a *transcript.KeyConflictError, which names the key and the stored row's
// Seq and quotes neither row. Labels and At play no part. Every other message is a new row,
// numbered head+1, head+2, ... in order, its Audience a new slice (nil for a desk row).
//
// A new correction is applied at once, so that the messages after it see it: its target's
// Content becomes the edit's (or is erased), its Revised the correction's Seq, and a
// redaction erases every earlier correction of the target too. A message checked against
// a present key is checked as the next new row would be, so a message is refused for what
// is wrong with it before it is matched. Errors name rows by their Seq only.
func (b *Batch) Settle(head transcript.Sequence, stored map[transcript.Sequence]transcript.Message, present map[string]*transcript.Message) (Settlement, error) {
	if err := b.Check(); err != nil {
		return Settlement{}, err
	}
	s := settler{msgs: b.Messages, base: head, stored: stored, rows: make([]transcript.Message, len(b.Messages)), next: head + 1, restored: b.Restore}
	for i, m := range b.Messages {
		if err := s.decide(i, m, present); err != nil {
			return Settlement{}, b.refuse(i, err)
		}
	}
	if b.Restore {
		if i, err := s.checkRevised(); err != nil {
			return Settlement{}, b.refuse(i, err)
		}
	}
	return s.settlement(), nil
}
