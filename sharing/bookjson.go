package sharing

import (
	"encoding/json"
	"fmt"

	"github.com/sharedesk/transcript"
)

// bookJSON is a Book's wire form.
type bookJSON struct {
	States  []State                   `json:"states"`
	Evicted []transcript.Conversation `json:"evicted"`
}

// MarshalJSON writes {"states":[State...],"evicted":[Conversation...]}: the states least
// recently used first, each as State.MarshalJSON writes it, and the evicted conversations
// least recently evicted first; both always arrays. A Book has one encoding: equal books
// (Equal) encode to the same bytes.
func (b Book) MarshalJSON() ([]byte, error) {
	w := bookJSON{States: b.states, Evicted: b.evicted}
	if w.States == nil {
		w.States = []State{}
	}
	if w.Evicted == nil {
		w.Evicted = []transcript.Conversation{}
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes what MarshalJSON writes, and refuses what no Book holds: a state
// State.UnmarshalJSON refuses (ErrPresentSetTooLarge, ErrInvalidState), more than BookLimit
// states or EvictedLimit evicted conversations, a conversation twice (among the states, among
// the evicted, or in both), a conversation without a desk or of another desk than the first
// (ErrInvalidBook). b is unchanged on error, and by a JSON null.
func (b *Book) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	var w bookJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	if len(w.States) > BookLimit {
		return fmt.Errorf("%w: %d states, limit %d", ErrInvalidBook, len(w.States), BookLimit)
	}
	if len(w.Evicted) > EvictedLimit {
		return fmt.Errorf("%w: %d evicted conversations, limit %d", ErrInvalidBook, len(w.Evicted), EvictedLimit)
	}
	seen := make(map[transcript.Conversation]bool, len(w.States)+len(w.Evicted))
	var desk string
	check := func(what string, c transcript.Conversation) error {
		switch {
		case c.Desk == "":
			return fmt.Errorf("%w: %s without a desk", ErrInvalidBook, what)
		case desk != "" && c.Desk != desk:
			return fmt.Errorf("%w: %s of desk %q in a book of desk %q", ErrInvalidBook, what, c.Desk, desk)
		case seen[c]:
			return fmt.Errorf("%w: %s (thread %d) is in the book twice", ErrInvalidBook, what, c.Thread)
		}
		desk, seen[c] = c.Desk, true
		return nil
	}
	for _, s := range w.States { // each checked by State.UnmarshalJSON
		if err := check("a state's conversation", s.Conversation); err != nil {
			return err
		}
	}
	for _, c := range w.Evicted {
		if err := check("an evicted conversation", c); err != nil {
			return err
		}
	}
	if len(w.States) == 0 {
		w.States = nil
	}
	if len(w.Evicted) == 0 {
		w.Evicted = nil
	}
	*b = Book{states: w.States, evicted: w.Evicted}
	return nil
}
