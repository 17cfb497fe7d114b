package server_test

import (
	"errors"
	"testing"

	"github.com/sharedesk/transcript/server"
)

func TestCheckAddr(t *testing.T) {
	for _, c := range []struct {
		addr           string
		tls, insecure  bool
		ok, exposedErr bool
	}{
		{addr: server.DefaultAddr, ok: true},
		{addr: "127.0.0.2:80", ok: true},
		{addr: "[::1]:80", ok: true},
		{addr: "localhost:80", ok: true},
		{addr: ":80", exposedErr: true},
		{addr: "0.0.0.0:80", exposedErr: true},
		{addr: "192.0.2.1:80", exposedErr: true},
		{addr: "example.com:80", exposedErr: true},
		{addr: "0.0.0.0:443", tls: true, ok: true},
		{addr: "0.0.0.0:80", insecure: true, ok: true},
		{addr: "no port"},
	} {
		err := server.CheckAddr(c.addr, c.tls, c.insecure)
		if (err == nil) != c.ok || errors.Is(err, server.ErrExposed) != c.exposedErr {
			t.Errorf("CheckAddr(%q, tls %v, insecure %v): %v", c.addr, c.tls, c.insecure, err)
		}
	}
}
