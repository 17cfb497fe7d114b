// Package page is the service's inspector page: its template, stylesheet, script and icon,
// embedded in the binary (Page), and the sessions it signs in with (Sessions).
//
// EventSource cannot send an Authorization header, so the page exchanges an operator token
// for an HttpOnly, SameSite=Strict session cookie, and its requests that change anything
// carry the session's CSRF token. A session keeps the Authorization header it was made
// with, in memory only, so that the service authenticates every request the cookie makes
// as it does a bearer request: a token revoked since the sign-in ends its sessions.
//
// The service decides who a request is (its cookie's session among them) and registers the
// operations the page calls; this package holds what the page is.
package page
