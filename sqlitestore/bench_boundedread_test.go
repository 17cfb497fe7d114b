package sqlitestore

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/token"
)

// BenchmarkTokenByHash: the token lookup every request of the service makes, under a
// context that is never cancelled and under one that can be, as a request's is. A read of
// bounded cost drops the cancellation (boundedRead), so both should cost the same: the
// goroutines database/sql and the driver start to watch a context that can be cancelled
// are not started.
//
//	go test -run '^$' -bench BenchmarkTokenByHash -benchtime 20000x -benchmem ./sqlitestore
func BenchmarkTokenByHash(b *testing.B) {
	st, err := Open(b.Context(), filepath.Join(b.TempDir(), "desk.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	_, tok, err := token.New("eng", transcript.Agent("a1", "Agent"), time.Now())
	if err != nil {
		b.Fatal(err)
	}
	if err := st.AddToken(b.Context(), tok); err != nil {
		b.Fatal(err)
	}
	request, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, c := range []struct {
		name string
		ctx  context.Context
	}{{"ctx=background", context.Background()}, {"ctx=request", request}} {
		b.Run(c.name, func(b *testing.B) {
			defer benchCPU(b)()
			for b.Loop() {
				if _, err := st.TokenByHash(c.ctx, tok.Hash); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
