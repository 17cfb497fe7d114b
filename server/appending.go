package server

import (
	"context"

	"github.com/sharedesk/transcript"
)

// appendNew appends m to desk: the one way in of every append the server makes, the /v1/
// routes' (appendRow) and the MCP tools' (appendingStore). While the append runs the hub
// knows it is under way (Hub.Appending); once it returns, the hub is told of the row it
// stored and the row's conversations are queued to fold (stored), or the hub is told of a
// correction it found stored already (Hub.Corrected: another process may have committed
// it), before the caller answers.
func (s *Server) appendNew(ctx context.Context, desk string, m transcript.Message) (transcript.Message, bool, error) {
	defer s.hub.Appending(desk)()
	stored, created, err := s.st.AppendNew(ctx, desk, m)
	switch {
	case err != nil:
	case created:
		s.stored(desk, stored)
	case stored.IsCorrection():
		s.hub.Corrected(desk, stored)
	}
	return stored, created, err
}

// appendingStore is the server's store as the MCP tools see it: their appends go the
// server's way in (appendNew).
type appendingStore struct {
	Store
	s *Server
}

func (a appendingStore) AppendNew(ctx context.Context, desk string, m transcript.Message) (transcript.Message, bool, error) {
	return a.s.appendNew(ctx, desk, m)
}
