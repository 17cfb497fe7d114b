package sharing

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/sharedesk/transcript"
)

// PresentSetLimit is the most rows above the watermark a State can hold as already accepted.
const PresentSetLimit = 64

// State is what an agent has seen of one conversation. The caller owns it, stores it, and
// commits the Next state of a delta only after the turn is durably appended.
type State struct {
	Conversation transcript.Conversation `json:"conversation"`
	// Watermark: every qualifying row <= Watermark was accepted.
	Watermark transcript.Sequence `json:"watermark"`
	// Present lists rows > Watermark already accepted, ascending, at most PresentSetLimit.
	Present []transcript.Sequence `json:"present"`
}

// Initialized returns the state of an agent that has just been shown the conversation up to
// watermark, typically a projection's Head.
func Initialized(c transcript.Conversation, watermark transcript.Sequence) State {
	return State{Conversation: c, Watermark: watermark}
}

// NotePresent records seq, a row above the watermark that the agent has already accepted
// (its own reply, appended during the turn), so the next delta leaves it out. It never moves
// the watermark.
//
// A seq at or below the watermark, or already present, is a no-op, also when the set is
// full. A new seq beyond a full set is a *PresentSetError; a state already over the limit is
// ErrPresentSetTooLarge. On error s is unchanged. NotePresent never writes to the array
// behind s.Present, which copies of s may share.
func (s *State) NotePresent(seq transcript.Sequence) error {
	if len(s.Present) > PresentSetLimit {
		return s.tooLarge()
	}
	if seq <= s.Watermark {
		return nil
	}
	i, found := slices.BinarySearch(s.Present, seq)
	if found {
		return nil
	}
	if len(s.Present) == PresentSetLimit {
		return &PresentSetError{Limit: PresentSetLimit, Seq: seq}
	}
	s.Present = slices.Insert(slices.Clip(s.Present), i, seq)
	return nil
}

// check reports whether s is a state Prepare can use: at most PresentSetLimit present
// entries, strictly ascending, all above the watermark.
func (s State) check() error {
	if len(s.Present) > PresentSetLimit {
		return s.tooLarge()
	}
	for i, seq := range s.Present {
		switch {
		case seq <= s.Watermark:
			return &StateError{Member: "present", Problem: fmt.Sprintf("entry %d at or below the watermark %d", seq, s.Watermark), Err: ErrInvalidState}
		case i > 0 && seq <= s.Present[i-1]:
			return &StateError{Member: "present", Problem: fmt.Sprintf("entries not strictly ascending at %d", seq), Err: ErrInvalidState}
		}
	}
	return nil
}

func (s State) tooLarge() error {
	return &StateError{Member: "present", Problem: fmt.Sprintf("%d entries, limit %d", len(s.Present), PresentSetLimit), Err: ErrPresentSetTooLarge}
}

// clone returns s with its own Present array.
func (s State) clone() State {
	s.Present = slices.Clone(s.Present)
	return s
}

// stateJSON is State's wire form; a named type without State's methods.
type stateJSON State

// MarshalJSON writes {"conversation":..,"watermark":..,"present":[..]}, with present always
// an array.
func (s State) MarshalJSON() ([]byte, error) {
	if s.Present == nil {
		s.Present = []transcript.Sequence{}
	}
	return json.Marshal(stateJSON(s))
}

// UnmarshalJSON decodes what MarshalJSON writes and rejects a present set that is larger than
// PresentSetLimit (ErrPresentSetTooLarge), unsorted, duplicated or at or below the watermark
// (ErrInvalidState). A member of the wrong kind (a watermark of -4) is ErrInvalidState too;
// every error is a *StateError. s is unchanged on error, and by a JSON null.
func (s *State) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	var w stateJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return stateJSONError(err)
	}
	if err := State(w).check(); err != nil {
		return err
	}
	if len(w.Present) == 0 {
		w.Present = nil
	}
	*s = State(w)
	return nil
}

// stateJSONError is the *StateError for what json.Unmarshal found wrong with a state's JSON.
func stateJSONError(err error) error {
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		return &StateError{Member: te.Field, Problem: te.Value + ", want " + jsonKindOf(te.Type), Err: ErrInvalidState}
	}
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return &StateError{Problem: fmt.Sprintf("not JSON: %v (at byte %d)", se, se.Offset), Err: ErrInvalidState}
	}
	return &StateError{Problem: strings.TrimPrefix(err.Error(), "json: "), Err: ErrInvalidState}
}

// jsonKindOf names the JSON value a member of type t holds.
func jsonKindOf(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number, 0 or more"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}
