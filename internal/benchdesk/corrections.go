package benchdesk

import "github.com/sharedesk/transcript"

// Corrections returns msgs, a desk's rows oldest first with consecutive sequences, with about
// percent of them made edits, as a log holds them once it applied the edits (each target's
// Content the newest edit's, its Revised that edit's Seq); and the same desk had those edits
// never been written, their sequences left as gaps. A row becomes an edit when fewer than
// percent in a hundred of the rows up to it are edits and no row replies to it, so that edits
// are spread evenly: an edit, by its author, of the newest of
// the 16 rows before it that is no edit and not blank, with a content of Contents and the
// audience the correction rule gives it. msgs are left as they are.
func Corrections(msgs []transcript.Message, percent int) (with, without []transcript.Message) {
	parents := make(map[transcript.Sequence]bool)
	for _, m := range msgs {
		parents[m.Parent] = true
	}
	with = make([]transcript.Message, len(msgs))
	copy(with, msgs)
	without = make([]transcript.Message, 0, len(msgs))
	edits := 0
	for i := range with {
		m := &with[i]
		if parents[m.Seq] || edits*100 >= percent*(i+1) {
			without = append(without, msgs[i])
			continue
		}
		var target *transcript.Message
		for j := i - 1; j >= max(0, i-16) && target == nil; j-- {
			if t := &with[j]; !t.IsCorrection() && !t.Blank() {
				target = t
			}
		}
		if target == nil {
			without = append(without, msgs[i])
			continue
		}
		edit := transcript.Message{Seq: m.Seq, Corrects: target.Seq, Author: target.Author, Content: Contents[int(m.Seq)%len(Contents)], At: m.At}
		audience, err := edit.ResolveCorrection(target)
		if err != nil {
			panic(err) // an edit of a readable row by its author: a bug here, not data
		}
		edit.Audience = audience
		*m = edit
		target.Content, target.Revised = edit.Content, edit.Seq
		edits++
	}
	return with, without
}
