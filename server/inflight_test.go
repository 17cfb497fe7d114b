package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/deskmcp"
	"github.com/sharedesk/transcript/posting"
	"github.com/sharedesk/transcript/server"
)

// smallSendBuffers is a listener whose connections send through a small socket buffer, so
// that a stream's write waits for its client to read, as over a slow network. It notes,
// for each connection, how many bytes the kernel had taken from the server to send on it
// when the server last began an answer on any of them (the answer to a redaction, while a
// stream writes).
type smallSendBuffers struct {
	net.Listener
	mu    sync.Mutex
	conns map[string]*notedConn // by the client's address
}

func (l *smallSendBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return c, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(16 << 10)
	}
	nc := &notedConn{Conn: c, l: l, atAnswer: -1}
	l.mu.Lock()
	if l.conns == nil {
		l.conns = make(map[string]*notedConn)
	}
	l.conns[c.RemoteAddr().String()] = nc
	l.mu.Unlock()
	return nc, nil
}

// atAnswer returns how many bytes the kernel had taken to send to the client at addr when
// the server last began an answer, -1 when it has begun none since the connection opened.
func (l *smallSendBuffers) atAnswer(addr string) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c := l.conns[addr]; c != nil {
		return c.atAnswer
	}
	return -1
}

// waitBlocked waits until the server's write to the client at addr has waited 200 ms for
// room in the socket (its client does not read), for at most 10 s.
func (l *smallSendBuffers) waitBlocked(t *testing.T, addr string) {
	t.Helper()
	for range 1000 {
		l.mu.Lock()
		c := l.conns[addr]
		blocked := c != nil && !c.waiting.IsZero() && time.Since(c.waiting) > 200*time.Millisecond
		l.mu.Unlock()
		if blocked {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the server's write to the stream's client never waited for room in the socket")
}

// notedConn is a server's connection of smallSendBuffers. Where the system lets it
// (writeNoted), it writes to the socket itself, so that it knows each byte the kernel took
// as it takes it.
type notedConn struct {
	net.Conn
	l        *smallSendBuffers
	taken    int64     // bytes the kernel took; under l.mu
	atAnswer int64     // taken when an answer last began, on any connection; under l.mu
	waiting  time.Time // since when a write waits for room in the socket; zero when none does; under l.mu
}

func (c *notedConn) Write(b []byte) (int, error) {
	if bytes.HasPrefix(b, []byte("HTTP/1.1 ")) {
		c.l.mu.Lock()
		for _, o := range c.l.conns {
			o.atAnswer = o.taken
		}
		c.l.mu.Unlock()
	}
	return c.writeNoted(b)
}

// receivedConn is a client's connection that keeps every byte it read.
type receivedConn struct {
	net.Conn
	got bytes.Buffer
}

func (c *receivedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.got.Write(p[:n])
	return n, err
}

// TestSlowReaderRedaction: a stream writes a part of five rows of nearly 1 MiB each to a
// client that reads slowly (small socket buffers at both ends), and waits for it to read.
// Ahead: the part's third row is redacted while the stream writes the first; once the
// redaction's 201 is sent, the client never receives the erased content: the row comes
// erased, as a read after the redaction shows it. Being written: the row the stream writes
// is redacted (by DELETE, or by MCP's redact_message); no byte of it that the server writes
// after it began the answer reaches the client, and a resumed stream has it erased. On the
// channel's stream and on the operator's rows.
func TestSlowReaderRedaction(t *testing.T) {
	t.Parallel() // its own stores and servers; it waits on slow reads far more than it works
	eachStore(t, func(t *testing.T, st server.Store) {
		t.Parallel()
		srv, err := server.New(st, server.Options{Rate: rate.Inf, Heartbeat: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewUnstartedServer(srv)
		listener := &smallSendBuffers{Listener: ts.Listener}
		ts.Listener = listener
		ts.Start()
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			srv.Shutdown(ctx)
			ts.CloseClientConnections()
			ts.Close()
		})
		e := &env{t: t, st: st, srv: srv, ts: ts}
		for _, route := range []struct {
			name, desk, path string
			reader           transcript.Author
		}{
			{"events", "slow1", "/v1/desks/slow1/events?after=0", triage},
			{"rows", "slow2", "/v1/desks/slow2/rows/events?after=0", operator},
		} {
			t.Run(route.name, func(t *testing.T) {
				e.t = t
				author := e.token(route.desk, coder)
				reader := e.token(route.desk, route.reader)
				const rows = 5
				for i := 1; i <= rows; i++ {
					marker := fmt.Sprintf("[row %d of the slow part]", i)
					content := strings.Repeat(marker, (1000<<10)/len(marker))
					if _, _, err := st.AppendNew(t.Context(), route.desk, transcript.Message{Author: coder, Content: content}); err != nil {
						t.Fatal(err)
					}
				}
				t.Run("ahead", func(t *testing.T) {
					// The part's third row, which the stream has yet to write.
					const target = 3
					erased := fmt.Sprintf("[row %d of the slow part]", target)
					body, conn, first, redaction := slowStreamRedacting(t, e, route.path, reader, func() transcript.Message { return e.redact(route.desk, target, author) })
					var got bytes.Buffer
					conn.SetReadDeadline(time.Now().Add(time.Minute))
					// The redaction is answered: the rest of the part may come at loopback speed.
					fastReads(t, listener, conn)
					events := readEventsThrough(t, io.MultiReader(bytes.NewReader(first), io.TeeReader(body, &got)), rows) // the part, read after the 201
					if n := bytes.Count(got.Bytes(), []byte(erased)); n > 0 {
						t.Fatalf("the stream delivered the erased content (%d copies of its marker) after the redaction's 201", n)
					}
					m := events[target]
					if m.Content != "" || !m.Redacted || m.Revised != redaction.Seq {
						t.Errorf("row %d came with content of %d bytes, redacted %v, revised %d; want erased: \"\", true, %d",
							target, len(m.Content), m.Redacted, m.Revised, redaction.Seq)
					}
					for i := 1; i <= rows; i++ {
						if m := events[transcript.Sequence(i)]; i != target && len(m.Content) < 1000<<10-64 {
							t.Errorf("row %d came with %d bytes of content, want it whole", i, len(m.Content))
						}
					}
				})
				// beingWritten: the row the stream is writing, whose redaction redact
				// commits and answers: the write stops at once, before the answer; the client
				// resumes from before the row, which then comes erased.
				beingWritten := func(t *testing.T, target transcript.Sequence, redact func() transcript.Message) {
					path := strings.Replace(route.path, "after=0", fmt.Sprintf("after=%d", target-1), 1)
					erased := []byte(fmt.Sprintf("[row %d of the slow part]", target))
					body, conn, _, redaction := slowStreamRedacting(t, e, path, reader, redact)
					conn.SetReadDeadline(time.Now().Add(time.Minute))
					late, err := io.ReadAll(body)
					if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, syscall.ECONNRESET) {
						t.Fatalf("reading the stream after the redaction: %v", err)
					}
					// What the server wrote before it began the answer may still sit in the two
					// sockets' buffers: the client reads it after the answer. Nothing written
					// later may hold a byte of the row.
					at := listener.atAnswer(conn.LocalAddr().String())
					if at < 0 {
						t.Fatal("the listener saw no answer while the stream was open")
					}
					raw := conn.(*receivedConn).got.Bytes()
					at = min(at, int64(len(raw)))
					if n := bytes.Count(raw[at:], erased) * len(erased); n > 0 {
						t.Fatalf("the client read %d bytes of the erased row that the server wrote after it began the redaction's answer (%d bytes read after the answer in all)", n, len(late))
					}
					next := []byte(fmt.Sprintf("\nid: %d\n", target+1))
					if bytes.Contains(late, next) {
						t.Fatal("the stream went on past the erased row")
					}
					again, _ := openSlowStream(t, ts.Listener.Addr().String(), path, reader)
					m := readEventsThrough(t, again, target)[target]
					if m.Content != "" || !m.Redacted || m.Revised != redaction.Seq {
						t.Errorf("resumed, row %d came with content of %d bytes, redacted %v, revised %d; want erased", target, len(m.Content), m.Redacted, m.Revised)
					}
				}
				t.Run("being written", func(t *testing.T) {
					beingWritten(t, 1, func() transcript.Message { return e.redact(route.desk, 1, author) })
				})
				t.Run("being written, redacted over MCP", func(t *testing.T) {
					a := e.mcpAgent(author)
					beingWritten(t, 2, func() transcript.Message {
						var m transcript.Message
						if _, err := a.Call("redact_message", deskmcp.RedactMessageArgs{Seq: 2}, &m); err != nil {
							t.Fatal(err)
						}
						return m
					})
				})
			})
		}
	})
}

// slowStreamRedacting opens a slow stream on path as reader, reads its first 64 KiB (part
// of the first row), waits until the server's write waits for the client to read, and
// redacts with redact. It returns the stream's body and connection, the bytes read before
// the redaction, and the redaction's row.
func slowStreamRedacting(t *testing.T, e *env, path, reader string, redact func() transcript.Message) (io.Reader, net.Conn, []byte, transcript.Message) {
	t.Helper()
	body, conn := openSlowStream(t, e.ts.Listener.Addr().String(), path, reader)
	first := make([]byte, 64<<10)
	if _, err := io.ReadFull(body, first); err != nil {
		t.Fatal(err)
	}
	e.ts.Listener.(*smallSendBuffers).waitBlocked(t, conn.LocalAddr().String())
	return body, conn, first, redact()
}

// redact redacts row seq of desk with the secret, and returns the redaction (201).
func (e *env) redact(desk string, seq transcript.Sequence, secret string) transcript.Message {
	e.t.Helper()
	res := e.do("DELETE", fmt.Sprintf("/v1/desks/%s/messages/%d", desk, seq), secret, nil)
	return decode[transcript.Message](e.t, res, http.StatusCreated)
}

// openSlowStream opens a stream on path as the holder of secret over a connection with a
// small receive buffer, and returns the response's body once its header is read, and the
// connection, a *receivedConn.
func openSlowStream(t *testing.T, addr, path, secret string) (io.Reader, net.Conn) {
	t.Helper()
	tc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tc.Close() })
	if err := tc.(*net.TCPConn).SetReadBuffer(16 << 10); err != nil {
		t.Fatal(err)
	}
	conn := &receivedConn{Conn: tc}
	conn.SetDeadline(time.Now().Add(time.Minute))
	req, err := http.NewRequest("GET", "http://"+addr+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+secret)
	if err := req.Write(conn); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReaderSize(conn, 4<<10), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("stream %s: %s: %s", path, res.Status, b)
	}
	return res.Body, conn
}

// readEventsThrough reads r's events, 4 KiB at a time, until it has read the row with Seq
// last, and returns the rows of message and row events by Seq.
func readEventsThrough(t *testing.T, r io.Reader, last transcript.Sequence) map[transcript.Sequence]transcript.Message {
	t.Helper()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4<<10), 8<<20)
	rows := make(map[transcript.Sequence]transcript.Message)
	var name string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: ") && (name == "message" || name == "row"):
			var m transcript.Message
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &m); err != nil {
				t.Fatalf("%s event: %v", name, err)
			}
			rows[m.Seq] = m
			if m.Seq == last {
				return rows
			}
		}
	}
	t.Fatalf("the stream ended (%v) before row %d; rows read: %d", sc.Err(), last, len(rows))
	return nil
}

// TestOtherProcessRedaction: a row the served store holds in memory (a stream is open on
// its desk and received it) is redacted through a second handle on the same database, as
// the command line or another serve process would; every stream opened after that
// redaction returned carries the row erased, never its content, in every one of a bounded
// number of rounds.
func TestOtherProcessRedaction(t *testing.T) {
	eachStoreWithAnother(t, func(t *testing.T, st server.Store, another func() server.Store) {
		e := newEnv(t, st, server.Options{Rate: rate.Inf, Heartbeat: time.Hour})
		other := another()
		author := e.token("eng", coder)
		reader := e.token("eng", triage)
		held := e.open("/v1/desks/eng/events", reader) // keeps the desk's rows in the server's memory
		const rounds = 20
		late := 0
		for i := range rounds {
			secret := fmt.Sprintf("[the secret of round %d]", i)
			row := e.post(author, map[string]any{"content": secret})
			for held.event(t).message(t).Seq != row.Seq {
			}
			c, err := posting.PrepareCorrection(coder, posting.Correction{Target: row.Seq, Redact: true})
			if err != nil {
				t.Fatal(err)
			}
			redaction, created, err := other.AppendNew(t.Context(), "eng", c)
			if err != nil || !created {
				t.Fatalf("the other handle's redaction: %v (created %v)", err, created)
			}
			s := e.open("/v1/desks/eng/events?after="+strconv.FormatUint(uint64(row.Seq-1), 10), reader)
			m := s.event(t).message(t)
			if m.Seq != row.Seq {
				t.Fatalf("round %d: the stream's first message is %d, want %d", i, m.Seq, row.Seq)
			}
			if m.Content != "" || !m.Redacted || m.Revised != redaction.Seq {
				late++
				t.Errorf("round %d: a stream opened after the redaction committed carries row %d with content %q, redacted %v, revised %d",
					i, m.Seq, m.Content, m.Redacted, m.Revised)
			}
			s.close()
			for held.event(t).event != "correction" {
			}
		}
		if late > 0 {
			t.Errorf("%d of %d streams opened after the redaction carried the erased content", late, rounds)
		}
	})
}

// event returns the stream's next event, failing when it ends or none comes in 10 s.
func (s *stream) event(t *testing.T) sseEvent {
	t.Helper()
	ev, ok := s.next(10 * time.Second)
	if !ok {
		t.Fatal("the stream ended")
	}
	return ev
}
