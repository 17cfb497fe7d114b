package server

import "net/http"

// The bounds of a request's header. The server answers a header over MaxHeaderBytes with
// a problem (431, header-too-large); net/http, which reads it, stops at
// connectionHeaderBytes and answers on its own before any handler runs, which Serve's
// connections turn into the same problem (problemListener): a header of any size is
// refused alike, and none is read past connectionHeaderBytes.
const (
	MaxHeaderBytes        = 64 << 10
	connectionHeaderBytes = 4 * MaxHeaderBytes
)

// refuseLargeHeaders answers 431 as a problem for a request whose request line and header
// fields, as sent, are over MaxHeaderBytes.
func refuseLargeHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if headerBytes(r) > MaxHeaderBytes {
			writeProblem(w, kindHeaderTooLarge.problem("the request's header fields are over 64 KiB"), nil)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// headerBytes is about what r's request line and header fields took on the wire, "\r\n"s
// and ": "s counted (HTTP/2's compression not undone): what net/http's MaxHeaderBytes
// bounds.
func headerBytes(r *http.Request) int {
	n := len(r.Method) + 1 + len(r.RequestURI) + 1 + len(r.Proto) + 2
	n += len("Host: ") + len(r.Host) + 2
	for name, values := range r.Header {
		for _, v := range values {
			n += len(name) + 2 + len(v) + 2
		}
	}
	return n
}
