package deskmcp_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/deskmcp"
)

// BenchmarkCorrectionTools measures edit_message and redact_message through the SDK's
// client on the SQLite store's desk of benchRows rows against post_message, the baseline,
// paired so that all three see the same load on a shared machine: each iteration posts a
// root (timed as post), redacts that root (timed as redact: a row of its own each time)
// and edits the agent's first root (timed as edit: one row edited again and again), in an
// order that rotates. It reports each tool's mean time and edit/post and redact/post, the
// ratios of their summed times. Besides the store's append, a correction reads its target
// once more, to acknowledge the read of its conversation.
func BenchmarkCorrectionTools(b *testing.B) {
	st := benchStore(b, sqliteStore)
	a := connect(b, service(b, st), agentA)
	a.Read(deskmcp.ReadDeskArgs{})
	call := func(tool string, args any) (transcript.Message, time.Duration) {
		var m transcript.Message
		start := time.Now()
		if _, err := a.Call(tool, args, &m); err != nil {
			b.Fatalf("%s: %v", tool, err)
		}
		return m, time.Since(start)
	}
	root, _ := call("post_message", deskmcp.PostMessageArgs{Content: "the agent's root"})
	var post, edit, redact time.Duration
	i := 0
	for b.Loop() {
		i++
		doEdit := func() {
			_, d := call("edit_message", deskmcp.EditMessageArgs{Seq: root.Seq, Content: fmt.Sprint("edited ", i)})
			edit += d
		}
		if i%2 == 0 {
			doEdit()
		}
		m, d := call("post_message", deskmcp.PostMessageArgs{Content: fmt.Sprint("words ", i)})
		post += d
		_, d = call("redact_message", deskmcp.RedactMessageArgs{Seq: m.Seq})
		redact += d
		if i%2 == 1 {
			doEdit()
		}
	}
	n := float64(i)
	b.ReportMetric(float64(post.Nanoseconds())/n, "post-ns/op")
	b.ReportMetric(float64(edit.Nanoseconds())/n, "edit-ns/op")
	b.ReportMetric(float64(redact.Nanoseconds())/n, "redact-ns/op")
	b.ReportMetric(float64(edit)/float64(post), "edit/post")
	b.ReportMetric(float64(redact)/float64(post), "redact/post")
}
