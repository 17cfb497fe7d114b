package server

import (
	"context"
	"time"
)

// healthTimeout bounds the store check of GET /healthz.
const healthTimeout = 2 * time.Second

// healthProbeDesk is the desk /healthz reads the newest row of, on a store without Ping:
// any name will do, a desk with no row being an empty log; nothing read is answered.
const healthProbeDesk = "healthz"

type healthInput struct{}

// Health is GET /healthz's answer.
type Health struct {
	Status string `json:"status" enum:"ok"`
}

type healthOutput struct{ Body Health }

// healthz answers 200 when the store answers within two seconds, else 503.
func (s *Server) healthz(ctx context.Context, _ *healthInput) (*healthOutput, error) {
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	var err error
	if p, ok := s.st.(Pinger); ok {
		err = p.Ping(ctx)
	} else {
		_, err = s.st.Log(healthProbeDesk).ReadBefore(ctx, 0, 1)
	}
	if err != nil {
		noteError(ctx, err)
		return nil, kindUnavailable.problem("the store does not answer")
	}
	return &healthOutput{Body: Health{Status: "ok"}}, nil
}
