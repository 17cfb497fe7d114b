package page

import (
	"cmp"
	"context"
	"maps"
	"net/http"
	"slices"

	"github.com/danielgtaylor/huma/v2"

	"github.com/sharedesk/transcript"
)

// The desk's participants, for the operator: whom the inspector's forms offer as a column's
// viewer and as an aside's reader, those who never wrote a row among them.

// MaxParticipantScan is how many of a desk's newest rows GET participants reads for their
// authors and audiences; past it the answer says it is partial.
const MaxParticipantScan = 50_000

// ParticipantList is GET participants' answer.
type ParticipantList struct {
	Participants []transcript.Author `json:"participants" doc:"Every participant of the desk, each identity once, by kind then id: the authors and audiences of its rows and the participants of its tokens that are not revoked, each with the label of its newest row (else its token's)."`
	Partial      bool                `json:"partial" doc:"The desk has more rows than were read: a participant only older rows name is missing."`
}

type participantsInput struct {
	Desk string `path:"desk" doc:"The desk: the token's."`
}

type participantsOutput struct{ Body ParticipantList }

func (a *API) participantsOperation() huma.Operation {
	op := a.Operation("participants", http.MethodGet, "/v1/desks/{desk}/participants",
		"The desk's participants, also those who never wrote: operator tokens only", true,
		http.StatusForbidden, http.StatusNotFound)
	op.Description = "Every participant the desk names: the authors of its rows, the audiences of its asides and the participants of " +
		"its live tokens. Operator tokens only (403): an audience tells that an aside exists and who reads it, which only the " +
		"operator, who reads every row, may learn of every aside."
	return op
}

// participants lists the desk's participants: its tokens' and its newest rows' (authors and
// audiences), up to MaxParticipantScan rows, each with its newest label.
//
// It is the operator's alone, as the rows route is: a participant named only in an aside's
// audience is the aside's to tell, and another viewer may not learn that it exists.
func (a *API) participants(ctx context.Context, in *participantsInput) (*participantsOutput, error) {
	if err := a.OperatorOnly(ctx, "the desk's participants"); err != nil {
		return nil, err
	}
	seen := participantSet{}
	var before transcript.Sequence
	scanned := 0
	done := false
	for !done && scanned < MaxParticipantScan {
		// Walks of at most ScanLimit rows each, as every walk of the log is bounded.
		p := transcript.NewPager(a.Store.Log(in.Desk), before)
		for n := 0; n < transcript.ScanLimit && !p.Done(); {
			rows, err := p.Next(ctx, transcript.PageSize)
			if err != nil {
				return nil, a.Internal(ctx, err)
			}
			if len(rows) == 0 {
				break
			}
			for _, m := range rows {
				seen.add(m.Author)
				for _, reader := range m.Audience {
					seen.add(reader)
				}
				before = m.Seq
			}
			n += len(rows)
			scanned += len(rows)
		}
		done = p.Done()
	}
	tokens, err := a.Store.Tokens(ctx)
	if err != nil {
		return nil, a.Internal(ctx, err)
	}
	for _, t := range tokens {
		if t.Desk == in.Desk && !t.IsRevoked() {
			seen.add(t.Participant)
		}
	}
	return &participantsOutput{Body: ParticipantList{Participants: seen.sorted(), Partial: !done}}, nil
}

// participantSet holds each identity once, with the first label it was given: rows read
// newest first give the newest label.
type participantSet map[participantKey]transcript.Author

type participantKey struct {
	kind transcript.AuthorKind
	id   string
}

func (ps participantSet) add(a transcript.Author) {
	k := participantKey{a.Kind, a.ID}
	if had, ok := ps[k]; !ok || had.Label == "" {
		ps[k] = a
	}
}

// sorted returns the set's participants by kind, then id.
func (ps participantSet) sorted() []transcript.Author {
	out := slices.AppendSeq(make([]transcript.Author, 0, len(ps)), maps.Values(ps)) // [] in the JSON, never null
	slices.SortFunc(out, func(a, b transcript.Author) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.ID, b.ID))
	})
	return out
}
