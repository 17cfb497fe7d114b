package storage

import "github.com/sharedesk/transcript"

// Revise writes c, a correction, into m, a row of c's desk as it was read (before or after
// c committed), as the desk holds m once c committed, and reports whether m changed. c's
// target takes c's Content, Redacted and, as Revised, c's Seq, unless m was revised by c or
// a newer correction already; a redaction erases its target's content (Content "",
// Redacted set) whatever m's Revised, and so that of every correction of the target older
// than it. Any other m, and a c that is no correction, are left alone; so Revise applied
// twice changes nothing the second time. A log applies its corrections by this rule when
// it stores them (Batch.Settle); a reader that holds rows read before a correction
// committed, such as a cache of a desk's newest rows, applies it with Revise.
func Revise(m *transcript.Message, c *transcript.Message) bool {
	if !c.IsCorrection() {
		return false
	}
	switch {
	case m.Seq == c.Corrects && m.Revised < c.Seq:
		m.Content, m.Redacted, m.Revised = c.Content, c.Redacted, c.Seq
		return true
	case c.Redacted && (m.Seq == c.Corrects || m.Corrects == c.Corrects && m.Seq < c.Seq):
		if m.Content == "" && m.Redacted {
			return false
		}
		m.Content, m.Redacted = "", true
		return true
	}
	return false
}
