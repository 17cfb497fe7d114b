package storetest

import "github.com/sharedesk/transcript"

// qualifying returns the Seqs of the rows that qualify for c, by a direct reading of the
// projection rules over rows (a whole desk, oldest first, fewer than transcript.ScanLimit rows so that the
// scan P is the whole desk):
//
//   - channel: every non-blank root, and for each root its first reply, the oldest
//     non-blank row whose Parent is that root;
//   - thread T: T itself when non-blank, and every non-blank row whose Parent is T.
func qualifying(rows []transcript.Message, c transcript.Conversation) map[transcript.Sequence]bool {
	out := make(map[transcript.Sequence]bool)
	if !c.IsChannel() {
		for _, m := range rows {
			if (m.Seq == c.Thread || m.Parent == c.Thread) && !m.Blank() {
				out[m.Seq] = true
			}
		}
		return out
	}
	isRoot := make(map[transcript.Sequence]bool)
	answered := make(map[transcript.Sequence]bool)
	for _, m := range rows {
		switch {
		case m.Parent == 0:
			isRoot[m.Seq] = true
			if !m.Blank() {
				out[m.Seq] = true
			}
		case isRoot[m.Parent] && !answered[m.Parent] && !m.Blank():
			answered[m.Parent] = true
			out[m.Seq] = true
		}
	}
	return out
}
