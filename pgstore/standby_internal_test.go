package pgstore

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestUnreachable: which errors from checking a standby say that it could not be reached or
// answer just then (Open goes on without it, reads try it again), and which say it is not
// usable as given (Open fails). Each error is wrapped, as the checks wrap them.
func TestUnreachable(t *testing.T) {
	pg := func(code string) error { return &pgconn.PgError{Severity: "FATAL", Code: code} }
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"connection refused", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, true},
		{"connection reset", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, true},
		{"a name not found", &net.DNSError{Err: "no such host", Name: "standby-0", IsNotFound: true}, true},
		{"no answer in time", context.DeadlineExceeded, true},
		{"a connection lost mid-answer", io.ErrUnexpectedEOF, true},
		{"a connection closed", io.EOF, true},
		{"starting up", pg("57P03"), true},
		{"shut down by an administrator", pg("57P01"), true},
		{"crashed", pg("57P02"), true},
		{"too many clients", pg("53300"), true},
		{"a connection failure", pg("08006"), true},
		{"a refused password", pg("28P01"), false},
		{"no such database", pg("3D000"), false},
		{"no such table", pg("42P01"), false},
		{"a recovery conflict, once checked", pg("40001"), false},
		{"an unknown certificate authority", x509.UnknownAuthorityError{}, false},
		{"TLS refused", errors.New("tls error: server refused TLS connection"), false},
	} {
		err := fmt.Errorf("pgstore: standby localhost:5433/chat: %w", c.err)
		if got := unreachable(err); got != c.want {
			t.Errorf("%s (%v): unreachable %v, want %v", c.name, err, got, c.want)
		}
	}
}

// TestFailCountsOnce: reads that fail on a standby at one moment count as one failure, so
// its pause doubles once, not once a read; each failure after the pause doubles it, up to
// standbyRetryMost; an answer starts the doubling over; a hang skips to the longest pause.
func TestFailCountsOnce(t *testing.T) {
	var sb standby
	now := time.Now().UnixNano()
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() { sb.pause(now) })
	}
	wg.Wait()
	if n, until := sb.failures.Load(), sb.skipUntil.Load(); n != 1 || until != now+int64(standbyRetryFirst) {
		t.Fatalf("after 32 reads failed at once: %d failures, skipped for %v; want 1, %v", n, time.Duration(until-now), standbyRetryFirst)
	}
	for i, want := range []time.Duration{2 * standbyRetryFirst, 4 * standbyRetryFirst} {
		now = sb.skipUntil.Load()
		sb.pause(now)
		if got := time.Duration(sb.skipUntil.Load() - now); got != want {
			t.Errorf("failure %d in a row: skipped for %v, want %v", i+2, got, want)
		}
	}
	for range 20 {
		now = sb.skipUntil.Load()
		sb.pause(now)
	}
	if got := time.Duration(sb.skipUntil.Load() - now); got != standbyRetryMost {
		t.Errorf("after many failures in a row: skipped for %v, want %v", got, standbyRetryMost)
	}
	sb.answered()
	now = sb.skipUntil.Load()
	sb.pause(now)
	if got := time.Duration(sb.skipUntil.Load() - now); got != standbyRetryFirst {
		t.Errorf("a failure after an answer: skipped for %v, want %v", got, standbyRetryFirst)
	}
	sb.answered()
	sb.pauseLongest(now)
	if got := time.Duration(sb.skipUntil.Load() - now); got != standbyRetryMost {
		t.Errorf("a hang: skipped for %v, want %v", got, standbyRetryMost)
	}
	now = sb.skipUntil.Load()
	sb.pause(now)
	if got := time.Duration(sb.skipUntil.Load() - now); got != standbyRetryMost {
		t.Errorf("a failure after a hang: skipped for %v, want %v", got, standbyRetryMost)
	}
}
