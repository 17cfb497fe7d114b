package page

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/participants"
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
	if err := a.OperatorOnly(ctx, "read the desk's participants"); err != nil {
		return nil, err
	}
	seen := participants.Set{}
	_, all, err := seen.Scan(ctx, a.Store.Log(in.Desk), MaxParticipantScan, nil)
	if err != nil {
		return nil, a.Internal(ctx, err)
	}
	tokens, err := a.Store.Tokens(ctx)
	if err != nil {
		return nil, a.Internal(ctx, err)
	}
	for _, t := range tokens {
		if t.Desk == in.Desk && !t.IsRevoked() {
			seen.Add(t.Participant)
		}
	}
	return &participantsOutput{Body: ParticipantList{Participants: seen.Sorted(), Partial: !all}}, nil
}
