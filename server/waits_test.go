package server_test

import (
	"context"
	"net"
	"testing"
)

// watchProbe is the name a silent watch reports once: no desk has it, so the server wakes
// no tail for it.
const watchProbe = "no desk: the watch is up"

// silentWatch returns the channel of a watch that reports no commit. Its one send, of
// watchProbe, is taken only by a server that ranges over the channel, which it does once
// it counts the watch as up; then up is closed. The channel closes when ctx is done.
func silentWatch(ctx context.Context, up chan struct{}) <-chan string {
	ch := make(chan string)
	go func() {
		defer close(ch)
		select {
		case ch <- watchProbe:
			close(up)
		case <-ctx.Done():
			return
		}
		<-ctx.Done()
	}()
	return ch
}

// awaitWatchUp waits for up to close: the server counts the store's watch as up, so that a
// row it appends is left for the watch to report.
func awaitWatchUp(t *testing.T, up <-chan struct{}) {
	t.Helper()
	select {
	case <-up:
	case <-t.Context().Done():
		t.Fatal("the test ended before the server's watch was up")
	}
}

// fastReads gives both ends of the stream on conn, a client's connection of
// openSlowStream to a server on l, socket buffers of 4 MiB: once what the test needs to
// happen while the server's writes wait is done, the rest of the stream comes without a
// wait for each few KiB (small windows and delayed acknowledgements make loopback crawl at
// about 200 KB/s).
func fastReads(t *testing.T, l *smallSendBuffers, conn net.Conn) {
	t.Helper()
	if err := conn.(*receivedConn).Conn.(*net.TCPConn).SetReadBuffer(4 << 20); err != nil {
		t.Fatal(err)
	}
	l.mu.Lock()
	c := l.conns[conn.LocalAddr().String()]
	l.mu.Unlock()
	if c == nil {
		t.Fatal("the listener holds no connection of the stream")
	}
	if err := c.Conn.(*net.TCPConn).SetWriteBuffer(4 << 20); err != nil {
		t.Fatal(err)
	}
}
