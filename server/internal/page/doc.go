// Package page is the service's inspector page: its template, stylesheet, script and icon,
// embedded in the binary (Page), the sessions it signs in with (Sessions), and the
// operations only it calls (API): sign-in and sign-out, the desk's rows as they are, a view
// as its viewer's model reads it, the desk's participants and the words of elisions.
//
// EventSource cannot send an Authorization header, so the page exchanges an operator token
// for an HttpOnly, SameSite=Strict session cookie, and its requests that change anything
// carry the session's CSRF token. A session keeps the Authorization header it was made
// with, in memory only, so that the service authenticates every request the cookie makes
// as it does a bearer request: a token revoked since the sign-in ends its sessions.
//
// The service decides who a request is (its cookie's session among them, WithSession) and
// registers API's operations beside its own, which the page calls too.
package page
