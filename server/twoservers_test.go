package server_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
)

// TestTwoServersRaceOneKey: two servers over one database, each with its own store handle
// (as two serve processes have), racing posts of one keyed message: for each key exactly
// one post is 201, and every other is a 200 replay of the same row. The store says which
// append stored the row; no lookup before it, whose answer another process could make
// stale, decides.
func TestTwoServersRaceOneKey(t *testing.T) {
	eachStoreWithAnother(t, func(t *testing.T, st server.Store, another func() server.Store) {
		opts := server.Options{Burst: 1000, Rate: 1000}
		envs := []*env{newEnv(t, st, opts), newEnv(t, another(), opts)}
		secret := envs[0].token("eng", coder)
		const keys, posts = 10, 8 // posts per key, half to each server
		for k := range keys {
			key := fmt.Sprintf("race-%d", k)
			statuses, rows := racePosts(t, envs, secret, key, posts)
			if statuses[http.StatusCreated] != 1 || statuses[http.StatusOK] != posts-1 || len(rows) != 1 {
				t.Errorf("key %q: statuses %v, rows %v: want one 201, %d 200, one row", key, statuses, rows, posts-1)
			}
		}
	})
}

// racePosts posts one keyed message n times at once, the i-th post to envs[i%len(envs)],
// and returns how many answers had each status and the Seqs of the rows they returned.
func racePosts(t *testing.T, envs []*env, secret, key string, n int) (statuses map[int]int, rows map[transcript.Sequence]bool) {
	t.Helper()
	var (
		wg sync.WaitGroup
		mu sync.Mutex
	)
	statuses, rows = map[int]int{}, map[transcript.Sequence]bool{}
	for i := range n {
		e := envs[i%len(envs)]
		wg.Go(func() {
			r := e.do("POST", "/v1/desks/eng/messages", secret, map[string]any{"content": "once", "key": key})
			var m transcript.Message
			if r.status == http.StatusOK || r.status == http.StatusCreated {
				m = decode[transcript.Message](t, r, r.status)
			}
			mu.Lock()
			defer mu.Unlock()
			statuses[r.status]++
			rows[m.Seq] = true
		})
	}
	wg.Wait()
	return statuses, rows
}
