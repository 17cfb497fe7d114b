package server

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"strconv"
)

// problemListener returns ln with every connection answering the errors net/http writes
// itself, before any handler runs — a request line or header block over the connection's
// limit (431), a request it cannot parse (400), a transfer coding it does not know (501),
// an HTTP version it does not serve (505), an expectation it does not meet (417) — as
// problems of their status's kind (problemConn), as the handler answers every other
// error. Over TLS the connection carries ciphertext, which it passes as it is.
func problemListener(ln net.Listener) net.Listener { return problemConns{ln} }

type problemConns struct{ net.Listener }

func (l problemConns) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &problemConn{Conn: c}, nil
}

// problemConn is a connection of problemListener's. net/http writes its own errors to the
// connection in one write each, with exactly these two header fields and a text/plain body,
// and closes it after; a response of a handler passes through its buffer, and has a Date
// field among others. The one exception is a 417, which net/http answers through a
// response of its own, with no body, before any handler runs: no handler of the service
// answers 417, so a write that begins with its status line and CRLF is that answer (a
// message's text never reaches the connection with a bare CR or LF: every answer that
// carries one is JSON, whose strings escape them).
type problemConn struct{ net.Conn }

// plainErrorHeader is what follows the status line of an error net/http writes itself.
const plainErrorHeader = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

func (c *problemConn) Write(p []byte) (int, error) {
	code, ok := plainConnError(p)
	if !ok {
		return c.Conn.Write(p)
	}
	if _, err := c.Conn.Write(problemResponse(code)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// CloseWrite closes the connection's writing side when it has one, as net/http does after
// a 431 so that the client reads the answer before the connection resets.
func (c *problemConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// plainConnError reports whether p is an error net/http writes itself: "HTTP/1.1 NNN ...",
// plainErrorHeader right after the status line, and a body, or its 417; and its status,
// which a problem kind has.
func plainConnError(p []byte) (int, bool) {
	const prefix = "HTTP/1.1 "
	if bytes.HasPrefix(p, []byte(prefix+"417 Expectation Failed\r\n")) {
		return http.StatusExpectationFailed, true
	}
	if !bytes.HasPrefix(p, []byte(prefix)) || len(p) < len(prefix)+4 || p[len(prefix)+3] != ' ' {
		return 0, false
	}
	line, _, found := bytes.Cut(p, []byte("\r\n"))
	if !found || !bytes.HasPrefix(p[len(line):], []byte(plainErrorHeader)) {
		return 0, false
	}
	code, err := strconv.Atoi(string(p[len(prefix) : len(prefix)+3]))
	if err != nil || code < 400 || kindForStatus(code).Status() != code {
		return 0, false // a status no kind has passes as net/http wrote it
	}
	return code, true
}

// problemResponse is the whole HTTP/1.1 response, the connection closing after it, of the
// problem of code's kind with a fixed detail: what net/http said may quote the request.
func problemResponse(code int) []byte {
	k := kindForStatus(code)
	detail := otherErrorDetail(code)
	switch code {
	case http.StatusRequestHeaderFieldsTooLarge:
		detail = fmt.Sprintf("the request line and header fields are over %d KiB", MaxHeaderBytes>>10)
	case http.StatusBadRequest:
		detail = "the request is not HTTP/1.1 the server can read"
	case http.StatusNotImplemented:
		detail = "the request's transfer coding is not one the server knows"
	case http.StatusHTTPVersionNotSupported:
		detail = "the request's HTTP version is not one the server serves"
	case http.StatusExpectationFailed:
		detail = "the only expectation the server meets is Expect: 100-continue"
	}
	rec := newBufferedResponse()
	writeProblem(rec, k.problem(detail), http.Header{"Connection": {"close"}})
	var b bytes.Buffer
	b.WriteString("HTTP/1.1 " + strconv.Itoa(rec.code) + " " + http.StatusText(rec.code) + "\r\n")
	rec.header.Write(&b)
	b.WriteString("\r\n")
	b.Write(rec.body.Bytes())
	return b.Bytes()
}

// bufferedResponse is an http.ResponseWriter that keeps what is written to it.
type bufferedResponse struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func newBufferedResponse() *bufferedResponse { return &bufferedResponse{header: make(http.Header)} }

func (r *bufferedResponse) Header() http.Header         { return r.header }
func (r *bufferedResponse) WriteHeader(code int)        { r.code = code }
func (r *bufferedResponse) Write(p []byte) (int, error) { return r.body.Write(p) }
