// Package quotable says which names a client sent an error may quote back to it.
//
// A refusal that names what was wrong helps whoever sent it, and a mistyped field ("text"
// for "content") is best named. But what a client sends as a name may be anything, a
// token's secret pasted in the wrong place among it, and an error travels further than the
// request: into logs, a model's context, a bug report. The service's problems and the MCP
// tools' refusals quote a name the client sent only when Name says it is plain.
package quotable
