package sharing

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

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
	// Viewer is whose state it is, by identity (Kind and ID, no label): a delta's Next
	// records its query's viewer, and Prepare takes a state whose Viewer is set only for
	// that viewer. The zero Author (a state of Initialized, or written without one) is
	// taken for any viewer.
	Viewer transcript.Author `json:"viewer,omitzero"`
	// Digest is the Through of the conversation's digest the agent was given with the view
	// the state started from (a first read or a reinitialization); 0: none. A delta's Next
	// keeps it, and Prepare asks for a reinitialization (DigestCorrected) once a row of the
	// delta's range corrects a row that digest may stand for: the agent's copy may hold
	// words the log no longer does. Whoever starts a state together with a digest sets it
	// (WithDigest).
	Digest transcript.Sequence `json:"digest,omitzero"`
}

// Initialized returns the state of an agent that has just been shown the conversation up to
// watermark, typically a projection's Head. It names no viewer: the first delta's Next does.
func Initialized(c transcript.Conversation, watermark transcript.Sequence) State {
	return State{Conversation: c, Watermark: watermark}
}

// WithDigest returns s as the state of an agent that was given d, the digest of the view s
// starts from, with it: Digest is d's Through; 0 for a nil d, a view without a digest.
func (s State) WithDigest(d *transcript.Digest) State {
	s.Digest = 0
	if d != nil {
		s.Digest = d.Through
	}
	return s
}

// BelongsTo reports whether s may be used by viewer: s names no viewer, or names viewer's
// identity (Kind and ID; labels are ignored).
func (s State) BelongsTo(viewer transcript.Author) bool {
	return s.Viewer == (transcript.Author{}) || s.Viewer.Same(viewer)
}

// For returns s as viewer's state: naming viewer's identity (Kind and ID, without the
// label), as a delta's Next names its query's viewer. A caller that starts a state for a
// viewer (Initialized at a projection's Head) and keeps it where another viewer could be
// handed it names the viewer with For.
func (s State) For(viewer transcript.Author) State {
	s.Viewer = viewerIdentity(viewer)
	return s
}

// viewerIdentity is a's identity as a state records it: Kind and ID, without the label;
// the zero Author for an a that fails Validate, which reads as the zero Author does.
func viewerIdentity(a transcript.Author) transcript.Author {
	if a.Validate() != nil {
		return transcript.Author{}
	}
	return transcript.Author{Kind: a.Kind, ID: a.ID}
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

// owned returns s as a Book keeps it: with its own Present array, and its Viewer's identity
// without the label.
func (s State) owned() State {
	s.Viewer = viewerIdentity(s.Viewer)
	return s.clone()
}

// clone returns s with its own Present array.
func (s State) clone() State {
	s.Present = slices.Clone(s.Present)
	return s
}

// stateJSON is State's wire form; a named type without State's methods.
type stateJSON State

// MarshalJSON writes {"conversation":..,"watermark":..,"present":[..],"viewer":{..},"digest":..},
// with present always an array, and viewer and digest left out when zero.
func (s State) MarshalJSON() ([]byte, error) {
	if s.Present == nil {
		s.Present = []transcript.Sequence{}
	}
	return json.Marshal(stateJSON(s))
}

// UnmarshalJSON decodes what MarshalJSON writes and rejects a present set that is larger than
// PresentSetLimit (ErrPresentSetTooLarge), unsorted, duplicated or at or below the watermark
// (ErrInvalidState). A member of the wrong kind (a watermark of -4), and a viewer that is no
// participant, are ErrInvalidState too; every error is a *StateError. A null viewer is no
// viewer, as an absent one. s is unchanged on error, and by a JSON null.
func (s *State) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	var w struct { // State's members, a null viewer read as none
		Conversation transcript.Conversation `json:"conversation"`
		Watermark    transcript.Sequence     `json:"watermark"`
		Present      []transcript.Sequence   `json:"present"`
		Viewer       *transcript.Author      `json:"viewer"`
		Digest       transcript.Sequence     `json:"digest"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return stateJSONError(err)
	}
	got := State{Conversation: w.Conversation, Watermark: w.Watermark, Present: w.Present, Digest: w.Digest}
	if w.Viewer != nil {
		got.Viewer = *w.Viewer
	}
	if err := got.check(); err != nil {
		return err
	}
	if len(got.Present) == 0 {
		got.Present = nil
	}
	*s = got
	return nil
}

// stateJSONError is the *StateError for what json.Unmarshal found wrong with a state's JSON.
func stateJSONError(err error) error {
	if ae, ok := errors.AsType[*transcript.InvalidError](err); ok && ae.Kind == transcript.ErrInvalidAuthor { // the viewer's: no other member is an Author
		problem := "not a participant: want an object with a type and an id (a kind for the system)"
		if ae.Cause == nil { // not JSON's words, which name Go types, but Author's: "agent without id"
			problem = "not a participant: " + ae.Reason
		}
		return &StateError{Member: "viewer", Problem: problem, Err: ErrInvalidState}
	}
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		return &StateError{Member: te.Field, Problem: te.Value + ", want " + jsonKindOf(te.Type), Err: ErrInvalidState}
	}
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return &StateError{Problem: fmt.Sprintf("not JSON: %v (at byte %d)", se, se.Offset), Err: ErrInvalidState}
	}
	return &StateError{Problem: err.Error(), Err: ErrInvalidState} // json.Unmarshal returns no other error
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

// Mismatch is what a ConversationChanged reinitialization of a State is about, as
// State.Mismatch finds it: neither field is set when the state may serve the query.
type Mismatch struct {
	// Conversation and StateConversation, set together when the state is bound to another
	// conversation than the one asked for: the one asked for, and the state's.
	Conversation, StateConversation *transcript.Conversation
	// StateViewer, when set, is the viewer the state belongs to, another than the one
	// asking (State.BelongsTo).
	StateViewer *transcript.Author
}

// Mismatch says how s differs from a query of conv by viewer: its conversation, its viewer,
// or both. The pointers are to copies, the caller's.
func (s State) Mismatch(conv transcript.Conversation, viewer transcript.Author) Mismatch {
	var m Mismatch
	if s.Conversation != conv {
		asked, bound := conv, s.Conversation
		m.Conversation, m.StateConversation = &asked, &bound
	}
	if !s.BelongsTo(viewer) {
		owner := s.Viewer
		m.StateViewer = &owner
	}
	return m
}
