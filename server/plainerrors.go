package server

import "net/http"

// plainErrorsAsProblems returns h answering every error it writes with http.Error
// (text/plain), as the handlers that are no operation of the service do (net/http's file
// server, the MCP SDK's), as a problem of its status's kind instead, whose detail is
// detail(status): fixed text, since what http.Error said may quote the request. Headers
// h set stay (a 405's Allow among them); a status no kind has passes as h wrote it.
func plainErrorsAsProblems(h http.Handler, detail func(status int) string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&problemWriter{ResponseWriter: w, detail: detail}, r)
	})
}

// problemWriter is plainErrorsAsProblems's writer. It unwraps, so that
// http.ResponseController reaches the connection.
type problemWriter struct {
	http.ResponseWriter
	detail   func(status int) string
	replaced bool // the error was answered as a problem: what h writes next is dropped
}

// plainText is the content type http.Error sets.
const plainText = "text/plain; charset=utf-8"

func (w *problemWriter) WriteHeader(code int) {
	if w.replaced {
		return
	}
	if k := kindForStatus(code); code >= 400 && k.Status() == code && w.Header().Get("Content-Type") == plainText {
		w.replaced = true
		writeProblem(w.ResponseWriter, k.problem(w.detail(code)), nil)
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *problemWriter) Write(p []byte) (int, error) {
	if w.replaced {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// Flush sends what is buffered (the MCP SDK looks for http.Flusher).
func (w *problemWriter) Flush() {
	if !w.replaced {
		http.NewResponseController(w.ResponseWriter).Flush()
	}
}

func (w *problemWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// staticErrorDetail is the detail of an error of the page's static files.
func staticErrorDetail(status int) string {
	if status == http.StatusNotFound {
		return "no such file"
	}
	return otherErrorDetail(status)
}

// mcpErrorDetail is the detail of an error the MCP SDK answers with, before any tool runs.
func mcpErrorDetail(status int) string {
	switch status {
	case http.StatusMethodNotAllowed:
		return "/mcp takes POST: the streamable HTTP transport, stateless, with JSON answers"
	case http.StatusUnsupportedMediaType:
		return "the body must be application/json"
	case http.StatusRequestEntityTooLarge:
		return "the request body is over the limit"
	case http.StatusBadRequest:
		return "/mcp takes a JSON-RPC message, with Accept: application/json, text/event-stream"
	}
	return otherErrorDetail(status)
}

// otherErrorDetail is the detail of an error no detail function names: a 5xx's fixed text
// (problemDetail), else none (the kind's title says it).
func otherErrorDetail(status int) string {
	if status >= 500 {
		return problemDetail(status)
	}
	return ""
}
