package digest_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/storage"
)

// TestFoldRequestCurrent: the Current a fold gives its digester answers nil while the desk
// holds what the fold read, appends of new rows and corrections of rows it does not fold
// (an aside's, a row above what it folds) included, and ErrSuperseded once a row it sends,
// or one its prior digest stands for, is edited or redacted.
func TestFoldRequestCurrent(t *testing.T) {
	ctx := context.Background()
	channel := transcript.Conversation{Desk: "ops"}
	policy := digest.Policy{KeepLive: 2, FoldAfter: 2}
	for _, tc := range []struct {
		name       string
		after      func(t *testing.T, log interface{ Head() transcript.Sequence }) []transcript.Message
		superseded bool
	}{
		{"nothing new", nil, false},
		{"new rows and corrections of rows not folded", func(t *testing.T, log interface{ Head() transcript.Sequence }) []transcript.Message {
			return []transcript.Message{
				{Author: ana, Content: "a new root"},
				{Author: ana, Corrects: 7, Content: "row 7, edited"}, // row 7 is kept live: not folded
				{Author: ana, Content: "between us", Audience: []transcript.Author{triage}},
				{Author: ana, Corrects: log.Head() + 3, Content: "between us, edited"}, // the aside, corrected by an aside
			}
		}, false},
		{"a sent row redacted", func(*testing.T, interface{ Head() transcript.Sequence }) []transcript.Message {
			return []transcript.Message{{Author: ana, Content: "a new root"}, {Author: ana, Corrects: 5, Redacted: true}}
		}, true},
		{"a row of the prior digest edited", func(*testing.T, interface{ Head() transcript.Sequence }) []transcript.Message {
			return []transcript.Message{{Author: ana, Corrects: 1, Content: "row 1, edited"}}
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := deskOf(t, 4)
			if _, stored, err := digest.Fold(ctx, log, &recorder{}, policy, channel); err != nil || !stored {
				t.Fatalf("first Fold = %v, %v", stored, err)
			}
			appendRoots(t, log, 4) // rows 5 to 8: the next fold sends rows 3 to 6, and keeps 7 and 8 live
			var got error
			rec := &recorder{answer: func(ctx context.Context, r digest.Request) (string, error) {
				if r.Current == nil {
					return "", errors.New("no Current in the request")
				}
				if err := r.Current(ctx); err != nil {
					return "", errors.New("Current failed before any change: " + err.Error())
				}
				if tc.after != nil {
					for _, m := range tc.after(t, log) {
						mustAppend(t, log, m)
					}
				}
				got = r.Current(ctx)
				return "a digest of rows 1 to 6", nil
			}}
			_, _, err := digest.Fold(ctx, log, rec, policy, channel)
			if err != nil && strings.Contains(err.Error(), "Current") {
				t.Fatal(err)
			}
			if tc.superseded != errors.Is(got, digest.ErrSuperseded) {
				t.Errorf("Current after the change: %v; want ErrSuperseded: %v", got, tc.superseded)
			}
		})
	}
}

// TestOpenAIRetryAfterRedaction: a fold through the OpenAI digester whose request fails
// for a passing reason (a 503) sends no retry once a redaction of a row it sends has
// committed: neither when the redaction commits while the first attempt is in flight (the
// answer asks for a wait of 30 s, which is not waited out), nor when it commits during the
// wait before the retry. The endpoint sees one request, the fold fails matching
// ErrSuperseded, stores nothing, and quotes no row.
func TestOpenAIRetryAfterRedaction(t *testing.T) {
	for _, tc := range []struct {
		name       string
		retryAfter string // the 503's Retry-After header and its value
		during     string // "attempt": the endpoint redacts as it answers; "wait": the next Current does
	}{
		{"during the attempt", "Retry-After: 30", "attempt"},
		{"during the wait", "Retry-After-Ms: 1", "wait"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			channel := transcript.Conversation{Desk: "ops"}
			log := deskOf(t, 2)
			mustAppend(t, log, transcript.Message{Author: ana, Content: "the vault code is zanzibar"})
			appendRoots(t, log, 3)
			redact := func() { mustAppend(t, log, transcript.Message{Author: ana, Corrects: 3, Redacted: true}) }
			var fake *openaiFake
			fake = newOpenAIFake(t, func(w http.ResponseWriter, r *http.Request) {
				if tc.during == "attempt" && len(fake.requests()) == 1 {
					redact()
				}
				name, value, _ := strings.Cut(tc.retryAfter, ": ")
				w.Header().Set(name, value)
				w.WriteHeader(http.StatusServiceUnavailable)
			})
			store := &readsCounted{Store: log}
			if tc.during == "wait" {
				// Fold's own read is the 1st; Current's before the first attempt the 2nd,
				// after its answer the 3rd, before the retry the 4th.
				store.before = map[int]func(){4: redact}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			got, stored, err := digest.Fold(ctx, store, newTestOpenAI(t, fake, 3), digest.Policy{KeepLive: 2, FoldAfter: 2}, channel)
			if stored || !errors.Is(err, digest.ErrSuperseded) || got != (transcript.Digest{}) {
				t.Errorf("Fold = %+v, %v, %v; want nothing stored, an error matching ErrSuperseded", got, stored, err)
			}
			reqs := fake.requests()
			if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "zanzibar") {
				t.Fatalf("the endpoint saw %d requests, want the first alone (which held row 3)", len(reqs))
			}
			if err != nil && strings.Contains(err.Error(), "zanzibar") {
				t.Errorf("the error quotes the erased row: %v", err)
			}
			if h, ok := held(t, log, channel); ok {
				t.Errorf("the log holds a digest after the redaction: %+v", h)
			}
		})
	}
}

// readsCounted is a digest.Store that counts its DigestReads and runs before[n] as the
// n-th begins.
type readsCounted struct {
	digest.Store
	n      int
	before map[int]func()
}

func (s *readsCounted) DigestRead(ctx context.Context) (storage.DigestRead, error) {
	s.n++
	if f := s.before[s.n]; f != nil {
		f()
	}
	return s.Store.DigestRead(ctx)
}
