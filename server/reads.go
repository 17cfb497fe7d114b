package server

import (
	"context"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/readable"
)

type viewInput struct {
	Desk   string              `path:"desk" doc:"The desk: the token's."`
	Thread transcript.Sequence `query:"thread" doc:"The root of the thread to view; 0 or absent: the channel."`
	Before transcript.Sequence `query:"before" doc:"Exclusive upper bound, usually the triggering message; 0 or absent: the newest row."`
	Window int                 `query:"window" minimum:"0" maximum:"2048" doc:"How many qualifying messages; 0 or absent: 30."`
	As     string              `query:"as" doc:"Operator tokens only: the view of this participant (operator, person:ID, agent:ID or system:KIND)."`
	// Rendered asks for the answer's Rendered text.
	Rendered bool `query:"rendered" doc:"With true: the answer carries each message's envelope and each elision's tag (rendered)."`
	// Digest asks for the conversation's digest below the window (transcript.Query.Digest).
	Digest bool `query:"digest" doc:"With true: the answer carries the conversation's newest digest below the window (digest), when it has one; with rendered=true, its tag comes first in rendered. A state started from the view records the digest's through as its digest."`
}

type viewOutput struct{ Body viewAnswer }

// viewAnswer is the view route's answer, named Projection in the document: a
// transcript.Projection without how many reads its walk made, which would tell the size of
// rows the viewer may not read.
type viewAnswer struct {
	Messages []transcript.Message `json:"messages"`
	Head     transcript.Sequence  `json:"head"`
	Partial  bool                 `json:"partial"`
	Scanned  int                  `json:"scanned"`
	// Reads is always 0: nothing sets it. The member stays for the clients that require it.
	Reads   int                  `json:"reads" doc:"Always 0 in the service's answers (kept for the shape of the library's Projection)."`
	Elided  []transcript.Elision `json:"elided,omitempty"`
	Dropped int                  `json:"dropped,omitempty" doc:"How many of the view's oldest messages were left out to keep it within the answer's byte budget (never a thread's root); absent when none were."`
	// Digest is the conversation's digest below the window, when the request asked for it.
	Digest *transcript.Digest `json:"digest,omitempty" doc:"With digest=true: the conversation's newest digest below the window's oldest message (never a pinned thread root), folded only from rows every participant may read; absent when it has none."`
	// Rendered is the answer's text for a model, when the request asked for it.
	Rendered *Rendered `json:"rendered,omitempty" doc:"With rendered=true: each message's envelope and each elision's tag, as the participant's model reads them."`
}

// view is transcript.Project for the token's participant (or, for an operator, as=).
func (s *Server) view(ctx context.Context, in *viewInput) (*viewOutput, error) {
	p, _, err := s.project(ctx, in)
	if err != nil {
		return nil, err
	}
	out := &viewOutput{Body: viewAnswer{Messages: p.Messages, Head: p.Head, Partial: p.Partial, Scanned: p.Scanned, Elided: p.Elided, Dropped: p.Dropped, Digest: p.Digest}}
	if in.Rendered {
		out.Body.Rendered = renderedOf(p.Digest, p.Messages, nil, p.Elided)
	}
	return out, nil
}

// project is the projection in asks for, and whose it is: the view route's, and the model
// route's before it renders it. Its oldest messages past Options.MaxAnswerBytes are
// dropped (transcript.Query.MaxBytes: the walk lets go of them as it reads).
func (s *Server) project(ctx context.Context, in *viewInput) (transcript.Projection, transcript.Author, error) {
	v, err := viewer(ctx, in.As)
	if err != nil {
		return transcript.Projection{}, v, err
	}
	if err := s.checkThread(ctx, in.Desk, in.Thread, v); err != nil {
		return transcript.Projection{}, v, err
	}
	p, err := transcript.Project(ctx, s.st.Log(in.Desk), transcript.Query{
		Conversation: transcript.Conversation{Desk: in.Desk, Thread: in.Thread},
		Before:       in.Before,
		Window:       in.Window,
		Viewer:       v,
		MaxBytes:     s.opts.MaxAnswerBytes,
		Digest:       in.Digest,
	})
	if err != nil {
		return transcript.Projection{}, v, s.internal(ctx, err)
	}
	return p, v, nil
}

type threadsInput struct {
	Desk   string              `path:"desk" doc:"The desk: the token's."`
	Before transcript.Sequence `query:"before" doc:"Exclusive upper bound; 0 or absent: the newest row."`
	Limit  int                 `query:"limit" minimum:"0" maximum:"200" doc:"How many threads; 0 or absent: 20."`
	As     string              `query:"as" doc:"Operator tokens only: the threads this participant can read."`
}

type threadsOutput struct{ Body threadsAnswer }

// threadsAnswer is the threads route's answer, named ThreadList in the document: a
// transcript.ThreadList without how many reads its walk made, which would tell the size of
// rows the viewer may not read.
type threadsAnswer struct {
	Threads []transcript.Thread `json:"threads"`
	Head    transcript.Sequence `json:"head"`
	Partial bool                `json:"partial"`
	Scanned int                 `json:"scanned"`
	// Reads is always 0: nothing sets it. The member stays for the clients that require it.
	Reads int `json:"reads" doc:"Always 0 in the service's answers."`
}

// listThreads is transcript.ListThreads for the token's participant (or as=).
func (s *Server) listThreads(ctx context.Context, in *threadsInput) (*threadsOutput, error) {
	v, err := viewer(ctx, in.As)
	if err != nil {
		return nil, err
	}
	list, err := transcript.ListThreads(ctx, s.st.Log(in.Desk), transcript.ThreadQuery{Before: in.Before, Limit: in.Limit, Viewer: v})
	if err != nil {
		return nil, s.internal(ctx, err)
	}
	return &threadsOutput{Body: threadsAnswer{Threads: list.Threads, Head: list.Head, Partial: list.Partial, Scanned: list.Scanned}}, nil
}

// DeskList is GET /v1/desks's answer.
type DeskList struct {
	Desks []Desk `json:"desks" doc:"The desks the token may use: a token is for one desk."`
}

// Desk is one desk a token may use.
type Desk struct {
	Name string              `json:"name"`
	Head transcript.Sequence `json:"head" doc:"The desk's newest row; 0 while it has none."`
	// As is the participant the token is for: the author of its appends and the viewer of
	// its reads, so that a client can tell its own rows from others'.
	As transcript.Author `json:"as" doc:"The participant the token is for: who its appends are by and whose view its reads are."`
}

type desksInput struct{}

type desksOutput struct{ Body DeskList }

// listDesks lists the token's desk, with its head.
func (s *Server) listDesks(ctx context.Context, _ *desksInput) (*desksOutput, error) {
	desk := identity(ctx).Desk
	pg, err := s.st.Log(desk).ReadBefore(ctx, 0, 1)
	if err != nil {
		return nil, s.internal(ctx, err)
	}
	d := Desk{Name: desk, As: identity(ctx).Participant}
	if len(pg.Messages) > 0 {
		d.Head = pg.Messages[0].Seq
	}
	return &desksOutput{Body: DeskList{Desks: []Desk{d}}}, nil
}

// checkThread answers 404 for a thread of desk whose root v may not read, that does not
// exist, or that is a correction (readable.Thread): the same answer for all three. thread 0 is the channel, which always exists.
func (s *Server) checkThread(ctx context.Context, desk string, thread transcript.Sequence, v transcript.Author) error {
	if thread == 0 {
		return nil
	}
	ok, err := readable.Thread(ctx, s.st.Log(desk), thread, v)
	switch {
	case err != nil:
		return s.internal(ctx, err)
	case !ok:
		return errNoThread
	}
	return nil
}

// internal records err for the request's log line and returns the problem a client gets
// for it: 500, saying nothing of err (503 when the client's own ctx is done, which the
// client will not read anyway).
func (s *Server) internal(ctx context.Context, err error) error {
	noteError(ctx, err)
	if ctx.Err() != nil {
		return kindUnavailable.problem("the request was cancelled")
	}
	return kindInternal.problem(problemDetail(500))
}
