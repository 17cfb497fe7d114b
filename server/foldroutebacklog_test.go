package server_test

import (
	"fmt"
	"testing"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/server"
)

// TestFoldRouteFoldsTheBacklog: POST …/digest folds what is due as the background does,
// as often as the policy allows: a backlog above InputLimit (rows another process or an
// import wrote) folds over several generations, up to the rows the view keeps live.
func TestFoldRouteFoldsTheBacklog(t *testing.T) {
	st := newMemDigestStore()
	e := newEnv(t, st, server.Options{Digester: digest.Extractive{}, Rate: rate.Inf}) // the default policy
	op := e.token("eng", operator)
	var rows []transcript.Message
	for i := range 300 {
		// Written to the store directly (an import, another process): no background fold runs.
		m, err := st.Append(t.Context(), "eng", transcript.Message{Author: coder, Content: fmt.Sprintf("row %d", i)})
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, m)
	}
	got := decode[server.DigestAnswer](t, e.do("POST", "/v1/desks/eng/digest", op, nil), 200)
	if got.Digest == nil {
		t.Fatalf("fold: %+v", got)
	}
	v := decode[digestView](t, e.do("GET", "/v1/desks/eng/view?digest=true", op, nil), 200)
	oldest := v.Messages[0].Seq
	t.Logf("POST …/digest: folded %v, generation %d through #%d; the view's window starts at #%d", got.Folded, got.Digest.Generation, got.Digest.Through, oldest)
	if want := rows[len(rows)-31].Seq; got.Digest.Through != want {
		t.Errorf("after POST …/digest the digest is through #%d, want #%d (every row but the newest 30): %d rows due were left unfolded, between the digest and the window", got.Digest.Through, want, want-got.Digest.Through)
	}
}
