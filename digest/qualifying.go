package digest

import (
	"context"
	"fmt"

	"github.com/sharedesk/transcript"
)

// maxSpan bounds the sequences one walk of qualifying covers, so that its rows stay well
// within transcript.ScanLimit: the walk also reads below them, to the roots of the replies
// it holds.
const maxSpan = transcript.ScanLimit / 2

// qualifying returns the rows the zero Author's view of c qualifies above after (a thread's
// root left out, and every row below it, none of which is its reply), oldest first, as due needs them: KeepLive and the larger of InputLimit and
// FoldAfter after any leading redacted rows, or every one up to head. It walks the log with transcript.ReadUnseen, span
// by span upwards from after, each span twice the last: the one walk decides which rows
// qualify, and a fold reads the rows above after, not the desk.
func qualifying(ctx context.Context, log transcript.Log, c transcript.Conversation, after, head transcript.Sequence, p Policy) ([]transcript.Message, error) {
	after = max(after, c.Thread)
	want := p.KeepLive + max(p.InputLimit, p.FoldAfter)
	span := transcript.Sequence(min(want, maxSpan))
	var rows []transcript.Message
	lead := 0 // redacted rows ahead of the first with words
	watermark := after
	for lo := after; lo < head; {
		hi := min(head+1, lo+1+span)
		u, err := transcript.ReadUnseen(ctx, log, transcript.UnseenQuery{Conversation: c, After: watermark, Before: hi})
		switch {
		case err != nil:
			return nil, err
		case u.Lost || u.Partial:
			return nil, fmt.Errorf("rows %d to %d changed while the fold read them", lo+1, hi-1)
		}
		for _, m := range u.Messages {
			if m.Seq == c.Thread {
				continue // the pinned root, never folded
			}
			if lead == len(rows) && m.Redacted {
				lead++
			}
			rows = append(rows, m)
			if len(rows) == lead+want {
				return rows, nil
			}
		}
		if u.Head != 0 { // a row lies at or below hi-1: the next walk crosses it
			watermark = hi - 1
		}
		lo = hi - 1
		span = min(2*span, maxSpan)
	}
	return rows, nil
}
