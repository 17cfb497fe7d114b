package server

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// plainAppendBody is appendBody as encoding/json would decode it: the audience as strings.
type plainAppendBody struct {
	Content  string   `json:"content"`
	Parent   uint64   `json:"parent,omitempty"`
	Audience []string `json:"audience,omitempty"`
	Key      string   `json:"key,omitempty"`
}

// BenchmarkDecodeMessageBody is what the strict decoder costs a POST messages body against
// encoding/json's decoding of the same body, as huma decodes one: into an any (for the
// schema's validation), then into the operation's body.
//
//   - impl=strict: unmarshalBody, twice;
//   - impl=encoding-json: json.Unmarshal, into an any and a plainAppendBody;
//   - impl=paired: one of each per iteration, alternating which goes first, reporting the
//     ratio of their summed times as strict/encoding-json.
//
// A body of ordinary length (a chat line, a parent, two audience entries, a key) and one
// whose content is 64 KiB of mixed ASCII and multi-byte text.
//
//	go test -run '^$' -bench BenchmarkDecodeMessageBody -benchmem ./server
func BenchmarkDecodeMessageBody(b *testing.B) {
	for _, size := range []struct {
		name    string
		content string
	}{
		{"ordinary", "the deploy is green on staging, shall I promote it to production?"},
		{"64KiB", strings.Repeat("déploiement — ok 🚀 ", 64<<10/24)},
	} {
		content, err := json.Marshal(size.content)
		if err != nil {
			b.Fatal(err)
		}
		body := []byte(`{"content":` + string(content) + `,"parent":12345,"audience":["agent:triage","operator"],"key":"deploy-7f3a"}`)
		strict := func() {
			var v any
			var in appendBody
			if err := unmarshalBody(body, &v); err != nil {
				b.Fatal(err)
			}
			if err := unmarshalBody(body, &in); err != nil {
				b.Fatal(err)
			}
		}
		plain := func() {
			var v any
			var in plainAppendBody
			if err := json.Unmarshal(body, &v); err != nil {
				b.Fatal(err)
			}
			if err := json.Unmarshal(body, &in); err != nil {
				b.Fatal(err)
			}
		}
		b.Run("body="+size.name, func(b *testing.B) {
			b.Run("impl=strict", func(b *testing.B) {
				b.SetBytes(int64(len(body)))
				for b.Loop() {
					strict()
				}
			})
			b.Run("impl=encoding-json", func(b *testing.B) {
				b.SetBytes(int64(len(body)))
				for b.Loop() {
					plain()
				}
			})
			b.Run("impl=paired", func(b *testing.B) {
				var strictNs, plainNs time.Duration
				i := 0
				for b.Loop() {
					first, second := strict, plain
					if i%2 == 1 {
						first, second = plain, strict
					}
					t0 := time.Now()
					first()
					t1 := time.Now()
					second()
					t2 := time.Now()
					if i%2 == 0 {
						strictNs, plainNs = strictNs+t1.Sub(t0), plainNs+t2.Sub(t1)
					} else {
						plainNs, strictNs = plainNs+t1.Sub(t0), strictNs+t2.Sub(t1)
					}
					i++
				}
				b.ReportMetric(float64(strictNs)/float64(plainNs), "strict/encoding-json")
			})
		})
	}
}
