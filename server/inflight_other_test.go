//go:build !unix

package server_test

import "time"

// writeNoted writes b, noting its bytes as taken when the write begins: on this system the
// connection cannot see the kernel take them, so a write that goes on past a 201 counts as
// written before it.
func (c *notedConn) writeNoted(b []byte) (int, error) {
	c.l.mu.Lock()
	c.taken += int64(len(b))
	c.waiting = time.Now()
	c.l.mu.Unlock()
	n, err := c.Conn.Write(b)
	c.l.mu.Lock()
	c.waiting = time.Time{}
	c.l.mu.Unlock()
	return n, err
}
