package pgstore

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestPassing: which errors from checking a standby say that it could not be reached or
// answer just then (Open goes on without it, reads try it again), and which say it is not
// usable as given (Open fails). Each error is wrapped, as the checks wrap them.
func TestPassing(t *testing.T) {
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
		if got := passing(err); got != c.want {
			t.Errorf("%s (%v): passing %v, want %v", c.name, err, got, c.want)
		}
	}
}
