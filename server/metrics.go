package server

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/danielgtaylor/huma/v2"

	"github.com/sharedesk/transcript/server/internal/fanout"
	"github.com/sharedesk/transcript/server/internal/stream"
)

// metrics are the server's counters and gauges, written in Prometheus's text format by
// GET /metrics. A handful of them, written by hand: the client library would bring a
// registry, a dozen packages and global state for what is a page of code.
type metrics struct {
	mu       sync.Mutex
	requests map[requestKey]uint64 // by route pattern, method and status

	streams     stream.Metrics
	fanout      fanout.Metrics
	appended    atomic.Uint64 // appends that stored a new row
	replayed    atomic.Uint64 // appends whose key named the same row already
	rateLimited atomic.Uint64
}

type requestKey struct {
	route, method string
	status        int
}

func newMetrics() *metrics { return &metrics{requests: make(map[requestKey]uint64)} }

func (m *metrics) countRequest(route, method string, status int) {
	m.mu.Lock()
	m.requests[requestKey{route, method, status}]++
	m.mu.Unlock()
}

// write writes every metric in the Prometheus text exposition format (version 0.0.4).
func (m *metrics) write(b *bytes.Buffer) {
	m.mu.Lock()
	reqs := maps.Clone(m.requests)
	m.mu.Unlock()

	b.WriteString("# HELP transcript_http_requests_total Requests served, by route pattern, method and status.\n")
	b.WriteString("# TYPE transcript_http_requests_total counter\n")
	keys := slices.SortedFunc(maps.Keys(reqs), func(a, b requestKey) int {
		return cmp.Or(cmp.Compare(a.route, b.route), cmp.Compare(a.method, b.method), cmp.Compare(a.status, b.status))
	})
	for _, k := range keys {
		fmt.Fprintf(b, "transcript_http_requests_total{route=%s,method=%s,status=\"%d\"} %d\n",
			strconv.Quote(k.route), strconv.Quote(k.method), k.status, reqs[k])
	}
	gauge(b, "transcript_streams_open", "Event streams open.", m.streams.Open.Load())
	b.WriteString("# HELP transcript_stream_events_total Events sent on streams, by event.\n")
	b.WriteString("# TYPE transcript_stream_events_total counter\n")
	for k, name := range stream.EventNames {
		fmt.Fprintf(b, "transcript_stream_events_total{event=%q} %d\n", name, m.streams.Events[k].Load())
	}
	counter(b, "transcript_stream_heartbeats_total", "Heartbeat comments sent on streams.", m.streams.Heartbeats.Load())
	gauge(b, "transcript_tails_open", "Desks with open streams, each with one tail of new rows.", m.fanout.TailsOpen.Load())
	counter(b, "transcript_tail_wakeups_total", "Times a tail looked for new rows.", m.fanout.Wakeups.Load())
	counter(b, "transcript_tail_late_wakeups_total", "Tails woken for a row this server appended that the store's watch did not report in time.", m.fanout.LateWakeups.Load())
	counter(b, "transcript_tail_store_reads_total", "Store reads made by the tails (loading and looking for new rows).", m.fanout.TailReads.Load())
	counter(b, "transcript_tail_fallback_reads_total", "Reads of a tail's log that it passed to the store.", m.fanout.TailFallback.Load())
	b.WriteString("# HELP transcript_appends_total Appends through the service, by result.\n")
	b.WriteString("# TYPE transcript_appends_total counter\n")
	fmt.Fprintf(b, "transcript_appends_total{result=\"created\"} %d\n", m.appended.Load())
	fmt.Fprintf(b, "transcript_appends_total{result=\"replayed\"} %d\n", m.replayed.Load())
	counter(b, "transcript_rate_limited_total", "Requests refused by a token's rate limit or by an address's limit on failed authentications.", m.rateLimited.Load())
}

func counter(b *bytes.Buffer, name, help string, v uint64) {
	fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s counter\n%s %d\n", name, help, name, name, v)
}

func gauge(b *bytes.Buffer, name, help string, v int64) {
	fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s gauge\n%s %d\n", name, help, name, name, v)
}

// metricsContentType is the Prometheus text format's media type.
const metricsContentType = "text/plain; version=0.0.4; charset=utf-8"

type metricsInput struct{}

type metricsOutput struct {
	ContentType string `header:"Content-Type"`
	Body        []byte
}

func (s *Server) metricsOperation() huma.Operation {
	op := s.operation("metrics", http.MethodGet, "/metrics", "Prometheus metrics", false)
	op.Responses = map[string]*huma.Response{
		"200": {
			Description: "Metrics in the Prometheus text format",
			Content:     map[string]*huma.MediaType{metricsContentType: {Schema: &huma.Schema{Type: huma.TypeString}}},
		},
	}
	return op
}

func (s *Server) serveMetrics(context.Context, *metricsInput) (*metricsOutput, error) {
	var b bytes.Buffer
	s.metrics.write(&b)
	return &metricsOutput{ContentType: metricsContentType, Body: b.Bytes()}, nil
}
