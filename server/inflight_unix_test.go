//go:build unix

package server_test

import (
	"errors"
	"net"
	"syscall"
	"time"
)

// writeNoted writes b to the socket with non-blocking writes of its own, noting each byte
// the kernel takes, and waits for room under the connection's write deadline.
func (c *notedConn) writeNoted(b []byte) (int, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return 0, errors.New("the connection has no socket")
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return 0, err
	}
	n := 0
	var werr error
	err = raw.Write(func(fd uintptr) bool {
		c.l.mu.Lock()
		defer c.l.mu.Unlock()
		for n < len(b) {
			k, err := syscall.Write(int(fd), b[n:])
			if k > 0 {
				n += k
				c.taken += int64(k)
				c.waiting = time.Time{}
			}
			switch {
			case err == syscall.EINTR:
			case err == syscall.EAGAIN:
				if c.waiting.IsZero() {
					c.waiting = time.Now()
				}
				return false
			case err != nil:
				werr = err
				return true
			}
		}
		return true
	})
	if err == nil {
		err = werr
	}
	if err != nil {
		return n, &net.OpError{Op: "write", Net: "tcp", Addr: c.RemoteAddr(), Err: err}
	}
	return n, nil
}
