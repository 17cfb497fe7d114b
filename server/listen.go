package server

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"

	"github.com/sharedesk/transcript/internal/quotable"
)

// DefaultAddr is where `transcript serve` listens without --addr: the loopback interface
// only.
const DefaultAddr = "127.0.0.1:8474"

// ErrExposed is matched by CheckAddr's refusal of a plain-HTTP address beyond loopback.
var ErrExposed = errors.New("server: a non-loopback address needs TLS or an explicit insecure HTTP")

// CheckAddr reports whether the service may listen on addr (host:port) as asked: a loopback address (127.0.0.0/8, ::1, localhost) always; any other address,
// the unspecified ones (":8474", "0.0.0.0:8474") among them, only with TLS or with
// insecureHTTP, the operator's explicit choice. The error matches ErrExposed, or says what
// is wrong with addr; it is an *AddrError.
func CheckAddr(addr string, tls, insecureHTTP bool) error {
	host, _, err := net.SplitHostPort(addr)
	if _, portErr := strconv.ParseUint(addr, 10, 16); err != nil && portErr == nil {
		return &AddrError{Addr: addr, Reason: fmt.Sprintf("is a port alone: want HOST:PORT, such as 127.0.0.1:%s", addr), Err: err}
	}
	if err != nil {
		reason := "is no HOST:PORT"
		if ae := (*net.AddrError)(nil); errors.As(err, &ae) {
			reason += ": " + ae.Err
		}
		return &AddrError{Addr: addr, Reason: reason, Err: err}
	}
	if tls || insecureHTTP || isLoopback(host) {
		return nil
	}
	return &AddrError{Addr: addr, Reason: "is not loopback, and needs TLS (--tls-cert and --tls-key) or an explicit --insecure-http", Err: ErrExposed}
}

// AddrError is CheckAddr's refusal of a listen address: the address as given, and what is
// wrong with it. It unwraps to ErrExposed for a plain-HTTP address beyond loopback, else to
// the error of net.SplitHostPort.
type AddrError struct {
	Addr   string
	Reason string
	Err    error
}

// Error names the address unless it could be a secret given in its place (a token's).
func (e *AddrError) Error() string {
	if !quotable.Text(e.Addr) {
		return fmt.Sprintf("server: the listen address given (%s) %s", quotable.NotQuoted, e.Reason)
	}
	return fmt.Sprintf("server: listen address %q %s", e.Addr, e.Reason)
}

// Unwrap returns ErrExposed or net.SplitHostPort's error.
func (e *AddrError) Unwrap() error { return e.Err }

// isLoopback reports whether host names only the loopback interface. A name other than
// localhost is not: it may resolve anywhere.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
