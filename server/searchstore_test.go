package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/sqlitestore"
)

// withoutSearch is st with logs that cannot search.
type withoutSearch struct{ server.Store }

func (s withoutSearch) Log(desk string) transcript.Log {
	return struct{ transcript.Log }{s.Store.Log(desk)}
}

// httpSearchStore is a SQLite store whose logs search through the search route of a server
// over the same store, as the operator with as= the viewer: storetest's search checks,
// run on it, check what the route answers. The zero Author, whom as= cannot name, searches
// as a participant no aside lists, who reads what it reads: the desk's rows.
type httpSearchStore struct {
	*sqlitestore.Store
	srv http.Handler
	add func(desk string) string // an operator's secret for desk

	mu      sync.Mutex
	secrets map[string]string // by desk
}

func (s *httpSearchStore) Log(desk string) transcript.Log {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.secrets[desk] == "" {
		s.secrets[desk] = s.add(desk)
	}
	return httpSearchLog{s.Store.Log(desk), s, desk, s.secrets[desk]}
}

type httpSearchLog struct {
	transcript.Log
	s            *httpSearchStore
	desk, secret string
}

// nobody is who as= names for the zero Author.
var nobody = transcript.Agent("nobody-listed", "")

func (l httpSearchLog) Search(ctx context.Context, q transcript.SearchQuery) (transcript.SearchResult, error) {
	viewer := q.Viewer
	if viewer.Validate() != nil {
		viewer = nobody
	}
	params := url.Values{"q": {q.Text}, "as": {viewer.String()}}
	for name, v := range map[string]uint64{"thread": uint64(q.Thread), "before": uint64(q.Before)} {
		if v != 0 {
			params.Set(name, strconv.FormatUint(v, 10))
		}
	}
	if q.Limit != 0 {
		params.Set("limit", strconv.Itoa(q.Limit))
	}
	req := httptest.NewRequestWithContext(ctx, "GET", "/v1/desks/"+l.desk+"/search?"+params.Encode(), nil)
	req.Header.Set("Authorization", "Bearer "+l.secret)
	rec := httptest.NewRecorder()
	l.s.srv.ServeHTTP(rec, req)
	switch rec.Code {
	case http.StatusOK:
		var a server.SearchAnswer
		if err := json.Unmarshal(rec.Body.Bytes(), &a); err != nil {
			return transcript.SearchResult{}, fmt.Errorf("decoding %s: %w", rec.Body, err)
		}
		return transcript.SearchResult{Messages: a.Messages, Next: a.Next}, nil
	case http.StatusNotFound:
		// A thread the viewer may not read, or that does not exist: the route says so where
		// the library finds nothing.
		return transcript.SearchResult{}, nil
	case http.StatusBadRequest:
		return transcript.SearchResult{}, fmt.Errorf("%w: %s", transcript.ErrBadSearch, rec.Body)
	}
	return transcript.SearchResult{}, fmt.Errorf("%d %s", rec.Code, rec.Body)
}

// countingSearch is a store whose logs count their searches.
type countingSearch struct {
	server.Store
	searches *atomic.Int32
}

func (s countingSearch) Log(desk string) transcript.Log {
	return countedLog{s.Store.Log(desk), s.searches}
}

type countedLog struct {
	transcript.Log
	searches *atomic.Int32
}

func (l countedLog) Search(ctx context.Context, q transcript.SearchQuery) (transcript.SearchResult, error) {
	l.searches.Add(1)
	return l.Log.(transcript.Searcher).Search(ctx, q)
}
