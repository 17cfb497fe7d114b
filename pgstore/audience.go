package pgstore

import (
	"encoding/json"
	"errors"
	"sync"

	"github.com/sharedesk/transcript"
)

// encodeAudience returns the stored form of audience, an aside's Audience as
// transcript.Message.ResolveAudience returns it (in canonical order, each entry valid and
// text PostgreSQL can hold): a JSON array of the authors in their wire form, without spaces
// (see migrations/0003_audience.sql). A given audience always encodes to the same bytes.
func encodeAudience(audience []transcript.Author) (string, error) {
	b, err := json.Marshal(audience)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// errEmptyAudience: an audience column that decodes to no author, which pgstore never writes.
var errEmptyAudience = errors.New("empty audience")

// decodeAudience decodes the stored form of an audience into a new slice. A value that is
// not a JSON array of at least one valid author is an error.
func decodeAudience(b []byte) ([]transcript.Author, error) {
	var audience []transcript.Author
	if err := json.Unmarshal(b, &audience); err != nil {
		return nil, err
	}
	if len(audience) == 0 {
		return nil, errEmptyAudience
	}
	return audience, nil
}

// The bounds of an audienceCache: how many audiences it keeps, and the largest stored form it
// keeps one for (a larger one is decoded on every read).
const (
	audienceCacheSize  = 1024
	audienceCacheBytes = 4 << 10
)

// audienceCache holds decoded audiences by their stored form, so that a desk's few distinct
// audiences are decoded once, not once per row. Its slices are shared, never handed out:
// scanMessages copies them into the page it returns (detachAudiences). When full, it starts
// afresh. The zero value is ready; it is safe for concurrent use.
type audienceCache struct {
	mu sync.RWMutex
	m  map[string][]transcript.Author
}

// decode returns the audience whose stored form is b, from the cache or decoded and kept.
// The caller must not modify the slice nor hand it out.
func (c *audienceCache) decode(b []byte) ([]transcript.Author, error) {
	c.mu.RLock()
	audience, ok := c.m[string(b)]
	c.mu.RUnlock()
	if ok {
		return audience, nil
	}
	audience, err := decodeAudience(b)
	if err != nil {
		return nil, err
	}
	if len(b) > audienceCacheBytes {
		return audience, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= audienceCacheSize {
		c.m = make(map[string][]transcript.Author)
	}
	c.m[string(b)] = audience
	return audience, nil
}

// detachAudiences gives the audiences of msgs, which may be an audienceCache's, one new
// array of their own: each row's Audience becomes a sub-slice of it capped at its own end,
// so that appending to one never writes into another's. n is the number of entries in all.
// A page then costs one allocation for its audiences, however many asides it holds.
func detachAudiences(msgs []transcript.Message, n int) {
	all := make([]transcript.Author, 0, n)
	for i := range msgs {
		if a := msgs[i].Audience; len(a) > 0 {
			start := len(all)
			all = append(all, a...)
			msgs[i].Audience = all[start:len(all):len(all)]
		}
	}
}
