package importer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

// storeRows stores rows, the messages of one import in file order, in desk: the rows the
// desk does not hold yet are appended in one AppendBatch, all or nothing, and the others
// are checked against the stored rows. Every import format goes through it (JSON Lines,
// Slack, Discord). The rules, in the order they are applied:
//
//   - Within the import, a key names one row and a Seq one row.
//   - A row whose key the desk holds is that stored row; so is a row whose Seq is at or
//     below the desk's head (see findStored for how they are found: one LookupKeys of every
//     key the rows carry and every parent key the import does not define, or the whole desk
//     read through its Log when the import names most of it). It must be identical to
//     it (storage.MatchKey: author identity, parent, audience as the reply rule resolves
//     it, content; labels and times aside), have its key (or none, when it has none) and its
//     Seq, when given; it is then counted as present and not written.
//   - A ParentKey names an earlier row of the import, else a key of the desk (as a chat
//     export's reply to a thread an earlier export began does); a ParentSeq a row of the
//     desk (at or below its head), else an earlier row of the import with that Seq. A
//     parent that is a new row of the import becomes transcript.BatchParent of its place
//     in the batch, any other its stored Seq. A chat export's parent in neither is
//     reported in the export's words, naming the reply (Where) and its parent; unless the
//     export holds its channel's whole history (chatPrep.wholeHistory): the parent was
//     deleted, and a reply to it (ParentDeletable) takes its ParentKeyInstead.
//   - A correction's target (CorrectsKey, CorrectsSeq) is found as a parent is.
//   - A row the desk holds that a correction changed (its Revised set) matches whatever its
//     text, as the file holds the text it had; so does a row whose own Revised names a
//     later row of the import that corrects it (correctedByImport: a later export of a
//     desk an earlier export filled), which is stored with the new rows, so that the
//     desk's row takes the text, or the erasure, the file holds. A chat export's message
//     marked edited (Edit) that the desk holds with another text alone is an edit of it
//     when the edit is newer than the desk's text, and present otherwise (editOf). A chat
//     export's message whose content a desk may hold written otherwise (chatPrep.alike)
//     matches that too, unless it was edited since the desk's text. A chat export's
//     message that the desk holds with another text alone and no newer edit (or a newer
//     edit of a row stored blank, or to a blank text, which the correction rule refuses),
//     or that either holds as the notice of its deletion (chatPrep.deleted), is present
//     too, the desk's row kept as it is (keptAsStored, editOf; Counts.Kept counts them).
//     Any other difference is reported, naming the fields that differ
//     (storage.KeyDifferences) but quoting neither row.
//   - A chat export's new message marked edited is appended with an edit that records how
//     new its text is (editMark); Counts.Added counts the message alone.
//   - A new row with a Seq must land exactly there: the desk's head, plus one, plus the new
//     rows before it.
//   - When a row carries what only the log sets (restoredRow), the rows are an export's, and
//     the batch is restored (Store.RestoreBatch) instead of appended: the store applies a
//     correction of a row the desk held before, and no other (storage.Batch's Restore).
//
// Every row that breaks a rule is reported, up to maxReported, named by its Where, and
// nothing is written; a store's refusal names the row it refused. A desk that is empty
// costs no lookup, and an import that brings nothing new writes nothing. The rows are not
// modified.
//
// The checks and the batch are not one transaction: a row another writer appends in
// between with a key of the import is skipped by AppendBatch when identical and refused when
// not (the stores check keys themselves), but rows appended in between move where the new
// rows land, whatever their Seq said.
//
// prep is nil, or what the reader prepared while it read: among it the rows it found bad
// alone, which are reported with the rest and stored by no import, and only take their
// place among the new rows (a row of the desk when their key or Seq says so). st may be nil:
// the rows are then checked as for an empty desk, the new ones settled by the store's rules
// (storage.Batch.Settle) as a store would settle them there, and nothing is written; rows
// that pass return errNoDatabase.
func storeRows(ctx context.Context, st Store, desk string, rows []importRow, prep *importPrep, progress Progress) (Counts, error) {
	im := &rowImporter{st: st, desk: desk, rows: rows, noun: "message"}
	if st != nil {
		im.log = st.Log(desk)
	}
	if prep != nil {
		im.ahead, im.keys, im.bad, im.faulty = prep.ahead, prep.keys, prep.bad, prep.faulty
		im.noun = cmp.Or(prep.noun, im.noun)
		im.chat = prep.chat
	}
	if im.keys == nil || im.keys.n != len(rows) {
		im.keys = keysOf(rows)
	}
	im.keys.finish()
	im.index()
	begin(progress, fmt.Sprintf("checking %s against desk %q", plural(len(rows), "message"), desk))
	batch, err := im.plan(ctx)
	end(progress)
	if err != nil {
		return Counts{}, err
	}
	if err := im.bad.err(im.noun); err != nil {
		return Counts{}, err
	}
	added := len(batch) - im.edits - im.marks
	counts := Counts{Added: added, Edited: im.edits, Present: len(rows) - added, Kept: im.kept}
	if len(batch) == 0 {
		return counts, nil
	}
	if st == nil {
		// Checked as against an empty desk: the store's own rules (the correction rule, the
		// reply rule) decide the batch as a store would on an empty desk, writing nothing.
		b := storage.Batch{Desk: desk, Messages: batch, Restore: im.restore}
		_, err := b.Settle(0, nil, nil)
		if i, refusal := batchRefusal(err); refusal != nil && i < len(im.batchRows) {
			return Counts{}, &RowError{Where: rows[im.batchRows[i]].Where, Err: fmt.Errorf("%w (nothing was imported)", refusal)}
		}
		if err != nil {
			return Counts{}, err
		}
		return Counts{}, errNoDatabase
	}
	write := st.AppendBatch
	if im.restore {
		write = st.RestoreBatch
	}
	begin(progress, fmt.Sprintf("writing %s", plural(len(batch), "message")))
	err = write(ctx, desk, batch)
	end(progress)
	if i, refusal := batchRefusal(err); refusal != nil && i < len(im.batchRows) {
		return Counts{}, &RowError{Where: rows[im.batchRows[i]].Where, Err: fmt.Errorf("%w (nothing was imported)", refusal)}
	}
	if err != nil {
		return Counts{}, fmt.Errorf("%w (nothing was imported)", err)
	}
	return counts, nil
}

// errNoDatabase is storeRows' error for rows it found good against an empty desk, given no
// store to write them to.
var errNoDatabase = errors.New("no database to write to")

// importPrep is what a reader may prepare for storeRows while it reads.
type importPrep struct {
	ahead *readAhead // the desk read while the file was decoded, on the store given to storeRows; or nil
	keys  *keyIndex  // the rows' keys, every row added; or nil
	// bad is what the reader found wrong with rows alone (ordered by the rows' index), and
	// faulty those rows.
	bad    problems
	faulty map[int]bool
	noun   string // what a row is called in the report ("line"); "message" when empty
	chat   *chatPrep
}

// chatPrep is what a chat export's reader tells storeRows of its rows.
type chatPrep struct {
	// replyTo says how a reply names its parent in the export's words ("a reply in the
	// thread of", "a reply to message"), for a parent in neither the export nor the desk.
	replyTo string
	// wholeHistory says the export holds every message its channel still has, cut by no
	// date range: a message replied to (ParentDeletable) that is in neither the export nor
	// the desk was deleted, and no export will ever hold it, so the reply takes its
	// ParentKeyInstead. An export of a date range may lack it only because it is older
	// than the range: importing first an export that holds it makes the reply a reply to
	// it, so the import fails instead.
	wholeHistory bool
	// alike holds, by key, for the messages whose content a desk may hold written
	// otherwise, whether a content is theirs: as earlier imports wrote it (Slack's mentions
	// as Slack wrote them, "[GuildMemberJoin]"), or with other labels in its mentions, as
	// labels are no part of what makes a message the same (storage.MatchKey). It is not
	// asked of a message edited since the desk's text (editNewer): its text changed.
	alike map[string]func(content string) bool
	// deleted is the kind of the system notice that stands for a deleted message (Slack's
	// "deleted", for the tombstone it keeps of a thread root), or "" when there is none.
	deleted string
}

// rowImporter is one storeRows call's state.
type rowImporter struct {
	st   Store
	log  transcript.Log
	desk string
	rows []importRow
	bad  problems
	noun string // what a row is called in the report of its problems
	// faulty holds the rows the reader found bad alone, reported already: they are not
	// checked, and a new one takes its place in the batch, so that the rows after it are
	// judged where they would land.
	faulty map[int]bool

	keys  *keyIndex // the rows by key, and the keys to look up: the rows', then parents' the import lacks
	bySeq seqIndex  // Seq → the row that says it has it

	head  transcript.Sequence // the desk's newest row
	ahead *readAhead          // the desk read while the file was decoded, or nil
	// The desk's rows the import names, found one of two ways (see findStored). By lookup:
	// found holds the rows with keys of lookup, by key, and stored those named by Seq only.
	// By reading the desk: stored holds every row, foundAt[i] is the Seq of the row holding
	// the i-th row's key, and deskKeys the Seqs of the parent keys the import lacks.
	found    map[string]transcript.Message
	foundAt  []transcript.Sequence
	deskKeys map[string]transcript.Sequence
	stored   deskRows
	parents  map[transcript.Sequence]transcript.Message // desk rows read one by one for the reply rule

	// resolved[i] is what a reply to row i gets as its Parent: its stored Seq when the desk
	// holds it, else transcript.BatchParent of its place in the batch.
	resolved  []transcript.Sequence
	batchRows []int // batchRows[j] is the row the batch's j-th message comes from
	edits     int   // the batch's edits of rows the desk holds (editOf)
	kept      int   // rows of a chat export the desk holds otherwise, as it keeps them (keptAsStored)
	marks     int   // the batch's edits that record when a new message was edited (editMark)
	chat      *chatPrep
	// restore is set when a row carries what only the log sets (restoredRow): the rows are
	// an export's, restored as they were stored.
	restore bool
}

// problem notes what is wrong with the i-th row.
func (im *rowImporter) problem(i int, format string, args ...any) {
	im.bad.add(i, im.rows[i].Where, format, args...)
}

// index checks the rows against each other: one row per key and per Seq.
func (im *rowImporter) index() {
	for _, r := range im.keys.repeats {
		if !im.faulty[r[0]] {
			im.problem(r[0], "key %q is also the key of %s", im.rows[r[0]].Message.Key, im.rows[r[1]].Where)
		}
	}
	im.bySeq = newSeqIndex(im.rows)
	for i := range im.rows {
		r := &im.rows[i]
		if r.Seq != 0 && !im.faulty[i] {
			if j, _ := im.bySeq.row(r.Seq); j != i {
				im.problem(i, "seq %d is also the seq of %s", r.Seq, im.rows[j].Where)
			}
		}
	}
}

// plan reads what the desk holds of the rows, checks each row against it in order, and
// returns the batch of the new ones. What is wrong with a row is added to im.bad.
func (im *rowImporter) plan(ctx context.Context) ([]transcript.Message, error) {
	if err := im.findStored(ctx); err != nil {
		return nil, err
	}
	im.resolved = make([]transcript.Sequence, len(im.rows))
	var batch []transcript.Message
	if im.head == 0 {
		batch = make([]transcript.Message, 0, len(im.rows)) // every row is new
		im.batchRows = make([]int, 0, len(im.rows))
	}
	for i := range im.rows {
		r := &im.rows[i]
		if im.faulty[i] {
			batch = im.placeFaulty(i, batch)
			continue
		}
		im.restore = im.restore || restoredRow(r.probe())
		stored, present, sound := im.storedRow(i)
		parent, parentOK := im.parentOf(i)
		target, targetOK := im.resolveRef(i, targetRef(r))
		if present {
			im.resolved[i] = stored.Seq
			if !sound || !parentOK || !targetOK {
				continue
			}
			edit, err := im.checkPresent(ctx, i, stored, parent, target)
			if err != nil {
				return nil, err
			}
			if edit != nil {
				batch = append(batch, *edit)
				im.batchRows = append(im.batchRows, i)
				im.edits++
			}
			continue
		}
		at := im.head + 1 + transcript.Sequence(len(batch))
		if r.Seq != 0 && r.Seq != at {
			im.problem(i, "seq %d, but it would be stored as %d: desk %q holds %s, and this import adds %d before it",
				r.Seq, at, im.desk, plural(int(im.head), "row"), len(batch))
		}
		im.resolved[i] = transcript.BatchParent(len(batch))
		m := r.Message
		m.Seq, m.Parent, m.Corrects = 0, parent, target
		batch = append(batch, m)
		im.batchRows = append(im.batchRows, i)
		if mark, ok := editMark(r, m, len(batch)-1); ok {
			batch = append(batch, mark)
			im.batchRows = append(im.batchRows, i)
			im.marks++
		}
	}
	return batch, nil
}

// editMark returns, for r, a chat export's message marked edited (r.Edit) that is new to
// the desk and stored as m at place of the batch, the edit that records when its text was
// written: a correction by its author that gives it the same text, keyed and timed by the
// edit (see rowEdit). So the desk knows how new its text is, and a later import of an older
// export, whose edit is older, leaves the text alone (editOf). A message that cannot be
// corrected (a correction, a blank one) gets none.
func editMark(r *importRow, m transcript.Message, place int) (transcript.Message, bool) {
	if r.Edit == nil || m.IsCorrection() || m.Blank() {
		return transcript.Message{}, false
	}
	return transcript.Message{Author: m.Author, Corrects: transcript.BatchParent(place), Content: m.Content, At: r.Edit.At, Key: r.Edit.Key}, true
}

// placeFaulty gives the i-th row, which the reader found bad, the place it would take: the
// desk's row its key or its Seq names, else the next in batch, which it returns extended
// by an empty message (never written: a faulty row fails the import).
func (im *rowImporter) placeFaulty(i int, batch []transcript.Message) []transcript.Message {
	if stored, ok := im.byKeyStored(i); ok {
		im.resolved[i] = stored.Seq
		return batch
	}
	if seq := im.rows[i].Seq; seq != 0 && seq <= im.head {
		im.resolved[i] = seq
		return batch
	}
	im.resolved[i] = transcript.BatchParent(len(batch))
	im.batchRows = append(im.batchRows, i)
	return append(batch, transcript.Message{})
}

// storedRow returns the desk's row that the i-th row, r, is, found by its key or by its
// Seq, and reports whether there is one. A row found by key whose Seq says otherwise, and a
// row found by Seq that does not carry r's key, are added to im.bad, and reported as not
// sound: there is no use comparing them further.
func (im *rowImporter) storedRow(i int) (stored transcript.Message, present, sound bool) {
	r := &im.rows[i]
	key := r.Message.Key
	if stored, ok := im.byKeyStored(i); ok {
		if r.Seq != 0 && r.Seq != stored.Seq {
			im.problem(i, "key %q is row %d of desk %q, not seq %d", key, stored.Seq, im.desk, r.Seq)
			return stored, true, false
		}
		return stored, true, true
	}
	if r.Seq == 0 || r.Seq > im.head {
		return transcript.Message{}, false, true
	}
	stored, ok := im.stored.row(r.Seq)
	switch {
	case !ok:
		im.problem(i, "seq %d: desk %q holds no such row, though its head is %d", r.Seq, im.desk, im.head)
		return transcript.Message{Seq: r.Seq}, true, false
	case stored.Key == key:
		return stored, true, true
	case key == "":
		im.problem(i, "seq %d is a row of desk %q with the key %q, and this one has no key", r.Seq, im.desk, stored.Key)
	case stored.Key == "":
		im.problem(i, "seq %d is a row of desk %q without a key, not %q", r.Seq, im.desk, key)
	default:
		im.problem(i, "seq %d is a row of desk %q with the key %q, not %q", r.Seq, im.desk, stored.Key, key)
	}
	return stored, true, false
}

// byKeyStored returns the desk's row holding the i-th row's key, if any.
func (im *rowImporter) byKeyStored(i int) (transcript.Message, bool) {
	if im.foundAt != nil {
		if seq := im.foundAt[i]; seq != 0 {
			return im.stored.row(seq)
		}
		return transcript.Message{}, false
	}
	key := im.rows[i].Message.Key
	if key == "" {
		return transcript.Message{}, false
	}
	stored, ok := im.found[key]
	return stored, ok
}

// deskKey returns the Seq of the desk's row holding key, if any; key is not an earlier
// row's of the import.
func (im *rowImporter) deskKey(key string) (transcript.Sequence, bool) {
	if im.foundAt == nil {
		stored, ok := im.found[key]
		return stored.Seq, ok
	}
	if j, ok := im.keys.byKey[key]; ok {
		seq := im.foundAt[j]
		return seq, seq != 0
	}
	seq, ok := im.deskKeys[key]
	return seq, ok
}

// reference is how a row names another: its parent, or a correction's target.
type reference struct {
	what   string // "parent" or "target"
	key    string
	seq    transcript.Sequence
	before string // why the row named must come first
}

// parentRef and targetRef return how r names its parent and its target.
func parentRef(r *importRow) reference {
	seq := r.ParentSeq
	if r.ParentKey == "" && seq == 0 {
		seq = r.Message.Parent // a reader that named the parent by Seq in the Message
	}
	return reference{what: "parent", key: r.ParentKey, seq: seq, before: "a parent comes before its replies"}
}

func targetRef(r *importRow) reference {
	return reference{what: "target", key: r.CorrectsKey, seq: r.CorrectsSeq, before: "a row comes before its corrections"}
}

// parentOf returns the Parent the i-th row gets, and whether it names one that exists (no
// parent is fine); what is wrong is added to im.bad.
func (im *rowImporter) parentOf(i int) (transcript.Sequence, bool) {
	return im.resolveRef(i, parentRef(&im.rows[i]))
}

// resolveRef returns the Seq the row ref names gets, as the i-th row's Parent or Corrects,
// and whether it names one that exists (naming none is fine); what is wrong is added to
// im.bad.
func (im *rowImporter) resolveRef(i int, ref reference) (transcript.Sequence, bool) {
	key, seq := ref.key, ref.seq
	switch {
	case key != "" && seq != 0:
		im.problem(i, "names its %s twice, by key %q and by seq %d", ref.what, key, seq)
		return 0, false
	case key != "":
		j, inImport := im.keys.byKey[key]
		if inImport && j < i {
			return im.resolved[j], !im.faulty[j] // a bad row is reported already
		}
		if seq, ok := im.deskKey(key); ok {
			return seq, true
		}
		switch {
		case inImport && j == i:
			im.problem(i, "%s %q is this message's own key", ref.what, key)
		case inImport:
			im.problem(i, "%s %q is the key of %s, a later message: %s", ref.what, key, im.rows[j].Where, ref.before)
		case im.chat != nil && ref.what == "parent" && im.chat.wholeHistory && im.rows[i].ParentDeletable && key == im.rows[i].ParentKey:
			if instead := im.rows[i].ParentKeyInstead; instead != "" && instead != key {
				return im.resolveRef(i, reference{what: ref.what, key: instead, before: ref.before})
			}
			return 0, true
		case im.chat != nil && ref.what == "parent":
			im.problem(i, "%s %s, which is in neither the export nor desk %q: import first an export that holds %s, or export a date range that includes it",
				im.chat.replyTo, key, im.desk, key)
		default:
			im.problem(i, "%s %q names no earlier message of this import and no row of desk %q", ref.what, key, im.desk)
		}
		return 0, false
	case seq != 0:
		if seq <= im.head {
			return seq, true
		}
		j, inImport := im.bySeq.row(seq)
		if inImport && j < i {
			return im.resolved[j], !im.faulty[j]
		}
		switch {
		case inImport && j == i:
			im.problem(i, "%s seq %d is this message's own seq", ref.what, seq)
		case inImport:
			im.problem(i, "%s seq %d is the seq of %s, a later message: %s", ref.what, seq, im.rows[j].Where, ref.before)
		default:
			im.problem(i, "%s seq %d names no row of desk %q (its head is %d) and no earlier message of this import", ref.what, seq, im.desk, im.head)
		}
		return 0, false
	}
	return 0, true
}

// checkPresent checks the i-th row, r, whose parent resolves to parent and target to
// target, against stored, the desk's row it is: the same message, as the store would store
// r, its text aside when a correction changed stored's, or one the import brings changes
// it (correctedByImport). A difference is added to im.bad, unless r is a chat export's
// message edited since (r.Edit) that differs from stored in its text alone: checkPresent
// then returns the edit to append (see editOf).
func (im *rowImporter) checkPresent(ctx context.Context, i int, stored transcript.Message, parent, target transcript.Sequence) (*transcript.Message, error) {
	r := &im.rows[i]
	m := r.Message
	m.Seq, m.Parent, m.Corrects = 0, parent, target
	audience, accepted, err := im.storedAudience(ctx, m, stored)
	if err != nil {
		return nil, err
	}
	m.Audience = audience
	if r.Edit == nil && (stored.Revised != 0 || im.correctedByImport(i, stored)) {
		// A row a correction changed matches the text it had before, which the import
		// cannot know, as it matches its text now: a file that holds a row and its
		// corrections imports again as nothing new, and a later export that holds them
		// brings the corrections the desk lacks.
		m.Content = stored.Content
	}
	if accepted {
		if storage.MatchKey(stored, m) == nil {
			return nil, nil
		}
		if im.alikeMatch(m, stored) {
			if r.Edit == nil {
				return nil, nil
			}
			// Alike is for a text written otherwise, not changed: a text edited since the
			// desk's was stored is compared as it is, so that an edit that drops the words
			// next to a mention is not taken for the mention's other label.
			newer, _, err := im.editNewer(ctx, i, stored)
			if err != nil || !newer {
				return nil, err
			}
		}
		edit, ok, err := im.editOf(ctx, i, m, stored)
		if err != nil || ok {
			return edit, err
		}
		if im.keptAsStored(m, stored) {
			im.kept++
			return nil, nil
		}
	}
	if !accepted {
		// The reply rule refused m's audience under stored's parent: name what else
		// differs (an author who may not read the parent), the audience when nothing does.
		m.Audience = stored.Audience
	}
	diffs := storage.KeyDifferences(stored, m)
	if len(diffs) == 0 {
		diffs = []string{"audience"}
	}
	differs := "its " + andList(diffs)
	if m.Key != "" {
		im.problem(i, "key %q already names row %d of desk %q, which differs in %s", m.Key, stored.Seq, im.desk, differs)
	} else {
		im.problem(i, "seq %d is a row of desk %q that differs in %s", stored.Seq, im.desk, differs)
	}
	return nil, nil
}

// correctedByImport reports whether the i-th row, an export's row that the desk holds as
// stored, holds what a correction later in the import leaves of it, which stored takes once
// the import stores that correction, and so says nothing of what stored holds now: the row
// names as its Revised a later row of the import that corrects stored and holds the row's
// content (an edit's text; erased, with the row); or the row is an erased correction, and
// a later row of the import redacts its target (a redaction erases every correction of the
// row it redacts).
func (im *rowImporter) correctedByImport(i int, stored transcript.Message) bool {
	r := &im.rows[i]
	if r.Message.Redacted && stored.IsCorrection() {
		return im.redactedLater(i, stored.Corrects)
	}
	j, ok := im.bySeq.row(r.Message.Revised)
	if r.Message.Revised == 0 || !ok || j <= i {
		return false
	}
	c := &im.rows[j]
	target := targetRef(c)
	return (target.seq == stored.Seq || target.key != "" && target.key == stored.Key) &&
		c.Message.Content == r.Message.Content && c.Message.Redacted == r.Message.Redacted
}

// redactedLater reports whether a row of the import after the i-th redacts target, a row
// of the desk and of the import (an export's rows keep their seqs): the one the target's
// Revised names, the newest correction of it.
func (im *rowImporter) redactedLater(i int, target transcript.Sequence) bool {
	t, ok := im.bySeq.row(target)
	if !ok {
		return false
	}
	j, ok := im.bySeq.row(im.rows[t].Message.Revised)
	if im.rows[t].Message.Revised == 0 || !ok || j <= i {
		return false
	}
	c := &im.rows[j]
	ref := targetRef(c)
	return c.Message.Redacted && (ref.seq == target || ref.key != "" && ref.key == im.rows[t].Message.Key)
}

// keptAsStored reports whether the desk keeps stored, the row a chat export's message m
// (as the store would store it) is, as it is, though they differ: in content alone, with
// no edit the export dates (a file removed, a bot's message updated, a link's preview added
// later), or because one of them is the notice that stands for the message once deleted
// (chatPrep.deleted: Slack keeps a deleted thread root as a tombstone). Which text is newer
// the export does not say, so the import keeps the desk's, as it keeps a message an export
// no longer holds: a later export never fails on such a change, and an older one imported
// again never puts an older text back. A correction never differs so.
func (im *rowImporter) keptAsStored(m, stored transcript.Message) bool {
	if im.chat == nil || m.Key == "" || m.IsCorrection() || stored.IsCorrection() || m.Parent != stored.Parent {
		return false
	}
	if deleted := im.chat.deleted; deleted != "" && (isNotice(m.Author, deleted) || isNotice(stored.Author, deleted)) {
		// Who wrote it and what it said the notice does not keep; anything else must match.
		return !slices.ContainsFunc(storage.KeyDifferences(stored, m), func(f string) bool { return f != "author" && f != "content" })
	}
	return contentAlone(stored, m)
}

// andList joins words as a sentence lists them: "a", "a and b", "a, b and c".
func andList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// isNotice reports whether a is the system participant of kind.
func isNotice(a transcript.Author, kind string) bool {
	return a.Kind == transcript.KindSystem && a.ID == kind
}

// contentAlone reports whether m differs from stored in its content and nothing else, as
// storage.MatchKey compares them.
func contentAlone(stored, m transcript.Message) bool {
	return slices.Equal(storage.KeyDifferences(stored, m), []string{"content"})
}

// storedAudience returns the audience m, the row stored is, would be stored with, and
// whether the rule accepts it. Only a row that leaves its audience out, under a parent that
// is an aside, needs that parent: the stored row then holds the parent's readers. A
// correction that leaves it out holds its target's readers, as stored does when it corrects
// the same target. A row that gives an audience is stored with it in canonical order when
// the rule accepts it, and the rule accepted the stored row under the same parent or target.
// The error is the desk's, reading the parent.
func (im *rowImporter) storedAudience(ctx context.Context, m, stored transcript.Message) ([]transcript.Author, bool, error) {
	if m.IsCorrection() && len(m.Audience) == 0 && stored.Corrects == m.Corrects {
		return stored.Audience, true, nil
	}
	var parentRow *transcript.Message
	if !m.IsCorrection() && len(m.Audience) == 0 && len(stored.Audience) > 0 && m.Parent != 0 && m.Parent == stored.Parent {
		p, err := im.deskRow(ctx, m.Parent)
		if err != nil {
			return nil, false, err
		}
		parentRow = &p
	}
	audience, err := m.ResolveAudience(parentRow)
	return audience, err == nil, nil
}

// alikeMatch reports whether stored is m, its content as the reader says it may also be
// written (chatPrep.alike).
func (im *rowImporter) alikeMatch(m, stored transcript.Message) bool {
	if im.chat == nil {
		return false
	}
	alike := im.chat.alike[m.Key]
	if alike == nil || !alike(stored.Content) {
		return false
	}
	m.Content = stored.Content
	return storage.MatchKey(stored, m) == nil
}

// editOf decides the i-th row, m as the store would store it, when it is a chat export's
// message marked edited (its Edit) that the desk holds as stored with another text alone,
// and reports whether it did. An edit newer than stored's text (editNewer) is returned: a
// correction by its author that gives stored m's content, keyed by the edit, so that a
// re-import replays it. An older one, or one as old, is returned as nil: the desk holds a
// newer text, which an older export never puts back. A correction, and a row erased, are
// never edited so (an erased row matches whatever its text). A newer edit no store takes,
// as the correction rule refuses it (of a row stored blank, or to a blank text), is
// returned as nil too, the desk's row kept as it is, as for a change the export does not
// date (keptAsStored): a later import never fails on it. An edit that cannot be stored for
// another reason is added to im.bad. The error is the desk's, reading the correction.
func (im *rowImporter) editOf(ctx context.Context, i int, m, stored transcript.Message) (*transcript.Message, bool, error) {
	r := &im.rows[i]
	if r.Edit == nil || stored.IsCorrection() || m.IsCorrection() {
		return nil, false, nil
	}
	if !contentAlone(stored, m) {
		return nil, false, nil
	}
	newer, same, err := im.editNewer(ctx, i, stored)
	switch {
	case err != nil:
		return nil, false, err
	case same:
		im.kept++ // the desk's text is this edit's; the export changed it without dating it
		return nil, true, nil
	case !newer:
		return nil, true, nil
	}
	if stored.Blank() || m.Blank() {
		im.kept++
		return nil, true, nil
	}
	edit := transcript.Message{Author: m.Author, Corrects: stored.Seq, Content: m.Content, At: r.Edit.At, Key: r.Edit.Key}
	if problem := storeProblem(edit, exportWording); problem != "" {
		im.problem(i, "edited since row %d of desk %q was imported, but the edit cannot be stored: %s", stored.Seq, im.desk, problem)
	}
	return &edit, true, nil
}

// editNewer reports whether the i-th row's edit (its Edit, not nil) is newer than the text
// of stored, the desk's row it is, and whether it is as old: whether its time is after, or
// the same as, the time of that text, the At of the newest correction applied to stored
// (an import's edit is timed by the export's edit), else stored's own At. Stores keep
// times to the microsecond. The error is the desk's, reading the correction.
func (im *rowImporter) editNewer(ctx context.Context, i int, stored transcript.Message) (newer, same bool, err error) {
	textAt := stored.At
	if stored.Revised != 0 {
		c, err := im.deskRow(ctx, stored.Revised)
		if err != nil {
			return false, false, err
		}
		textAt = c.At
	}
	editAt, at := im.rows[i].Edit.At.Truncate(time.Microsecond), textAt.Truncate(time.Microsecond)
	return editAt.After(at), editAt.Equal(at), nil
}

// seqIndex finds the row of an import that says it has a given Seq. An export's rows have
// consecutive Seqs in order, and are found by arithmetic; other imports use a map.
type seqIndex struct {
	first transcript.Sequence         // rows[i] has Seq first+i, when byMap is nil
	n     int                         // how many rows, when byMap is nil
	byMap map[transcript.Sequence]int // the first row saying each Seq
}

func newSeqIndex(rows []importRow) seqIndex {
	if len(rows) == 0 || rows[0].Seq == 0 {
		return seqIndex{byMap: seqMap(rows)}
	}
	first := rows[0].Seq
	for i := range rows {
		if rows[i].Seq != first+transcript.Sequence(i) {
			return seqIndex{byMap: seqMap(rows)}
		}
	}
	return seqIndex{first: first, n: len(rows)}
}

func seqMap(rows []importRow) map[transcript.Sequence]int {
	m := make(map[transcript.Sequence]int)
	for i := range rows {
		if s := rows[i].Seq; s != 0 {
			if _, dup := m[s]; !dup {
				m[s] = i
			}
		}
	}
	return m
}

// row returns the first row that says it has seq.
func (x seqIndex) row(seq transcript.Sequence) (int, bool) {
	if x.byMap != nil {
		i, ok := x.byMap[seq]
		return i, ok
	}
	if seq < x.first || seq-x.first >= transcript.Sequence(x.n) {
		return 0, false
	}
	return int(seq - x.first), true
}

// begin and end tell progress, when not nil, of a stage of no known size.
func begin(progress Progress, label string) {
	if progress != nil {
		progress.Begin(label, 0)
	}
}

func end(progress Progress) {
	if progress != nil {
		progress.End()
	}
}
