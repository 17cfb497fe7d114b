package benchdesk

import (
	"strings"

	"github.com/sharedesk/transcript"
)

// The words of the search benchmarks: RareWord is in the content of the rows Rare marks
// and of no other, CommonWord in most of Contents.
const (
	RareWord   = "zanzibar"
	CommonWord = "deploy"
)

// Rare appends RareWord to the content of count non-blank rows of msgs, spread evenly
// from the oldest to the newest, the same rows on every run, and returns how many it
// marked (fewer than count only when msgs holds fewer non-blank rows).
func Rare(msgs []transcript.Message, count int) int {
	marked := 0
	for k := range count {
		for i := k * len(msgs) / count; i < len(msgs); i++ {
			if m := &msgs[i]; strings.TrimSpace(m.Content) != "" && !strings.Contains(m.Content, RareWord) {
				m.Content += " " + RareWord
				marked++
				break
			}
		}
	}
	return marked
}
