package server

import (
	"net/http"
	"net/netip"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// TestFailLimitsBounded: however many addresses fail, failLimits holds at most
// maxAddrs buckets, the addresses beyond them share one (and are limited by it), and a
// bucket that is full again is forgotten.
func TestFailLimitsBounded(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := newFailLimits(rate.Every(time.Second), 2, 8, func() time.Time { return now })
	refused := 0
	for i := range 1000 {
		addr := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}), 32)
		if _, ok := l.fail(addr); !ok {
			refused++
		}
	}
	if n := len(l.byAddr); n != 8 {
		t.Errorf("%d addresses held after 1,000 failed, want 8", n)
	}
	if refused != 1000-8-2 {
		t.Errorf("%d of the 992 addresses beyond the eighth refused, want all but the shared bucket's 2", refused)
	}
	now = now.Add(time.Hour) // every bucket full again
	fresh := netip.MustParsePrefix("192.0.2.1/32")
	if _, ok := l.fail(fresh); !ok {
		t.Error("a new address refused once every bucket is full again")
	}
	if _, held := l.byAddr[fresh]; !held || len(l.byAddr) != 1 {
		t.Errorf("after the sweep: %d addresses held (the new one: %v), want only the new one", len(l.byAddr), held)
	}
}

func TestClientAddr(t *testing.T) {
	for remote, want := range map[string]string{
		"192.0.2.7:1234":             "192.0.2.7/32",
		"[::ffff:192.0.2.7]:1234":    "192.0.2.7/32",
		"[2001:db8:1:2:3:4:5:6]:443": "2001:db8:1:2::/64",
		"[fe80::1%eth0]:80":          "fe80::/64",
		"@":                          "invalid Prefix",
		"":                           "invalid Prefix",
	} {
		if got := clientAddr(&http.Request{RemoteAddr: remote}).String(); got != want {
			t.Errorf("clientAddr(%q) = %s, want %s", remote, got, want)
		}
	}
}
