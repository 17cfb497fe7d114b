package storetest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
)

// correctionDesk is a desk the correction checks write, with the rows they expect it to
// hold: what each append returned, as later corrections changed them.
type correctionDesk struct {
	t    *testing.T
	st   Store
	name string
	rows []transcript.Message
}

// add appends m and checks that the store returned it as want says: Seq next, and want's
// Corrects, Audience, Content and Redacted. It returns the stored row.
func (d *correctionDesk) add(m transcript.Message, audience []transcript.Author) transcript.Message {
	d.t.Helper()
	got, err := d.st.Append(d.t.Context(), d.name, m)
	if err != nil {
		d.t.Fatalf("desk %q: Append of %s: %v", d.name, describeCorrection(m), err)
	}
	want := m
	want.Seq, want.At, want.Audience = transcript.Sequence(len(d.rows)+1), got.At, audience
	checkRows(d.t, "desk "+d.name+": the row Append returned for "+describeCorrection(m), []transcript.Message{got}, []transcript.Message{want})
	d.rows = append(d.rows, got)
	return got
}

// row returns the expected row seq, to change as a correction changes it.
func (d *correctionDesk) row(seq transcript.Sequence) *transcript.Message { return &d.rows[seq-1] }

// erase sets what a redaction by the row by leaves of target and its earlier corrections.
func (d *correctionDesk) erase(target, by transcript.Sequence) {
	t := d.row(target)
	t.Content, t.Redacted, t.Revised = "", true, by
	for i := range d.rows {
		if c := &d.rows[i]; c.Corrects == target && c.Seq < by {
			c.Content, c.Redacted = "", true
		}
	}
}

// check reads the desk back and compares it with the rows expected.
func (d *correctionDesk) check(what string) {
	d.t.Helper()
	checkRows(d.t, "desk "+d.name+": "+what, mustReadAll(d.t, d.st, d.name), d.rows)
}

// refused checks that err, the refusal of what, matches transcript.ErrInvalidMessage and
// sentinel (and not transcript.ErrNotReadable unless sentinel is that), quotes no aside, and
// left the desk as it was.
func (d *correctionDesk) refused(what string, err, sentinel error) {
	d.t.Helper()
	switch {
	case err == nil:
		d.t.Errorf("desk %q: %s: no error, want a refusal matching %v", d.name, what, sentinel)
	case !errors.Is(err, transcript.ErrInvalidMessage) || !errors.Is(err, sentinel):
		d.t.Errorf("desk %q: %s: error %q, want one matching transcript.ErrInvalidMessage and %v", d.name, what, err, sentinel)
	case sentinel != transcript.ErrNotReadable && errors.Is(err, transcript.ErrNotReadable):
		d.t.Errorf("desk %q: %s: error %q matches transcript.ErrNotReadable, want %v", d.name, what, err, sentinel)
	case strings.Contains(err.Error(), asideSecret):
		d.t.Errorf("desk %q: %s: the error quotes an aside's content: %q", d.name, what, err)
	}
	d.check("after " + what)
}

// edit returns author's edit of target, to content.
func edit(target transcript.Sequence, author transcript.Author, content string) transcript.Message {
	return transcript.Message{Corrects: target, Author: author, Content: content}
}

// redact returns author's redaction of target.
func redact(target transcript.Sequence, author transcript.Author) transcript.Message {
	return transcript.Message{Corrects: target, Author: author, Redacted: true}
}

// describeCorrection names m for an error message: its target or parent, author and
// audience, never its content.
func describeCorrection(m transcript.Message) string {
	if !m.IsCorrection() {
		return describeAside(m)
	}
	kind := "edit"
	if m.Redacted {
		kind = "redaction"
	}
	return fmt.Sprintf("%s of row %d by %s", kind, m.Corrects, m.Author)
}

// checkCorrections: the correction rule and its apply through Append and AppendBatch (see
// CorrectionRule), corrections inside one batch (checkBatchCorrections), and RestoreBatch
// (checkRestore).
func checkCorrections(t *testing.T, st Store) {
	d := CorrectionRule(t, st)
	checkBatchCorrections(t, st)
	checkRestore(t, st, d)
}

// CorrectionRule checks corrections on desk "corrections" of st, a new store, and returns
// the desk's rows: edits applied (the target's new content and Revised, the edit's
// audience the target's readers minus its author), redactions erasing the target and every
// earlier correction of it, the operator's redaction of an aside it is not listed in, a
// keyed edit replayed after a redaction (the erased row, AppendNew reporting no new row),
// and every refusal of the rule, through Append and as the last message of a batch, with
// its sentinel, quoting no aside, and writing nothing.
func CorrectionRule(t *testing.T, st Store) []transcript.Message {
	t.Helper()
	d := &correctionDesk{t: t, st: st, name: "corrections"}
	op, triage, review, ana := asideOperator, asideTriage, asideReview, asideAna
	aud := func(a ...transcript.Author) []transcript.Author { return a }
	d.add(transcript.Message{Author: ana, Content: "deploy at 22:00"}, nil)                                                        // 1
	d.add(transcript.Message{Author: op, Content: asideSecret + " for triage", Audience: aud(triage)}, aud(triage))                // 2
	d.add(transcript.Message{Parent: 1, Author: triage, Content: "on it"}, nil)                                                    // 3
	d.add(transcript.Message{Author: op, Content: " \n "}, nil)                                                                    // 4, blank
	d.add(transcript.Message{Author: ana, Content: asideSecret + " from ana", Audience: aud(triage, review)}, aud(review, triage)) // 5
	d.add(transcript.Message{Author: triage, Content: "build running"}, nil)                                                       // 6
	d.add(transcript.Message{Author: ana, Content: asideSecret + " ana to triage", Audience: aud(triage)}, aud(triage))            // 7

	keyed := func(m transcript.Message, key string) transcript.Message { m.Key = key; return m }

	d.add(keyed(edit(1, ana, "deploy at 23:00"), "edit-1"), nil) // 8
	d.row(1).Content, d.row(1).Revised = "deploy at 23:00", 8
	d.add(edit(2, op, asideSecret+" edited for triage"), aud(triage)) // 9
	d.row(2).Content, d.row(2).Revised = asideSecret+" edited for triage", 9
	d.add(edit(5, ana, asideSecret+" ana edited"), aud(review, triage)) // 10
	d.row(5).Content, d.row(5).Revised = asideSecret+" ana edited", 10
	d.add(keyed(edit(6, triage, "build green"), "edit-6"), nil) // 11
	d.add(edit(6, triage, "build green, deployed"), nil)        // 12
	d.row(6).Content, d.row(6).Revised = "build green, deployed", 12
	d.check("after the edits")
	d.add(redact(6, triage), nil) // 13
	d.erase(6, 13)
	d.add(redact(7, op), aud(ana, triage)) // 14: the operator, not in the aside, adds itself only
	d.erase(7, 14)
	d.check("after the redactions")

	// A retry of an edit after its target's redaction replays the erased row, whatever its
	// content; an edit not erased still conflicts on other content.
	for _, content := range []string{"build green", "another text"} {
		m := keyed(edit(6, triage, content), "edit-6")
		got, err := st.Append(t.Context(), d.name, m)
		if err != nil {
			t.Errorf("a retry of an erased edit: %v, want the stored row", err)
		}
		checkRows(t, "a retry of an erased edit", []transcript.Message{got}, []transcript.Message{*d.row(11)})
		if got, added, err := st.AppendNew(t.Context(), d.name, m); err != nil || added || got.Seq != 11 {
			t.Errorf("AppendNew of a retry of an erased edit: row %d, new %v, %v; want row 11, not new", got.Seq, added, err)
		}
	}
	d.check("after the retries")
	_, err := st.Append(t.Context(), d.name, keyed(edit(1, ana, "deploy at midnight"), "edit-1"))
	if !errors.Is(err, transcript.ErrKeyConflict) {
		t.Errorf("an edit under a key naming another edit: %v, want a match of transcript.ErrKeyConflict", err)
	}
	d.check("after a key conflict")

	checkCorrectionRefusals(d)
	return d.rows
}

// checkCorrectionRefusals refuses every kind of bad correction on d, through Append and as
// the last message of a batch after a good row, and checks that an outsider's correction
// of an aside is refused exactly as one of a missing row.
func checkCorrectionRefusals(d *correctionDesk) {
	t, st := d.t, d.st
	op, triage, review, ana := asideOperator, asideTriage, asideReview, asideAna
	withAudience := func(m transcript.Message, a ...transcript.Author) transcript.Message { m.Audience = a; return m }
	withParent := func(m transcript.Message, p transcript.Sequence) transcript.Message { m.Parent = p; return m }
	for _, c := range []struct {
		name     string
		msg      transcript.Message
		sentinel error
	}{
		{"an edit of a missing row", edit(99, ana, asideSecret), transcript.ErrNotReadable},
		{"an outsider's edit of an aside", edit(2, review, asideSecret), transcript.ErrNotReadable},
		{"an outsider's redaction of a redacted aside", redact(7, review), transcript.ErrNotReadable},
		{"an edit of a correction", edit(8, ana, "again"), transcript.ErrInvalidMessage},
		{"an edit of a blank row", edit(4, op, "not blank now"), transcript.ErrInvalidMessage},
		{"an edit of a redacted row", edit(6, triage, "back again"), transcript.ErrRedacted},
		{"a redaction of a redacted row", redact(6, triage), transcript.ErrRedacted},
		{"an edit by another participant", edit(1, triage, "deploy never"), transcript.ErrNotAuthor},
		{"an edit by the operator of another's row", edit(1, op, "deploy never"), transcript.ErrNotAuthor},
		{"a redaction by another participant", redact(1, triage), transcript.ErrNotAuthor},
		{"an edit of an aside naming other readers", withAudience(edit(2, op, asideSecret), review), transcript.ErrInvalidAudience},
		{"an edit of a desk row naming readers", withAudience(edit(1, ana, "to triage"), triage), transcript.ErrInvalidAudience},
		{"a reply to a correction", transcript.Message{Parent: 8, Author: triage, Content: "noted"}, transcript.ErrInvalidMessage},
		{"a correction replying to a row", withParent(edit(1, ana, "x"), 1), transcript.ErrInvalidMessage},
		{"a Revised set by the caller", transcript.Message{Author: ana, Content: "x", Revised: 1}, transcript.ErrInvalidMessage},
		{"a redaction holding content", transcript.Message{Corrects: 1, Author: ana, Content: "x", Redacted: true}, transcript.ErrInvalidMessage},
	} {
		_, err := st.Append(t.Context(), d.name, c.msg)
		d.refused("Append of "+c.name, err, c.sentinel)
		err = st.AppendBatch(t.Context(), d.name, []transcript.Message{root("good first"), c.msg})
		d.refused("AppendBatch ending with "+c.name, err, c.sentinel)
	}

	// An outsider learns nothing of an aside: its correction is refused in the very words
	// that refuse a correction of a row the desk does not hold (here, in a desk of one row).
	const other = "corrections-x"
	mustAppend(t, st, other, root("one row"), 1)
	_, missing := st.Append(t.Context(), other, edit(2, review, "x"))
	_, aside := st.Append(t.Context(), d.name, edit(2, review, "x"))
	if missing == nil || aside == nil || strings.ReplaceAll(missing.Error(), other, d.name) != aside.Error() {
		t.Errorf("an outsider's edit of an aside is refused with %q, and one of a missing row with %q: want the same words", aside, missing)
	}
}

// checkBatchCorrections: corrections inside one AppendBatch apply in order: a row and its
// edit (by BatchParent), an edit and a redaction of one stored row; a redaction then an
// edit of one row is refused (transcript.ErrRedacted) and writes nothing.
func checkBatchCorrections(t *testing.T, st Store) {
	d := &correctionDesk{t: t, st: st, name: "corrections-batch"}
	ana := asideAna
	batch := func(msgs ...transcript.Message) error { return st.AppendBatch(t.Context(), d.name, msgs) }
	if err := batch(
		transcript.Message{Author: ana, Content: "first draft"},
		edit(transcript.BatchParent(0), ana, "second draft"),
	); err != nil {
		t.Fatalf("AppendBatch of a row and its edit: %v", err)
	}
	got := mustReadAll(t, st, d.name)
	if len(got) != 2 {
		t.Fatalf("AppendBatch of a row and its edit stored %d rows, want 2", len(got))
	}
	d.rows = slices.Clone(got)
	want := []transcript.Message{
		{Seq: 1, Author: ana, Content: "second draft", Revised: 2, At: got[0].At},
		{Seq: 2, Corrects: 1, Author: ana, Content: "second draft", At: got[1].At},
	}
	checkRows(t, "a row and its edit in one batch", got, want)

	d.add(transcript.Message{Author: ana, Content: "to edit, then erase"}, nil) // 3
	if err := batch(
		edit(3, ana, "edited"),
		redact(3, ana),
	); err != nil {
		t.Fatalf("AppendBatch of an edit and a redaction of a stored row: %v", err)
	}
	got = mustReadAll(t, st, d.name)
	if len(got) != 5 {
		t.Fatalf("AppendBatch of an edit and a redaction stored %d rows, want 2", len(got)-3)
	}
	d.rows = append(d.rows,
		transcript.Message{Seq: 4, Corrects: 3, Author: ana, At: got[3].At},
		transcript.Message{Seq: 5, Corrects: 3, Author: ana, Redacted: true, At: got[4].At})
	d.erase(3, 5)
	d.check("after an edit and a redaction of a stored row in one batch")

	d.add(transcript.Message{Author: ana, Content: "keep me"}, nil) // 6
	err := batch(
		redact(6, ana),
		edit(6, ana, "too late"),
	)
	d.refused("AppendBatch of a redaction, then an edit, of one row", err, transcript.ErrRedacted)
}

// checkRestore: RestoreBatch of the rows of desks with corrections, read back, into empty
// desks reproduces every row exactly (erased rows, Revised and all); a Revised not above
// its row is refused, and writes nothing.
func checkRestore(t *testing.T, st Store, rows []transcript.Message) {
	for desk, want := range map[string][]transcript.Message{"restored": rows, "restored-batch": mustReadAll(t, st, "corrections-batch")} {
		in := slices.Clone(want)
		for i := range in {
			in[i].Seq = 0
		}
		if err := st.RestoreBatch(t.Context(), desk, in); err != nil {
			t.Fatalf("RestoreBatch into desk %q of the rows of a desk with corrections: %v", desk, err)
		}
		checkRows(t, "desk "+desk+" restored", mustReadAll(t, st, desk), want)
	}
	ana := asideAna
	for _, bad := range []struct {
		name string
		rows []transcript.Message
	}{
		{"a Revised naming its row", []transcript.Message{{Author: ana, Content: "x", Revised: 1}}},
		{"a Revised below its row", []transcript.Message{{Author: ana, Content: "x", Revised: 3}, {Author: ana, Content: "y", Revised: 1}, {Corrects: 1, Author: ana, Content: "x"}}},
	} {
		err := st.RestoreBatch(t.Context(), "restore-refused", bad.rows)
		if !errors.Is(err, transcript.ErrInvalidMessage) {
			t.Errorf("RestoreBatch of %s: %v, want an error matching transcript.ErrInvalidMessage", bad.name, err)
		}
		if h := head(t, st, "restore-refused"); h != 0 {
			t.Errorf("RestoreBatch of %s: the desk's head is %d after the refusal, want 0", bad.name, h)
		}
	}
}
